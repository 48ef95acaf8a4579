package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.ShardedElections;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.engine.LeaderCalls;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@code @LeaderOnly} call only while this replica leads its election, or for a sharded
 * election the shard of the call's key, reading the elector's time-bounded gate at call time, and
 * keeps a gated lifecycle bean from starting unless it leads.
 */
class LeaderOnlyInterceptor implements MethodInterceptor {

	private final LeaderOnlyAttributeSource attributes;

	private final LeaderOnlyKeys keys;

	// Looked up once, on the first call: the interceptor exists before these beans do, and a
	// bean factory look-up on every call would cost more than the rest of the interception.
	private final SingletonSupplier<LeaderElector> elector;

	private final SingletonSupplier<LeaderOnlyRegistry> registry;

	private final SingletonSupplier<LeaderOnlyInvocations> invocations;

	// The elector's elections are fixed once it exists: which are sharded, and into what, is read once.
	private final SingletonSupplier<Map<String, ShardedElection>> sharded;

	LeaderOnlyInterceptor(LeaderOnlyAttributeSource attributes, LeaderOnlyKeys keys,
			ObjectProvider<LeaderElector> elector, ObjectProvider<LeaderOnlyRegistry> registry,
			ObjectProvider<LeaderOnlyInvocations> invocations) {
		this.attributes = attributes;
		this.keys = keys;
		this.elector = SingletonSupplier.of(elector::getObject);
		this.sharded = SingletonSupplier.of(() -> ShardedElections.of(this.elector.obtain().statuses()));
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
		String election = election(leaderOnly, invocation, targetClass);
		LeaderOnlyInvocations invocations = this.invocations.obtain();
		LeaderOnlyRegistry registry = this.registry.obtain();
		// a request handler called by the web layer, which registered the request on this thread
		boolean partOfRequest = registry.isUnderWayHere(election, AopUtils.getMostSpecificMethod(method, targetClass));
		LeaderCalls.Call call = partOfRequest ? null
				: registry.enter(election, leaderOnly.interruptOnRevoke(), method);
		if (call == null && !partOfRequest) {
			invocations.record(election, Outcome.REFUSED);
			if (throwsIfNotLeader(leaderOnly, method, targetClass)) {
				throw NotLeaderException.shuttingDown(election, holderSeen(election));
			}
			return emptyResult(method.getReturnType());
		}
		boolean endsLater = false;
		try {
			// Checked once the call is registered, so that a gate closing after this point finds it.
			if (!this.elector.obtain().isLeader(election)) {
				invocations.record(election, Outcome.SKIPPED);
				return notLeader(leaderOnly, election, method, targetClass);
			}
			invocations.record(election, Outcome.EXECUTED);
			Object result = invocation.proceed();
			if (call != null && result instanceof CompletionStage<?> stage) {
				// The call goes on until its future completes: a release waits for that too.
				call.returned();
				endsLater = true;
				stage.whenComplete((value, failure) -> call.ended());
			}
			return result;
		}
		finally {
			if (call != null && !endsLater) {
				call.exit();
			}
		}
	}

	/**
	 * The election whose gate the call passes: the one named, or for a sharded election, the
	 * shard its key belongs to, so that counting, draining and interrupting work per shard.
	 */
	private String election(LeaderOnly leaderOnly, MethodInvocation invocation, Class<?> targetClass) {
		ShardedElection sharded = leaderOnly.key().isEmpty() ? null : this.sharded.obtain().get(leaderOnly.value());
		if (sharded == null) {
			// a key on an election that is not sharded fails the start; until then it has no shard to pick
			return leaderOnly.value();
		}
		return sharded.shardNameOf(
				this.keys.evaluate(leaderOnly, invocation.getMethod(), targetClass, invocation.getArguments()));
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

	private Object notLeader(LeaderOnly leaderOnly, String election, Method method, Class<?> targetClass) {
		if (throwsIfNotLeader(leaderOnly, method, targetClass)) {
			throw new NotLeaderException(election, holderSeen(election));
		}
		return emptyResult(method.getReturnType());
	}

	/** Asked for on the annotation, or a web request handler, which must not answer as if it had run. */
	private boolean throwsIfNotLeader(LeaderOnly leaderOnly, Method method, Class<?> targetClass) {
		return leaderOnly.throwIfNotLeader() || this.attributes.handlesRequests(method, targetClass);
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
