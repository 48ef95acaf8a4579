package io.leaderelection.benchmarks.harness;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** When one candidate's gate first opened and first closed afterwards. */
public final class GateLog implements Candidate.Gates {

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
	public Long awaitOpened(Duration timeout) throws InterruptedException {
		return Waits.await(this.opened, timeout);
	}

	/** When the gate closed, waiting for it up to the timeout; null if it did not. */
	public Long awaitClosed(Duration timeout) throws InterruptedException {
		return Waits.await(this.closed, timeout);
	}

	public boolean isOpen() {
		return this.opened.isDone() && !this.closed.isDone();
	}

}
