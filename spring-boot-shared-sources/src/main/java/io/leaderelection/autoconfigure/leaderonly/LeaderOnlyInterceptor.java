package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.engine.LeaderCalls;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@code @LeaderOnly} call only while this replica leads its election, reading the
 * elector's time-bounded gate at call time, and keeps a gated lifecycle bean from starting
 * unless it leads.
 */
class LeaderOnlyInterceptor implements MethodInterceptor {

	private final LeaderOnlyAttributeSource attributes;

	// Looked up once, on the first call: the interceptor exists before these beans do, and a
	// bean factory look-up on every call would cost more than the rest of the interception.
	private final SingletonSupplier<LeaderElector> elector;

	private final SingletonSupplier<LeaderOnlyRegistry> registry;

	private final SingletonSupplier<LeaderOnlyInvocations> invocations;

	LeaderOnlyInterceptor(LeaderOnlyAttributeSource attributes, ObjectProvider<LeaderElector> elector,
			ObjectProvider<LeaderOnlyRegistry> registry, ObjectProvider<LeaderOnlyInvocations> invocations) {
		this.attributes = attributes;
		this.elector = SingletonSupplier.of(elector::getObject);
		this.registry = SingletonSupplier.of(registry::getObject);
		this.invocations = SingletonSupplier.of(invocations::getObject);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Class<?> targetClass = (invocation.getThis() != null) ? AopUtils.getTargetClass(invocation.getThis()) : null;
		LeaderOnly lifecycleGate = this.attributes.lifecycleStartGate(method, targetClass);
		if (lifecycleGate != null) {
			return lifecycleStart(invocation, lifecycleGate);
		}
		LeaderOnly leaderOnly = this.attributes.find(method, targetClass);
		if (leaderOnly == null) {
			return invocation.proceed();
		}
		String election = leaderOnly.value();
		LeaderOnlyInvocations invocations = this.invocations.obtain();
		LeaderCalls.Call call = this.registry.obtain().enter(election, leaderOnly.interruptOnRevoke(), method);
		if (call == null) {
			invocations.record(election, Outcome.REFUSED);
			if (leaderOnly.throwIfNotLeader()) {
				throw NotLeaderException.shuttingDown(election, holderSeen(election));
			}
			return emptyResult(method.getReturnType());
		}
		boolean endsLater = false;
		try {
			// Checked once the call is registered, so that a gate closing after this point finds it.
			if (!this.elector.obtain().isLeader(election)) {
				invocations.record(election, Outcome.SKIPPED);
				return notLeader(leaderOnly, method);
			}
			invocations.record(election, Outcome.EXECUTED);
			Object result = invocation.proceed();
			if (result instanceof CompletionStage<?> stage) {
				// The call goes on until its future completes: a release waits for that too.
				call.returned();
				endsLater = true;
				stage.whenComplete((value, failure) -> call.ended());
			}
			return result;
		}
		finally {
			if (!endsLater) {
				call.exit();
			}
		}
	}

	/** {@code isAutoStartup()} is false; {@code start()} runs only on the leader. */
	private Object lifecycleStart(MethodInvocation invocation, LeaderOnly gate) throws Throwable {
		if ("isAutoStartup".equals(invocation.getMethod().getName())) {
			return false;
		}
		if (this.registry.obtain().isRefusing() || !this.elector.obtain().isLeader(gate.value())) {
			return null;
		}
		return invocation.proceed();
	}

	private Object notLeader(LeaderOnly leaderOnly, Method method) {
		if (leaderOnly.throwIfNotLeader()) {
			String election = leaderOnly.value();
			throw new NotLeaderException(election, holderSeen(election));
		}
		return emptyResult(method.getReturnType());
	}

	private String holderSeen(String election) {
		return this.elector.obtain().status(election).holderIdentity();
	}

	private static Object emptyResult(Class<?> returnType) {
		if (returnType == Optional.class) {
			return Optional.empty();
		}
		if (returnType == CompletableFuture.class || returnType == CompletionStage.class
				|| returnType == Future.class) {
			return CompletableFuture.completedFuture(null);
		}
		if (returnType.isPrimitive() && returnType != void.class) {
			return (returnType == boolean.class) ? Boolean.FALSE
					: (returnType == char.class) ? Character.valueOf('\0') : defaultNumber(returnType);
		}
		return null;
	}

	private static Object defaultNumber(Class<?> primitive) {
		Class<?> wrapper = ClassUtils.resolvePrimitiveIfNecessary(primitive);
		if (wrapper == Integer.class) {
			return 0;
		}
		if (wrapper == Long.class) {
			return 0L;
		}
		if (wrapper == Double.class) {
			return 0d;
		}
		if (wrapper == Float.class) {
			return 0f;
		}
		if (wrapper == Short.class) {
			return (short) 0;
		}
		return (byte) 0;
	}

}
