package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.ShardedElections;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.autoconfigure.window.HeldRun;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.engine.LeaderCalls;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeBeanNameAdvisors;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@code @LeaderOnly} call only while this replica leads its election, or for a sharded
 * election the shard of the call's key, reading the elector's time-bounded gate at call time, and
 * keeps a gated lifecycle bean from starting unless it leads. A call of an
 * {@code atMostEvery} method runs only once its start is recorded in the election's Lease.
 */
class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(LeaderOnlyInterceptor.class);

	/** Set on a thread of the starter's while it runs a job when due, for the proxy's call it makes. */
	private static final ThreadLocal<Boolean> DUE_RUN = new ThreadLocal<>();

	private final LeaderOnlyAttributeSource attributes;

	private final LeaderOnlyKeys keys;

	private final LeaderOnlyWindows windows;

	// Looked up once, on the first call: the interceptor exists before these beans do, and a
	// bean factory look-up on every call would cost more than the rest of the interception.
	private final SingletonSupplier<LeaderElector> elector;

	private final SingletonSupplier<LeaderOnlyRegistry> registry;

	private final SingletonSupplier<LeaderOnlyInvocations> invocations;

	private final SingletonSupplier<WindowedStarts> windowedStarts;

	private final SingletonSupplier<DueStarts> dueStarts;

	// The elector's elections are fixed once it exists: which are sharded, and into what, is read once.
	private final SingletonSupplier<Map<String, ShardedElection>> sharded;

	LeaderOnlyInterceptor(LeaderOnlyAttributeSource attributes, LeaderOnlyKeys keys, LeaderOnlyWindows windows,
			ObjectProvider<LeaderElector> elector, ObjectProvider<LeaderOnlyRegistry> registry,
			ObjectProvider<LeaderOnlyInvocations> invocations, ObjectProvider<WindowedStarts> windowedStarts,
			ObjectProvider<DueStarts> dueStarts) {
		this.attributes = attributes;
		this.keys = keys;
		this.windows = windows;
		this.elector = SingletonSupplier.of(elector::getObject);
		this.sharded = SingletonSupplier.of(() -> ShardedElections.of(this.elector.obtain().statuses()));
		this.registry = SingletonSupplier.of(registry::getObject);
		this.invocations = SingletonSupplier.of(invocations::getObject);
		this.windowedStarts = SingletonSupplier.of(windowedStarts::getObject);
		this.dueStarts = SingletonSupplier.of(dueStarts::getObject);
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
		if (!leaderOnly.atMostEvery().isEmpty()) {
			return invokeInWindow(invocation, leaderOnly, targetClass);
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
		return proceed(invocation, call::returned, (afterReturn) -> {
			if (afterReturn) {
				call.ended();
			}
			else {
				call.exit();
			}
		});
	}

	/**
	 * Runs the call of an {@code atMostEvery} method once its start is recorded under the term,
	 * as a run of the job its bean and method name; on a sharded election, the job's name picks
	 * the shard. A call of a {@code @Scheduled} method, which no caller waits for, may be held
	 * until the job is due and run then, through the proxy again ({@link DueStarts}); any other
	 * call within the window returns as on a follower.
	 */
	private Object invokeInWindow(MethodInvocation invocation, LeaderOnly leaderOnly, Class<?> targetClass)
			throws Throwable {
		boolean runWhenDue = DUE_RUN.get() != null;
		DUE_RUN.remove();
		Method method = invocation.getMethod();
		String job = ExposeBeanNameAdvisors.getBeanName(invocation) + "." + method.getName();
		Duration window = this.windows.resolve(leaderOnly.atMostEvery());
		ShardedElection sharded = this.sharded.obtain().get(leaderOnly.value());
		String election = (sharded != null) ? sharded.shardNameOf(job) : leaderOnly.value();
		if (runWhenDue || !(invocation instanceof ProxyMethodInvocation proxied)
				|| !this.attributes.isScheduled(method, targetClass)) {
			return runInWindow(invocation, leaderOnly, election, job, window, null);
		}
		DueStarts due = this.dueStarts.obtain();
		Runnable again = again(proxied, election, job);
		due.called(election, job, again);
		if (due.runsDue(election, job)) {
			// a run of it held or running here: as a timer's call waits for the run before it
			this.invocations.obtain().record(election, Outcome.SKIPPED_WINDOW);
			return null;
		}
		return runInWindow(invocation, leaderOnly, election, job, window, () -> due.hold(election, job, again));
	}

	/**
	 * Runs the call as a run of the job if its start is recorded under the term.
	 * @param holdUntilDue holds a call that finds the window closed until the job is due, and
	 * tells whether it did; {@code null} to return at once
	 */
	private Object runInWindow(MethodInvocation invocation, LeaderOnly leaderOnly, String election, String job,
			Duration window, BooleanSupplier holdUntilDue) throws Throwable {
		WindowedStarts.Attempt attempt = this.windowedStarts.obtain()
			.start(election, job, window, window, leaderOnly.interruptOnRevoke(), invocation.getMethod());
		if (attempt.outcome() == WindowedStarts.Outcome.WINDOW_CLOSED && holdUntilDue != null
				&& holdUntilDue.getAsBoolean()) {
			// counted when it runs
			return null;
		}
		this.invocations.obtain().record(election, switch (attempt.outcome()) {
			case STARTED -> Outcome.EXECUTED;
			case NOT_LEADER -> Outcome.SKIPPED;
			case WINDOW_CLOSED -> Outcome.SKIPPED_WINDOW;
			case REFUSED -> Outcome.REFUSED;
		});
		HeldRun run = attempt.run();
		if (run == null) {
			return emptyResult(invocation.getMethod().getReturnType());
		}
		return proceed(invocation, run::returned, (afterReturn) -> run.end());
	}

	/**
	 * The call once more, on a thread of the starter's: through the proxy, so that every advice
	 * of the method runs as for a call, and marked so that this interceptor runs it without
	 * holding it. What the job throws is logged.
	 */
	private static Runnable again(ProxyMethodInvocation call, String election, String job) {
		Object proxy = call.getProxy();
		Method method = call.getMethod();
		Object[] arguments = call.getArguments().clone();
		return () -> {
			DUE_RUN.set(Boolean.TRUE);
			try {
				AopUtils.invokeJoinpointUsingReflection(proxy, method, arguments);
			}
			catch (Throwable ex) {
				logger.error("Leader-only job '{}' of election '{}' failed", job, election, ex);
			}
			finally {
				DUE_RUN.remove();
			}
		};
	}

	/**
	 * Proceeds with a call that runs as leader work: it ends when it returns, or, when it
	 * returns a future, when that completes, as a release waits for that too.
	 * @param returned told when the call returned a future, on the thread it ran on
	 * @param ended told when the work ended, with whether that was after the call returned
	 */
	private static Object proceed(MethodInvocation invocation, Runnable returned, Consumer<Boolean> ended)
			throws Throwable {
		boolean endsLater = false;
		try {
			Object result = invocation.proceed();
			if (result instanceof CompletionStage<?> stage) {
				returned.run();
				endsLater = true;
				stage.whenComplete((value, failure) -> ended.accept(true));
			}
			return result;
		}
		finally {
			if (!endsLater) {
				ended.accept(false);
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
