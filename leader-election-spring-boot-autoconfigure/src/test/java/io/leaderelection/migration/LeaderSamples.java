package io.leaderelection.migration;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * Counts, at a fixed delay on a thread of its own, how many replicas lead at that instant, as an
 * observer polling every replica would: a figure beside the terms of {@link LeadershipIntervals},
 * which catch overlaps of any length, comparable with samples taken on a cluster. Stops sampling
 * when closed.
 */
public final class LeaderSamples implements AutoCloseable {

	private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "leader-samples");
		thread.setDaemon(true);
		return thread;
	});

	private final AtomicInteger total = new AtomicInteger();

	private final AtomicInteger withTwoLeaders = new AtomicInteger();

	private LeaderSamples(IntSupplier leaders, Duration period) {
		this.sampler.scheduleWithFixedDelay(() -> {
			if (leaders.getAsInt() > 1) {
				this.withTwoLeaders.incrementAndGet();
			}
			this.total.incrementAndGet();
		}, 0, period.toNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * @param leaders how many replicas lead now; asked from the sampling thread, so it must read
	 * thread-safe state
	 */
	public static LeaderSamples every(Duration period, IntSupplier leaders) {
		return new LeaderSamples(leaders, period);
	}

	/** How many samples were taken. */
	public int total() {
		return this.total.get();
	}

	/** How many samples saw two leaders or more. */
	public int withTwoLeaders() {
		return this.withTwoLeaders.get();
	}

	@Override
	public void close() {
		this.sampler.shutdownNow();
		try {
			this.sampler.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public String toString() {
		return withTwoLeaders() + " of " + total() + " samples with two leaders";
	}

}
