package io.leaderelection.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The work this instance does only while it leads: calls that check the gate and work that is
 * started on a grant and stopped when the gate closes. The engine drives it apart from, and
 * ahead of, its {@link ElectionListener}s, so that user listeners can never hold it up, and
 * waits for it to end before it releases a Lease of its own accord.
 */
public interface LeaderWork {

	/** No leader work: nothing to start, stop or wait for. */
	LeaderWork NONE = new LeaderWork() {
	};

	/**
	 * The engine starts campaigning: accept calls again after {@link #refuseCalls()}.
	 */
	default void acceptCalls() {
	}

	/**
	 * The engine stops: refuse new calls in every election, on the leader too.
	 */
	default void refuseCalls() {
	}

	/**
	 * The election's gate has just closed. Called on the engine's own thread, so it must not
	 * block: it may tell the calls under way (interrupt them), not stop anything that waits.
	 */
	default void gateClosed(String election) {
	}

	/**
	 * Starts the election's gated work after a grant. Called on the election's work lane, one
	 * call at a time and in order with {@link #stop}; it may block.
	 * @throws RuntimeException when some of the work failed to start; the message shows in the
	 * election's health until a later start succeeds
	 */
	default void start(String election) {
	}

	/**
	 * Stops the election's gated work after its gate closed. Called on the election's work lane;
	 * it may block.
	 */
	default void stop(String election) {
	}

	/** Completes once every call of the election that is under way now has ended. */
	default CompletableFuture<Void> whenCallsEnded(String election) {
		return CompletableFuture.completedFuture(null);
	}

	/** The calls of the election under way now, each described for a log line. */
	default List<String> callsUnderWay(String election) {
		return List.of();
	}

}
