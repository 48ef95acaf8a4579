package io.leaderelection.engine;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.WindowStatus;
import io.leaderelection.WindowTimes;
import io.leaderelection.engine.rules.JobWindows;
import io.leaderelection.engine.rules.Term;

/**
 * The once-per-window runs this replica hands out: started and extended under the election's
 * lock, only while the gate is open, each handed out once the term's write that stores it
 * succeeded with the gate still open. What the windows are, and whether one is open, is the
 * core's ({@link JobWindows}).
 */
final class Windows {

	private final ElectionLoop loop;

	private final Leadership leadership;

	private final ElectionMode mode;

	private final String election;

	private final JobWindows jobs;

	/** Completes, for each run or extension waiting to be stored, with whether it goes on. */
	private final Map<JobWindows.Pending, CompletableFuture<Boolean>> recorded = new IdentityHashMap<>();

	Windows(ElectionLoop loop, Leadership leadership, ElectionMode mode) {
		this.loop = loop;
		this.leadership = leadership;
		this.mode = mode;
		this.election = loop.settings().name();
		this.jobs = loop.core.windows();
	}

	/**
	 * Starts a run of the job under the term held, if its gate is open and the job's window is:
	 * the start is stored by the term's next write (at once, or after the one on its way), and
	 * the run is handed out only once that write succeeded with the gate still open.
	 */
	CompletableFuture<Optional<WindowedRun>> startInWindow(String job, Duration atLeast, Duration atMost) {
		synchronized (this.loop) {
			long now = this.loop.now();
			Term held = this.leadership.term();
			if (!this.leadership.isLeader(now) || !this.mode.writesWindows()) {
				return CompletableFuture.completedFuture(Optional.empty());
			}
			JobWindows.Run run = this.jobs.start(job, atLeast.toNanos(), atMost.toNanos(), now, held.fencingToken(),
					this.loop.wallNow());
			if (run == null) {
				return CompletableFuture.completedFuture(Optional.empty());
			}
			return storeSoon(run).thenApply((goesOn) -> goesOn ? Optional.of(new StartedRun(run)) : Optional.empty());
		}
	}

	/** Where the job stands now; empty when no run of it is known. */
	Optional<WindowTimes> times(String job) {
		synchronized (this.loop) {
			return Optional.ofNullable(this.jobs.times(job, this.loop.now()));
		}
	}

	/** The jobs as this replica sees them, on its own wall clock. */
	List<WindowStatus> statuses() {
		synchronized (this.loop) {
			return this.jobs.statuses(this.loop.now(), this.loop.wallNow());
		}
	}

	/**
	 * A write of the term that carried the given runs and extensions succeeded: they are stored,
	 * and go on only if the gate is still open.
	 */
	void stored(List<JobWindows.Pending> sent, boolean gateOpen) {
		this.jobs.stored(sent, gateOpen).forEach(this::tell);
	}

	/** The term ended: nothing waiting is stored by it. What was written stays written. */
	void termEnded() {
		this.jobs.termEnded().forEach((pending) -> tell(pending, false));
	}

	/** Tells whoever awaits it whether it goes on; a write carrying it again, or a term that ended, told already. */
	private void tell(JobWindows.Pending pending, boolean goesOn) {
		CompletableFuture<Boolean> awaited = this.recorded.remove(pending);
		if (awaited != null) {
			awaited.complete(goesOn);
		}
	}

	/**
	 * Has the term write soon, to store what was started or extended.
	 * @return completes with whether it goes on, once stored
	 */
	private CompletableFuture<Boolean> storeSoon(JobWindows.Pending pending) {
		CompletableFuture<Boolean> stored = new CompletableFuture<>();
		// awaited before the write, which may be stored at once
		this.recorded.put(pending, stored);
		this.mode.writeSoon();
		return stored;
	}

	/** A run handed out: its end and extensions go through the election's lock and its next writes. */
	private final class StartedRun implements WindowedRun {

		private final JobWindows.Run run;

		StartedRun(JobWindows.Run run) {
			this.run = run;
		}

		@Override
		public String election() {
			return Windows.this.election;
		}

		@Override
		public String job() {
			return this.run.job();
		}

		@Override
		public long fencingToken() {
			return this.run.fencingToken();
		}

		@Override
		public void end() {
			synchronized (Windows.this.loop) {
				Windows.this.jobs.ended(this.run, Windows.this.loop.now());
			}
		}

		@Override
		public CompletableFuture<Boolean> extend(Duration atMost, Duration atLeast) {
			synchronized (Windows.this.loop) {
				long now = Windows.this.loop.now();
				JobWindows.Pending extension = Windows.this.leadership.isLeader(now)
						? Windows.this.jobs.extend(this.run, atMost.toNanos(), atLeast.toNanos(), now) : null;
				if (extension == null) {
					return CompletableFuture.completedFuture(false);
				}
				return storeSoon(extension);
			}
		}

	}

}
