package io.leaderelection.engine;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** An {@link ElectionScheduler} on a {@link ScheduledExecutorService}. */
public final class ExecutorElectionScheduler implements ElectionScheduler {

	private final ScheduledExecutorService executor;

	public ExecutorElectionScheduler(ScheduledExecutorService executor) {
		this.executor = executor;
	}

	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		ScheduledFuture<?> future = this.executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
		return () -> future.cancel(false);
	}

}
