package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.engine.LeaderCalls;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@code @LeaderOnly} call only while this replica leads its election, or for a sharded
 * election the shard of the call's key, reading the elector's time-bounded gate at call time.
 */
final class LeaderOnlyGatedCalls {

	private final LeaderOnlyAttributeSource attributes;

	private final LeaderOnlyKeys keys;

	private final SingletonSupplier<LeaderElector> elector;

	private final SingletonSupplier<Map<String, ShardedElection>> sharded;

	private final SingletonSupplier<LeaderOnlyRegistry> registry;

	private final SingletonSupplier<LeaderOnlyInvocations> invocations;

	LeaderOnlyGatedCalls(LeaderOnlyAttributeSource attributes, LeaderOnlyKeys keys,
			SingletonSupplier<LeaderElector> elector, SingletonSupplier<Map<String, ShardedElection>> sharded,
			SingletonSupplier<LeaderOnlyRegistry> registry, SingletonSupplier<LeaderOnlyInvocations> invocations) {
		this.attributes = attributes;
		this.keys = keys;
		this.elector = elector;
		this.sharded = sharded;
		this.registry = registry;
		this.invocations = invocations;
	}

	Object invoke(MethodInvocation invocation, LeaderOnly leaderOnly, Class<?> targetClass) throws Throwable {
		Method method = invocation.getMethod();
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
			return LeaderOnlyResults.emptyResult(method.getReturnType());
		}
		// Checked once the call is registered, so that a gate closing after this point finds it.
		if (!this.elector.obtain().isLeader(election)) {
			if (call != null) {
				call.exit();
			}
			invocations.record(election, Outcome.SKIPPED);
			return notLeader(leaderOnly, election, method, targetClass);
		}
		invocations.record(election, Outcome.EXECUTED);
		if (call == null) {
			// the request's registration, which the web layer ends, covers the call
			return invocation.proceed();
		}
		return LeaderOnlyResults.proceed(invocation, call::returned, (afterReturn) -> {
			if (afterReturn) {
				call.ended();
			}
			else {
				call.exit();
			}
		});
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

	private Object notLeader(LeaderOnly leaderOnly, String election, Method method, Class<?> targetClass) {
		if (throwsIfNotLeader(leaderOnly, method, targetClass)) {
			throw new NotLeaderException(election, holderSeen(election));
		}
		return LeaderOnlyResults.emptyResult(method.getReturnType());
	}

	/** Asked for on the annotation, or a web request handler, which must not answer as if it had run. */
	private boolean throwsIfNotLeader(LeaderOnly leaderOnly, Method method, Class<?> targetClass) {
		return leaderOnly.throwIfNotLeader() || this.attributes.handlesRequests(method, targetClass);
	}

	private String holderSeen(String election) {
		return this.elector.obtain().status(election).holderIdentity();
	}

}
