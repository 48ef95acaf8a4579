package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;

import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.autoconfigure.window.HeldRun;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeBeanNameAdvisors;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs the call of an {@code atMostEvery} method once its start is recorded in the election's
 * Lease under the term, as a run of the job its bean and method name; on a sharded election, the
 * job's name picks the shard. A call of a {@code @Scheduled} method, which no caller waits for,
 * may be held until the job is due and run then, through the proxy again ({@link DueStarts});
 * any other call within the window returns as on a follower.
 */
final class LeaderOnlyWindowedCalls {

	private static final Logger logger = LoggerFactory.getLogger(LeaderOnlyWindowedCalls.class);

	/** Set on a thread of the starter's while it runs a job when due, for the proxy's call it makes. */
	private static final ThreadLocal<Boolean> DUE_RUN = new ThreadLocal<>();

	private final LeaderOnlyAttributeSource attributes;

	private final LeaderOnlyWindows windows;

	private final SingletonSupplier<Map<String, ShardedElection>> sharded;

	private final SingletonSupplier<LeaderOnlyInvocations> invocations;

	private final SingletonSupplier<WindowedStarts> windowedStarts;

	private final SingletonSupplier<DueStarts> dueStarts;

	LeaderOnlyWindowedCalls(LeaderOnlyAttributeSource attributes, LeaderOnlyWindows windows,
			SingletonSupplier<Map<String, ShardedElection>> sharded, SingletonSupplier<LeaderOnlyInvocations> invocations,
			SingletonSupplier<WindowedStarts> windowedStarts, SingletonSupplier<DueStarts> dueStarts) {
		this.attributes = attributes;
		this.windows = windows;
		this.sharded = sharded;
		this.invocations = invocations;
		this.windowedStarts = windowedStarts;
		this.dueStarts = dueStarts;
	}

	Object invoke(MethodInvocation invocation, LeaderOnly leaderOnly, Class<?> targetClass) throws Throwable {
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
			return LeaderOnlyResults.emptyResult(invocation.getMethod().getReturnType());
		}
		return LeaderOnlyResults.proceed(invocation, run::returned, (afterReturn) -> run.end());
	}

	/**
	 * The call once more, on a thread of the starter's: through the proxy, so that every advice
	 * of the method runs as for a call, and marked so that these calls run it without holding
	 * it. What the job throws is logged.
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

}
