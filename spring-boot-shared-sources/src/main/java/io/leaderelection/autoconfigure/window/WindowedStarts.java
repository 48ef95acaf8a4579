package io.leaderelection.autoconfigure.window;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.leaderelection.WindowTimes;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.LeaderCalls;
import io.leaderelection.engine.WindowedRun;

/**
 * Starts the runs of jobs that run at most once per window across the replicas, ShedLock's locks
 * and {@code @LeaderOnly(atMostEvery)} methods, as leader work: a run is a leader-only call from
 * before its start is asked for until it ends, so that a step-down, {@code yield()}, the
 * endpoint's DELETE or a shutdown waits for it before the release, and the release carries its
 * end.
 */
public class WindowedStarts {

	private final ElectionEngine elector;

	private final LeaderCalls calls;

	public WindowedStarts(ElectionEngine elector, LeaderCalls calls) {
		this.elector = elector;
		this.calls = calls;
	}

	/**
	 * Starts a run of the job if this replica leads the election and the job's window is open:
	 * the start is written into the election's Lease under the current term before the run is
	 * handed out. A follower asks nothing of the API.
	 * @param election the election, or the shard, whose leader runs the job
	 * @param atLeast how long after the start the window stays closed, even once the run has ended
	 * @param atMost how long after the start the window stays closed while the run has not ended
	 * @param what what runs, as a drain that waits for it names it
	 */
	public Attempt start(String election, String job, Duration atLeast, Duration atMost, boolean interruptOnRevoke,
			Object what) {
		Duration wait = this.elector.settings(election).renewDeadline();
		long askedAt = System.nanoTime();
		LeaderCalls.Call call = this.calls.enter(election, interruptOnRevoke, what);
		if (call == null) {
			return new Attempt(Outcome.REFUSED, null);
		}
		Optional<WindowedRun> started;
		try {
			// Checked once the call is registered, so that a gate closing after this point finds it.
			if (!this.elector.isLeader(election)) {
				call.exit();
				return new Attempt(Outcome.NOT_LEADER, null);
			}
			started = await(this.elector.startInWindow(election, null, job, atLeast, atMost), wait, Optional.empty(),
					(late) -> late.ifPresent(WindowedRun::end));
		}
		catch (RuntimeException ex) {
			call.exit();
			throw ex;
		}
		if (started.isEmpty()) {
			call.exit();
			return new Attempt(this.elector.isLeader(election) ? Outcome.WINDOW_CLOSED : Outcome.NOT_LEADER, null);
		}
		HeldRun run = new HeldRun(started.get(), call, askedAt + atMost.toNanos(), wait);
		CurrentRun.entered(run);
		return new Attempt(Outcome.STARTED, run);
	}

	/** Where the job of the election, or of the shard, stands; empty when no run of it is known here. */
	public Optional<WindowTimes> times(String election, String job) {
		return this.elector.windowTimes(election, job);
	}

	/** Whether this replica leads the election, or the shard, now. */
	public boolean leads(String election) {
		return this.elector.isLeader(election);
	}

	/**
	 * Waits for a write of the term, at most the election's renew deadline: by then the term has
	 * written it or ended. What comes later is handed to {@code late}, on the engine's thread.
	 */
	static <T> T await(CompletableFuture<T> write, Duration wait, T otherwise, Consumer<T> late) {
		try {
			return write.get(wait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			write.thenAccept(late);
			return otherwise;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			write.thenAccept(late);
			return otherwise;
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A write of once-per-window runs failed", ex.getCause());
		}
	}

	/**
	 * What became of a start.
	 *
	 * @param outcome whether the run started, and why not
	 * @param run the run, when it started; {@code null} otherwise
	 */
	public record Attempt(Outcome outcome, HeldRun run) {

	}

	/**
	 * What became of a start.
	 */
	public enum Outcome {

		/** The start was recorded under the term: the job runs. */
		STARTED,

		/** This replica does not lead the election, or no longer did once the start was asked for. */
		NOT_LEADER,

		/**
		 * The job's window was closed: its last run started too recently or may still be
		 * running; or the start was not recorded within the election's renew deadline, and counts
		 * as a run if it was.
		 */
		WINDOW_CLOSED,

		/** The application is shutting down: no leader work is accepted any more. */
		REFUSED

	}

}
