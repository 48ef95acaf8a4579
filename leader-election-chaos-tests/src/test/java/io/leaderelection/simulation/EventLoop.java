package io.leaderelection.simulation;

import java.util.PriorityQueue;

/**
 * One seeded event loop on true (simulated) time, in nanoseconds: every replica's steps, every
 * message and every fault run on it, one at a time, in due-time order and, at one instant, in the
 * order they were scheduled. Nothing runs on another thread, so a seed gives one order.
 * <p>
 * An event may belong to a replica process: while that process is paused its events are held
 * (kept in order) until the pause ends, and once it has crashed they are dropped.
 */
final class EventLoop {

	private final PriorityQueue<Event> events = new PriorityQueue<>();

	private long now;

	private long sequence;

	private long eventsRun;

	long now() {
		return this.now;
	}

	long eventsRun() {
		return this.eventsRun;
	}

	/** Runs the task at the given true time (not before now), for the process, or the world when {@code null}. */
	Event at(long time, SimulatedProcess owner, Runnable task) {
		Event event = new Event(Math.max(time, this.now), this.sequence++, owner, task);
		this.events.add(event);
		return event;
	}

	Event after(long delay, SimulatedProcess owner, Runnable task) {
		return at(this.now + Math.max(0, delay), owner, task);
	}

	/** Runs every event due until the given true time, then stands there. */
	void runUntil(long end) {
		Event next;
		while ((next = this.events.peek()) != null && next.time <= end) {
			this.events.poll();
			this.now = next.time;
			if (next.cancelled) {
				continue;
			}
			SimulatedProcess owner = next.owner;
			if (owner != null && !owner.alive()) {
				continue;
			}
			if (owner != null && owner.pausedUntil() > this.now) {
				// held while its process is paused, in the order it was scheduled
				next.time = owner.pausedUntil();
				this.events.add(next);
				continue;
			}
			this.eventsRun++;
			next.task.run();
			if (owner != null) {
				owner.afterStep();
			}
		}
		this.now = Math.max(this.now, end);
	}

	static final class Event implements Comparable<Event> {

		private long time;

		private final long order;

		private final SimulatedProcess owner;

		private final Runnable task;

		private boolean cancelled;

		Event(long time, long order, SimulatedProcess owner, Runnable task) {
			this.time = time;
			this.order = order;
			this.owner = owner;
			this.task = task;
		}

		void cancel() {
			this.cancelled = true;
		}

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.time, other.time);
			return (byTime != 0) ? byTime : Long.compare(this.order, other.order);
		}

	}

}
