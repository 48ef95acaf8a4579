package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.engine.DaemonThreads;
import io.leaderelection.engine.WindowTimes;

import org.springframework.context.Lifecycle;

/**
 * Starts the runs of {@code @LeaderOnly(atMostEvery)} jobs when they are due, not at the next
 * call of a timer that fires on this replica's own phase. Every replica's timer calls the job,
 * only the leader's call may start it; after a handover the new leader's timer is out of step
 * with the runs before it, and a call that comes just before the window opens would leave the
 * job waiting a whole period more. So, for a job whose calls come here at a known period (the
 * time between the last two):
 * <ul>
 * <li>a leader's call that finds the window closed is held until the run is due, and runs then
 * if no other call is held: due is the later of the window's opening and one period after the
 * last start, by whichever replica, as long as that is less than a window away (a job called
 * at a period much longer than its window, a nightly one, is not held for a day);</li>
 * <li>a replica that takes over, whose timer called the job within the last period, starts it
 * when it is due, or at once if it was due already.</li>
 * </ul>
 * A run started so goes through the same start as a call: it runs only on the leader, once its
 * start was recorded under the term, and a run due while the window is closed is skipped.
 */
public class DueStarts implements AutoCloseable {

	private final WindowedStarts starts;

	private final LeaderOnlyRegistry registry;

	private final ScheduledExecutorService timer = Executors
		.newSingleThreadScheduledExecutor(DaemonThreads.named("leader-only-due-timer-"));

	private final ExecutorService runs = Executors.newCachedThreadPool(DaemonThreads.named("leader-only-due-"));

	/** The jobs called here, by election (or shard) and job name. */
	private final Map<String, Job> jobs = new ConcurrentHashMap<>();

	/** The elections whose grants start their due jobs. */
	private final Set<String> hooked = ConcurrentHashMap.newKeySet();

	public DueStarts(WindowedStarts starts, LeaderOnlyRegistry registry) {
		this.starts = starts;
		this.registry = registry;
	}

	/**
	 * A call of the job came, on any replica role: notes its time and how to run the job once
	 * more without a call.
	 * @param again runs the job as a call does, without holding it again
	 */
	public void called(String election, String job, Duration window, Runnable again) {
		long now = System.nanoTime();
		this.jobs.computeIfAbsent(election + "/" + job, (ignored) -> new Job(election, job))
			.called(now, window, again);
		if (this.hooked.add(election)) {
			this.registry.register(election, new GrantHook(election), "the due starts of once-per-window jobs");
		}
	}

	/**
	 * A leader's call of the job found its window closed: holds it until the run is due.
	 * @return whether it is held and runs then; {@code false} when it is not due within a window,
	 * or another call is held already
	 */
	public boolean hold(String election, String job) {
		Job known = this.jobs.get(election + "/" + job);
		return known != null && known.holdUntilDue(this.starts.times(election, job), false);
	}

	/** The election's term began on this replica: its jobs called here start when due. */
	private void granted(String election) {
		long now = System.nanoTime();
		this.jobs.values()
			.stream()
			.filter((job) -> job.election.equals(election) && job.calledWithinPeriod(now))
			.forEach((job) -> job.holdUntilDue(this.starts.times(election, job.name), true));
	}

	@Override
	public void close() {
		this.timer.shutdownNow();
		this.runs.shutdown();
	}

	/**
	 * How long until the job's next run is due, from where the job stands and the period its
	 * calls come at here.
	 * @return the wait, zero when it is due now; {@code null} when it is not due within a window,
	 * or no period is known
	 */
	static Duration dueIn(WindowTimes times, Duration period, Duration window) {
		if (period == null) {
			return null;
		}
		long wait = Math.max(times.untilOpen().toNanos(), period.minus(times.sinceLastStart()).toNanos());
		return (wait < window.toNanos()) ? Duration.ofNanos(Math.max(0, wait)) : null;
	}

	/** A job called on this replica: the rhythm of its calls, and a run held for when it is due. */
	private final class Job {

		private final String election;

		private final String name;

		private boolean calledBefore;

		private long lastCallAt;

		/** Between the last two calls; {@code null} until two came. */
		private Duration period;

		private Duration window;

		private Runnable again;

		private ScheduledFuture<?> held;

		Job(String election, String name) {
			this.election = election;
			this.name = name;
		}

		synchronized void called(long now, Duration window, Runnable again) {
			if (this.calledBefore) {
				this.period = Duration.ofNanos(now - this.lastCallAt);
			}
			this.calledBefore = true;
			this.lastCallAt = now;
			this.window = window;
			this.again = again;
		}

		synchronized boolean calledWithinPeriod(long now) {
			return this.period != null && now - this.lastCallAt < this.period.toNanos();
		}

		/**
		 * Holds a run until the job is due, unless one is held already, or the application is
		 * closing (a grant may come while it does).
		 * @param times where the job stands; empty when it never ran
		 * @param taken whether this replica has just taken over, so that a job that never ran is due now
		 */
		synchronized boolean holdUntilDue(Optional<WindowTimes> times, boolean taken) {
			if (this.held != null && !this.held.isDone()) {
				return false;
			}
			Duration wait = times.map((known) -> dueIn(known, this.period, this.window))
				.orElse(taken ? Duration.ZERO : null);
			if (wait == null) {
				return false;
			}
			Runnable run = this.again;
			try {
				this.held = DueStarts.this.timer.schedule(() -> DueStarts.this.runs.execute(run), wait.toNanos(),
						TimeUnit.NANOSECONDS);
				return true;
			}
			catch (RejectedExecutionException ex) {
				return false;
			}
		}

	}

	/** Told by the leader work of each grant of the election. */
	private final class GrantHook implements Lifecycle {

		private final String election;

		GrantHook(String election) {
			this.election = election;
		}

		@Override
		public void start() {
			granted(this.election);
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
