package io.leaderelection.benchmarks.harness;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The harnesses' waits for what replicas and the server do, polled every 2 ms or completed on
 * their own, with a deadline on the JVM's monotonic clock.
 */
public final class Waits {

	private Waits() {
	}

	/**
	 * Polls the condition until it holds.
	 * @param deadline on {@link System#nanoTime()}
	 * @param failure what went wrong, for the exception thrown when the deadline passes first
	 * @throws IllegalStateException once the deadline has passed
	 */
	public static void until(BooleanSupplier condition, long deadline, Supplier<String> failure)
			throws InterruptedException {
		if (!within(condition, deadline)) {
			throw new IllegalStateException(failure.get());
		}
	}

	/**
	 * Polls the condition until it holds or the deadline (on {@link System#nanoTime()}) passes.
	 * @return whether it held in time
	 */
	public static boolean within(BooleanSupplier condition, long deadline) throws InterruptedException {
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			Thread.sleep(2);
		}
		return true;
	}

	/** The deadline this long from now, on {@link System#nanoTime()}. */
	public static long deadline(Duration timeout) {
		return System.nanoTime() + timeout.toNanos();
	}

	/** The event's value, waiting for it up to the timeout (none when negative); {@code null} if it did not come. */
	public static <T> T await(CompletableFuture<T> event, Duration timeout) throws InterruptedException {
		try {
			return event.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			return null;
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
