package io.leaderelection.autoconfigure.leaderonly;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.util.function.SingletonSupplier;

/**
 * Keeps a {@code Lifecycle} bean annotated at type level from starting unless this replica
 * leads: its {@code isAutoStartup()} is false, and its {@code start()} runs only on the leader.
 */
final class LeaderOnlyLifecycleGate {

	private final SingletonSupplier<LeaderElector> elector;

	private final SingletonSupplier<LeaderOnlyRegistry> registry;

	LeaderOnlyLifecycleGate(SingletonSupplier<LeaderElector> elector, SingletonSupplier<LeaderOnlyRegistry> registry) {
		this.elector = elector;
		this.registry = registry;
	}

	/** A call of {@code isAutoStartup()} or {@code start()} of a bean the gate is on. */
	Object invoke(MethodInvocation invocation, LeaderOnly gate) throws Throwable {
		if ("isAutoStartup".equals(invocation.getMethod().getName())) {
			return false;
		}
		if (this.registry.obtain().isRefusing() || !this.elector.obtain().isLeader(gate.value())) {
			return null;
		}
		return invocation.proceed();
	}

}
