package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.ShardedElections;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import org.aopalliance.intercept.Joinpoint;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.MethodClassKey;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a call of a {@code @LeaderOnly} method as its annotation asks, which is read once per
 * method and class: the start of a gated lifecycle bean ({@link LeaderOnlyLifecycleGate}), a call
 * of an {@code atMostEvery} method ({@link LeaderOnlyWindowedCalls}), or any other gated call
 * ({@link LeaderOnlyGatedCalls}).
 */
class LeaderOnlyInterceptor implements MethodInterceptor {

	private final LeaderOnlyAttributeSource attributes;

	private final LeaderOnlyLifecycleGate lifecycleGate;

	private final LeaderOnlyWindowedCalls windowedCalls;

	private final LeaderOnlyGatedCalls gatedCalls;

	/** How each method's calls run, by method and target class. */
	private final Map<MethodClassKey, MethodInterceptor> calls = new ConcurrentHashMap<>();

	LeaderOnlyInterceptor(LeaderOnlyAttributeSource attributes, LeaderOnlyKeys keys, LeaderOnlyWindows windows,
			ObjectProvider<LeaderElector> elector, ObjectProvider<LeaderOnlyRegistry> registry,
			ObjectProvider<LeaderOnlyInvocations> invocations, ObjectProvider<WindowedStarts> windowedStarts,
			ObjectProvider<DueStarts> dueStarts) {
		this.attributes = attributes;
		// Looked up once, on the first call: the interceptor exists before these beans do, and a
		// bean factory look-up on every call would cost more than the rest of the interception.
		SingletonSupplier<LeaderElector> lazyElector = SingletonSupplier.of(elector::getObject);
		SingletonSupplier<LeaderOnlyRegistry> lazyRegistry = SingletonSupplier.of(registry::getObject);
		SingletonSupplier<LeaderOnlyInvocations> lazyInvocations = SingletonSupplier.of(invocations::getObject);
		// The elector's elections are fixed once it exists: which are sharded, and into what, is read once.
		SingletonSupplier<Map<String, ShardedElection>> sharded = SingletonSupplier
			.of(() -> ShardedElections.of(lazyElector.obtain().statuses()));
		this.lifecycleGate = new LeaderOnlyLifecycleGate(lazyElector, lazyRegistry);
		this.windowedCalls = new LeaderOnlyWindowedCalls(attributes, windows, sharded, lazyInvocations,
				SingletonSupplier.of(windowedStarts::getObject), SingletonSupplier.of(dueStarts::getObject));
		this.gatedCalls = new LeaderOnlyGatedCalls(attributes, keys, lazyElector, sharded, lazyRegistry, lazyInvocations);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Class<?> targetClass = (invocation.getThis() != null) ? AopUtils.getTargetClass(invocation.getThis()) : null;
		return this.calls
			.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> callsOf(method, targetClass))
			.invoke(invocation);
	}

	private MethodInterceptor callsOf(Method method, Class<?> targetClass) {
		LeaderOnly lifecycleStartGate = this.attributes.lifecycleStartGate(method, targetClass);
		if (lifecycleStartGate != null) {
			return (invocation) -> this.lifecycleGate.invoke(invocation, lifecycleStartGate);
		}
		LeaderOnly leaderOnly = this.attributes.find(method, targetClass);
		if (leaderOnly == null) {
			return Joinpoint::proceed;
		}
		if (!leaderOnly.atMostEvery().isEmpty()) {
			return (invocation) -> this.windowedCalls.invoke(invocation, leaderOnly, targetClass);
		}
		return (invocation) -> this.gatedCalls.invoke(invocation, leaderOnly, targetClass);
	}

}
