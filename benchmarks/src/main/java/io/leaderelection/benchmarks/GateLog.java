package io.leaderelection.benchmarks;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** When one candidate's gate first opened and first closed afterwards. */
final class GateLog implements Candidate.Gates {

	private final CompletableFuture<Long> opened = new CompletableFuture<>();

	private final CompletableFuture<Long> closed = new CompletableFuture<>();

	@Override
	public void opened(long nanoTime) {
		this.opened.complete(nanoTime);
	}

	@Override
	public void closed(long nanoTime) {
		if (this.opened.isDone()) {
			this.closed.complete(nanoTime);
		}
	}

	/** When the gate opened, waiting for it up to the timeout; null if it did not. */
	Long awaitOpened(Duration timeout) throws InterruptedException {
		return await(this.opened, timeout);
	}

	/** When the gate closed, waiting for it up to the timeout; null if it did not. */
	Long awaitClosed(Duration timeout) throws InterruptedException {
		return await(this.closed, timeout);
	}

	boolean isOpen() {
		return this.opened.isDone() && !this.closed.isDone();
	}

	private static Long await(CompletableFuture<Long> event, Duration timeout) throws InterruptedException {
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
