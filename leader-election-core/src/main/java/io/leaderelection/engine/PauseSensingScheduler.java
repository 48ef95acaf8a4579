package io.leaderelection.engine;

import java.util.function.LongConsumer;

/**
 * A scheduler that tells when a task runs later than it was due by more than a tolerance: the
 * process paused between two steps (a long garbage collection, a stopped container, a suspended
 * machine), and what it observed before the pause says nothing about the time it lasted.
 */
final class PauseSensingScheduler implements ElectionScheduler {

	private final ElectionScheduler scheduler;

	private final MonotonicClock clock;

	private final long toleranceNanos;

	private final LongConsumer paused;

	/**
	 * @param paused told, before the late task runs, how late it is
	 */
	PauseSensingScheduler(ElectionScheduler scheduler, MonotonicClock clock, long toleranceNanos, LongConsumer paused) {
		this.scheduler = scheduler;
		this.clock = clock;
		this.toleranceNanos = toleranceNanos;
		this.paused = paused;
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		long dueAt = this.clock.nanoTime() + Math.max(0, delayNanos);
		return this.scheduler.schedule(() -> {
			long late = this.clock.nanoTime() - dueAt;
			if (late > this.toleranceNanos) {
				this.paused.accept(late);
			}
			task.run();
		}, delayNanos);
	}

}
