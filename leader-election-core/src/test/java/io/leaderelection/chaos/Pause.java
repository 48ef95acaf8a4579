package io.leaderelection.chaos;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

import io.leaderelection.engine.ElectionScheduler;

/**
 * A simulated stop-the-world pause of one replica, such as a long garbage collection: while it
 * lasts, none of the replica's elector tasks and none of its leader-only work start. Work already
 * running finishes; the next task waits for the pause to end.
 */
final class Pause {

	private volatile long resumeAtNanos = System.nanoTime();

	/** Pauses the replica from now on for the given time. */
	void pauseFor(Duration duration) {
		this.resumeAtNanos = System.nanoTime() + duration.toNanos();
	}

	/** Returns once the replica is not paused, or at once if the thread is interrupted. */
	void awaitResumed() {
		long left;
		while ((left = this.resumeAtNanos - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted()) {
			LockSupport.parkNanos(left);
		}
	}

	/** The executor whose tasks wait for the pause to end before they run. */
	Executor pausing(Executor executor) {
		return (task) -> executor.execute(() -> {
			awaitResumed();
			task.run();
		});
	}

	/** The scheduler whose tasks wait for the pause to end before they run. */
	ElectionScheduler pausing(ElectionScheduler scheduler) {
		return (task, delayNanos) -> scheduler.schedule(() -> {
			awaitResumed();
			task.run();
		}, delayNanos);
	}

}
