package io.leaderelection.engine;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

import io.leaderelection.WindowTimes;

/**
 * When the runs of once-per-window jobs called on this replica are due, so that they start then
 * and not at the next fire of a timer that runs on this replica's own phase. Every replica's
 * timer calls the job and only the leader's call may start it; after a handover the new leader's
 * timer is out of step with the runs before it. So, for a job whose calls come here at a known
 * period (the time between the last two):
 * <ul>
 * <li>a leader's call that finds the window closed, but comes a tenth of a period or more after
 * the last start (the next run come early, not the last one come late), is held until the window
 * opens, if that is before this replica's next call; a run held so starts at the window's pace,
 * which, for a window shorter than the period, brings the runs back in step with this replica's
 * timer within a few periods;</li>
 * <li>a replica that takes over, whose timer called the job within the last two periods, starts
 * it one period after its last start (or when the window opens, if later; at once when overdue),
 * unless its own timer's next call, not yet overdue and not so soon after the last start that it
 * would be skipped as late, comes first.</li>
 * </ul>
 * While a run started so is held or runs, the job's calls on this replica are skipped, as the
 * timer's would wait. Time comes in as arguments, on a monotonic clock in nanoseconds; a run is
 * timed on the scheduler given and handed to the executor given, since a job may run longer than
 * a scheduler's thread may wait.
 */
public final class DueStartPolicy {

	private final ElectionScheduler scheduler;

	private final Executor runs;

	/** The jobs called here, by election (or shard) and job name. */
	private final Map<JobKey, Job> jobs = new ConcurrentHashMap<>();

	/**
	 * @param scheduler times the runs; one that refuses tasks (its application closing) starts
	 * nothing more
	 * @param runs runs a job once it is due
	 */
	public DueStartPolicy(ElectionScheduler scheduler, Executor runs) {
		this.scheduler = scheduler;
		this.runs = runs;
	}

	/**
	 * A call of the job came, on any replica role: notes its time and how to run the job once
	 * more without a call.
	 * @param calledAt when it came
	 * @param again runs the job as a call of it does, without holding it
	 */
	public void called(String election, String job, long calledAt, Runnable again) {
		this.jobs.computeIfAbsent(new JobKey(election, job), Job::new).called(calledAt, again);
	}

	/** Whether a run of the job that this replica starts when due is held or running now. */
	public boolean runsDue(String election, String job) {
		Job known = this.jobs.get(new JobKey(election, job));
		return known != null && known.running();
	}

	/**
	 * A leader's call of the job found its window closed: holds it until the window opens, if
	 * it is the next run come early and the window opens before this replica's next call.
	 * @param times where the job stands now; empty when it never ran
	 * @param again runs this call once more, without holding it
	 * @return whether it is held and runs then; {@code false} when it is not, a run is held or
	 * running already, or the scheduler refuses it
	 */
	public boolean hold(String election, String job, Optional<WindowTimes> times, Runnable again) {
		Job known = this.jobs.get(new JobKey(election, job));
		return known != null && known.hold(times, again);
	}

	/**
	 * The election's term began on this replica: its jobs called here start when due.
	 * @param grantedAt when the term began
	 * @param timesOf where a job, by name, stands now; empty when it never ran
	 */
	public void granted(String election, long grantedAt, Function<String, Optional<WindowTimes>> timesOf) {
		this.jobs.values()
			.stream()
			.filter((job) -> job.key.election().equals(election))
			.forEach((job) -> job.startWhenDue(grantedAt, timesOf.apply(job.key.job())));
	}

	/**
	 * How long a leader's call that found the window closed waits for it to open.
	 * @return the wait; {@code null} when the call is the last run's come late (less than a tenth
	 * of a period after its start: timers of one period on two replicas, or one timer's jitter),
	 * the window opens only after the next call, or no period is known
	 */
	private static Duration heldFor(WindowTimes times, Duration period) {
		if (period == null || comesLate(times.sinceLastStart(), period) || times.untilOpen().compareTo(period) >= 0) {
			return null;
		}
		return times.untilOpen();
	}

	/** Whether a call this long after the last start is that run's call, come late. */
	private static boolean comesLate(Duration sinceLastStart, Duration period) {
		return sinceLastStart.compareTo(period.dividedBy(10)) < 0;
	}

	/**
	 * How long after a grant the job is due: a period after its last start, or when its window
	 * opens if later; now if it never ran.
	 * @param sinceLastCall how long ago this replica's timer last called the job
	 * @return the wait, zero when overdue; {@code null} when this replica's timer calls it first,
	 * seems to have stopped (no call for two periods), or no period is known
	 */
	private static Duration dueAfterGrant(Optional<WindowTimes> times, Duration period, Duration sinceLastCall) {
		if (period == null || sinceLastCall.compareTo(period.multipliedBy(2)) >= 0) {
			return null;
		}
		Duration due = max(Duration.ZERO, times
			.map((known) -> max(known.untilOpen(), period.minus(known.sinceLastStart())))
			.orElse(Duration.ZERO));
		Duration nextCall = period.minus(sinceLastCall);
		// the timer's next call starts the job in time, unless it is overdue (a slow machine, a
		// grant taken late) or would come so soon after the last start that it is skipped as late
		boolean timerStartsIt = !nextCall.isNegative() && !nextCall.isZero() && due.compareTo(nextCall) >= 0 && times
			.map((known) -> !comesLate(known.sinceLastStart().plus(nextCall), period))
			.orElse(true);
		return timerStartsIt ? null : due;
	}

	private static Duration max(Duration one, Duration other) {
		return (one.compareTo(other) >= 0) ? one : other;
	}

	private record JobKey(String election, String job) {

	}

	/** A job called on this replica: the rhythm of its calls, and a run held or running. */
	private final class Job {

		private final JobKey key;

		private long lastCallAt;

		/** Between the last two calls; {@code null} until two came. */
		private Duration period;

		private Runnable again;

		private boolean busy;

		Job(JobKey key) {
			this.key = key;
		}

		synchronized void called(long now, Runnable again) {
			if (this.again != null) {
				this.period = Duration.ofNanos(now - this.lastCallAt);
			}
			this.lastCallAt = now;
			this.again = again;
		}

		synchronized boolean running() {
			return this.busy;
		}

		synchronized boolean hold(Optional<WindowTimes> times, Runnable run) {
			Duration wait = times.map((known) -> heldFor(known, this.period)).orElse(null);
			return wait != null && runAfter(wait, run);
		}

		synchronized void startWhenDue(long now, Optional<WindowTimes> times) {
			if (this.again == null) {
				return;
			}
			Duration wait = dueAfterGrant(times, this.period, Duration.ofNanos(now - this.lastCallAt));
			if (wait != null) {
				runAfter(wait, this.again);
			}
		}

		/** Runs after the wait unless a run is held or running, or the scheduler refuses it. */
		private boolean runAfter(Duration wait, Runnable run) {
			if (this.busy) {
				return false;
			}
			try {
				DueStartPolicy.this.scheduler.schedule(() -> DueStartPolicy.this.runs.execute(() -> runHeld(run)),
						wait.toNanos());
			}
			catch (RejectedExecutionException ex) {
				return false;
			}
			this.busy = true;
			return true;
		}

		private void runHeld(Runnable run) {
			try {
				run.run();
			}
			finally {
				synchronized (this) {
					this.busy = false;
				}
			}
		}

	}

}
