package io.leaderelection.autoconfigure.leaderonly;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.engine.DaemonThreads;
import io.leaderelection.engine.DueStartPolicy;
import io.leaderelection.engine.ExecutorElectionScheduler;
import io.leaderelection.engine.MonotonicClock;

import org.springframework.context.Lifecycle;

/**
 * Starts the runs of scheduled {@code @LeaderOnly(atMostEvery)} jobs when they are due, by
 * {@link DueStartPolicy}, on threads of their own. A run started so goes through the job's proxy,
 * as a call does (its transaction and other advice included), and through the same start:
 * recorded under the term before it runs, on the leader only.
 */
public class DueStarts implements AutoCloseable {

	private final WindowedStarts starts;

	private final LeaderOnlyRegistry registry;

	/** When calls and grants come, as the policy measures the time between them. */
	private final MonotonicClock clock;

	private final ScheduledExecutorService timer = Executors
		.newSingleThreadScheduledExecutor(DaemonThreads.named("leader-only-due-timer-"));

	private final ExecutorService runs = Executors.newCachedThreadPool(DaemonThreads.named("leader-only-due-"));

	private final DueStartPolicy policy = new DueStartPolicy(new ExecutorElectionScheduler(this.timer), this.runs);

	/** The elections whose grants start their due jobs. */
	private final Set<String> hooked = ConcurrentHashMap.newKeySet();

	public DueStarts(WindowedStarts starts, LeaderOnlyRegistry registry, MonotonicClock clock) {
		this.starts = starts;
		this.registry = registry;
		this.clock = clock;
	}

	/**
	 * A call of the job came, on any replica role: notes its time and how to run the job once
	 * more without a call.
	 * @param again runs the job as a call of it does, without holding it
	 */
	public void called(String election, String job, Runnable again) {
		this.policy.called(election, job, this.clock.nanoTime(), again);
		if (this.hooked.add(election)) {
			this.registry.register(election, new GrantHook(election), "the due starts of once-per-window jobs");
		}
	}

	/** Whether a run of the job that this replica starts when due is held or running now. */
	public boolean runsDue(String election, String job) {
		return this.policy.runsDue(election, job);
	}

	/**
	 * A leader's call of the job found its window closed: holds it until the window opens, if
	 * it is the next run come early and the window opens before this replica's next call.
	 * @param again runs this call once more, without holding it
	 * @return whether it is held and runs then; {@code false} when it is not, a run is held or
	 * running already, or the application is closing
	 */
	public boolean hold(String election, String job, Runnable again) {
		return this.policy.hold(election, job, this.starts.times(election, job), again);
	}

	@Override
	public void close() {
		this.timer.shutdownNow();
		this.runs.shutdown();
	}

	/** Told by the leader work of each grant of the election: its jobs called here start when due. */
	private final class GrantHook implements Lifecycle {

		private final String election;

		GrantHook(String election) {
			this.election = election;
		}

		@Override
		public void start() {
			DueStarts.this.policy.granted(this.election, DueStarts.this.clock.nanoTime(),
					(job) -> DueStarts.this.starts.times(this.election, job));
		}

		@Override
		public void stop() {
		}

		@Override
		public boolean isRunning() {
			return false;
		}

	}

}
