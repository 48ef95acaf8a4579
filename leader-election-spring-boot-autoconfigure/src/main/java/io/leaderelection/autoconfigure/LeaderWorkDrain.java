package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Leader work that must end before the Leases are released when the elector stops.
 */
public interface LeaderWorkDrain {

	/**
	 * Refuses new leader work and completes when the work under way has ended, or when the
	 * timeout has passed, whichever comes first.
	 */
	CompletableFuture<Void> drain(Duration timeout);

	/** Accepts leader work again: the elector starts again after a stop. */
	void resume();

}
