package io.leaderelection.engine.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.leaderelection.WindowStatus;
import io.leaderelection.WindowTimes;
import io.leaderelection.store.WindowRecord;

/**
 * The once-per-window jobs of one election as this replica knows them, on its monotonic clock:
 * for each job, until when no run may start, and its last run. A follower takes them from every
 * version it observes; a leader is their author, starting runs only while its gate is open and
 * writing them into every write of its term, so that a start is stored under the term that made
 * it, by a write at the version that term holds, before the run may begin.
 * <p>
 * A run closes its job's window for its longest window (it may still run until then, as far as
 * anyone else can tell); its end closes it until its shortest window after its start, or now if
 * later. That is ShedLock's {@code lockAtMostFor} and {@code lockAtLeastFor}, kept across
 * handovers and crashes: a replica that takes over counts from when it observed the version, and
 * a version is observed after it was written, so every window it counts ends no earlier than
 * the one its writer counted.
 */
public final class JobWindows {

	private static final long NEVER = Long.MIN_VALUE;

	private static final long MILLI = Duration.ofMillis(1).toNanos();

	private final String election;

	private final String identity;

	/** The jobs by name. */
	private final Map<String, Job> jobs = new LinkedHashMap<>();

	/** The runs and extensions started but not yet stored by a write of the term. */
	private final List<Pending> unrecorded = new ArrayList<>();

	public JobWindows(String election, String identity) {
		this.election = election;
		this.identity = identity;
	}

	/**
	 * Starts a run of the job now, unless its window is closed: the run is stored with the term's
	 * next write, and may begin once that write succeeded with the gate still open
	 * ({@link #stored}).
	 * @return the run, or {@code null} when the window is closed
	 */
	public Run start(String name, long atLeastNanos, long atMostNanos, long now, long fencingToken, Instant wallNow) {
		Job job = this.jobs.get(name);
		if (job != null && now - job.closedUntil < 0) {
			return null;
		}
		Run run = new Run(name, fencingToken, now + atLeastNanos);
		this.jobs.put(name, new Job(now + atMostNanos, now, NEVER, this.identity, fencingToken, wallNow, run));
		this.unrecorded.add(run);
		return run;
	}

	/**
	 * The run has ended: its job's window opens at the later of now and its shortest window.
	 * Nothing is written for it: the next write of the term carries it.
	 */
	public void ended(Run run, long now) {
		run.ended = true;
		Job job = this.jobs.get(run.job);
		if (job != null && job.run == run) {
			this.jobs.put(run.job, job.ended(now, Math.max(now, run.atLeastUntil)));
		}
	}

	/**
	 * Extends the run's windows from now: its job's window stays closed for the longest window,
	 * and at least the shortest once it ends; stored with the term's next write.
	 * @return the extension, or {@code null} when the run is no longer the job's or has ended
	 */
	public Pending extend(Run run, long atMostNanos, long atLeastNanos, long now) {
		Job job = this.jobs.get(run.job);
		if (run.ended || job == null || job.run != run) {
			return null;
		}
		run.atLeastUntil = now + atLeastNanos;
		this.jobs.put(run.job, job.closedUntil(now + atMostNanos));
		Pending extension = new Pending(run);
		this.unrecorded.add(extension);
		return extension;
	}

	/**
	 * Takes the jobs a version records, observed at the given moment, as a follower does: a job's
	 * record replaces what was known of it, unless what was known is of a later run (a Lease
	 * deleted and created again by a replica that knew less); a job the version does not record
	 * is still known.
	 */
	public void observed(Map<String, WindowRecord> records, long observedAt) {
		records.forEach((name, record) -> {
			Job seen = Job.from(record, observedAt);
			Job known = this.jobs.get(name);
			if (known == null || known.sameRunAs(seen) || seen.startedAt - known.startedAt >= 0) {
				this.jobs.put(name, seen);
			}
		});
	}

	/** What a write sent at the given moment records: every job, relative to that moment. */
	public Map<String, WindowRecord> toWrite(long sentAt) {
		Map<String, WindowRecord> records = new LinkedHashMap<>();
		this.jobs.forEach((name, job) -> records.put(name, job.toRecord(sentAt)));
		return records;
	}

	/** Whether anything started under the term waits to be stored. */
	public boolean unrecorded() {
		return !this.unrecorded.isEmpty();
	}

	/** What the write about to be sent stores, once it succeeds: the runs and extensions waiting now. */
	public List<Pending> sending() {
		return List.copyOf(this.unrecorded);
	}

	/**
	 * A write of the term that carried the given runs and extensions succeeded: they are stored.
	 * @param gateOpen whether the term's gate is still open
	 * @return each, in order, with whether it goes on: only if the gate is open and its run has not ended
	 */
	public Map<Pending, Boolean> stored(List<Pending> sent, boolean gateOpen) {
		this.unrecorded.removeAll(sent);
		Map<Pending, Boolean> goesOn = new LinkedHashMap<>();
		sent.forEach((pending) -> goesOn.put(pending, gateOpen && !pending.ended()));
		return goesOn;
	}

	/**
	 * The term ended: nothing waiting is stored by it. What was written stays written.
	 * @return what was waiting, none of which goes on
	 */
	public List<Pending> termEnded() {
		List<Pending> lost = List.copyOf(this.unrecorded);
		this.unrecorded.clear();
		return lost;
	}

	/** Where the job stands now; {@code null} when no run of it is known. */
	public WindowTimes times(String name, long now) {
		Job known = this.jobs.get(name);
		return (known != null) ? new WindowTimes(Duration.ofNanos(now - known.startedAt),
				Duration.ofNanos(Math.max(0, known.closedUntil - now))) : null;
	}

	/** The jobs as this replica sees them, on its own wall clock. */
	public List<WindowStatus> statuses(long now, Instant wallNow) {
		List<WindowStatus> statuses = new ArrayList<>();
		this.jobs.forEach((name, job) -> statuses.add(new WindowStatus(this.election, name, job.startedBy,
				job.fencingToken, at(job.startedAt, now, wallNow),
				(job.endedAt != NEVER) ? at(job.endedAt, now, wallNow) : null,
				at(Math.max(job.closedUntil, now), now, wallNow))));
		return statuses;
	}

	private static Instant at(long nanos, long now, Instant wallNow) {
		return wallNow.plusNanos(nanos - now);
	}

	/**
	 * What one job's record says, on this replica's clock.
	 *
	 * @param closedUntil no run may start before
	 * @param startedAt when the last run started
	 * @param endedAt when it ended; {@link #NEVER} while it may run
	 * @param run this replica's run of the job, while it is the last; {@code null} when another's
	 */
	private record Job(long closedUntil, long startedAt, long endedAt, String startedBy, long fencingToken,
			Instant wallStartedAt, Run run) {

		static Job from(WindowRecord record, long observedAt) {
			return new Job(observedAt + record.closedForMillis() * MILLI, observedAt - record.startedMillisAgo() * MILLI,
					(record.endedMillisAgo() != null) ? observedAt - record.endedMillisAgo() * MILLI : NEVER,
					record.startedBy(), record.fencingToken(), record.startedAt(), null);
		}

		WindowRecord toRecord(long sentAt) {
			// rounded so that a reader counts no less than the writer: closed longer, started later
			return new WindowRecord(ceilMillis(this.closedUntil - sentAt), floorMillis(sentAt - this.startedAt),
					(this.endedAt != NEVER) ? floorMillis(sentAt - this.endedAt) : null, this.startedBy,
					this.fencingToken, this.wallStartedAt);
		}

		/**
		 * Whether both tell of one run: started by one replica in one term at one moment of its
		 * clock. A record without that moment (edited by hand) is not known to be the same run, and
		 * replaces what is known only if it started no earlier.
		 */
		boolean sameRunAs(Job other) {
			return this.wallStartedAt != null && this.wallStartedAt.equals(other.wallStartedAt)
					&& Objects.equals(this.startedBy, other.startedBy) && this.fencingToken == other.fencingToken;
		}

		Job ended(long at, long closedUntil) {
			return new Job(closedUntil, this.startedAt, at, this.startedBy, this.fencingToken, this.wallStartedAt,
					this.run);
		}

		Job closedUntil(long until) {
			return new Job(until, this.startedAt, this.endedAt, this.startedBy, this.fencingToken, this.wallStartedAt,
					this.run);
		}

		private static long ceilMillis(long nanos) {
			return Math.floorDiv(nanos + MILLI - 1, MILLI);
		}

		private static long floorMillis(long nanos) {
			return Math.floorDiv(nanos, MILLI);
		}

	}

	/**
	 * Something started under the term that waits to be stored by one of its writes: a run, or its
	 * extension. Equal only to itself: two extensions of one run are two.
	 */
	public static class Pending {

		private final Run run;

		Pending(Run run) {
			this.run = run;
		}

		/** Whether its run has ended, so that storing it lets nothing go on. */
		public boolean ended() {
			return this.run.ended;
		}

	}

	/** A run of a job on this replica, from its start to its end. */
	public static final class Run extends Pending {

		private final String job;

		private final long fencingToken;

		/** Before this moment the job's window stays closed, even once the run has ended. */
		private long atLeastUntil;

		private boolean ended;

		Run(String job, long fencingToken, long atLeastUntil) {
			super(null);
			this.job = job;
			this.fencingToken = fencingToken;
			this.atLeastUntil = atLeastUntil;
		}

		public String job() {
			return this.job;
		}

		public long fencingToken() {
			return this.fencingToken;
		}

		@Override
		public boolean ended() {
			return this.ended;
		}

	}

}
