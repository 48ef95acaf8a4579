package io.leaderelection.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;

/**
 * A monotonic clock and a scheduler on virtual time: tasks run only when the test advances the
 * clock past their due time, in due-time order, on the test's thread.
 */
final class VirtualTime implements MonotonicClock, ElectionScheduler {

	private static final Instant EPOCH = Instant.parse("2026-11-21T12:00:00Z");

	private final PriorityQueue<Task> tasks = new PriorityQueue<>();

	private long now = 1_000_000_000L;

	private long sequence;

	private boolean lastFirst;

	@Override
	public long nanoTime() {
		return this.now;
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		long order = this.sequence++;
		Task scheduled = new Task(this.now + Math.max(0, delayNanos), this.lastFirst ? -order : order, task);
		this.tasks.add(scheduled);
		return () -> scheduled.cancelled = true;
	}

	/** Runs every task due by now + duration, moving the clock to each task's time. */
	void advance(Duration duration) {
		advanceTo(this.now + duration.toNanos());
	}

	void advanceTo(long target) {
		Task next;
		while ((next = this.tasks.peek()) != null && next.dueAt - target <= 0) {
			this.tasks.poll();
			this.now = Math.max(this.now, next.dueAt);
			if (!next.cancelled) {
				next.task.run();
			}
		}
		this.now = Math.max(this.now, target);
	}

	/**
	 * From now on, of tasks due at the same moment the one scheduled last runs first, as a
	 * scheduler with several threads may run them.
	 */
	void runSimultaneousTasksLastFirst() {
		this.lastFirst = true;
	}

	/** Moves the clock without running anything, as if every thread of the scheduler were paused. */
	void pauseUntil(long target) {
		this.now = target;
	}

	/** Runs what is due now without moving the clock. */
	void runDue() {
		advanceTo(this.now);
	}

	/** The virtual time at which an unshifted wall clock read the given instant. */
	long nanoTimeAt(Instant wallTime) {
		return Duration.between(EPOCH, wallTime).toNanos();
	}

	/** A wall clock that follows virtual time, shifted by the given offset. */
	Clock wallClock(Duration offset) {
		return new Clock() {
			@Override
			public ZoneId getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(ZoneId zone) {
				return this;
			}

			@Override
			public Instant instant() {
				return EPOCH.plusNanos(VirtualTime.this.now).plus(offset);
			}
		};
	}

	private static final class Task implements Comparable<Task> {

		private final long dueAt;

		private final long order;

		private final Runnable task;

		private boolean cancelled;

		Task(long dueAt, long order, Runnable task) {
			this.dueAt = dueAt;
			this.order = order;
			this.task = task;
		}

		@Override
		public int compareTo(Task other) {
			int byTime = Long.compare(this.dueAt - other.dueAt, 0);
			return (byTime != 0) ? byTime : Long.compare(this.order, other.order);
		}

	}

}
