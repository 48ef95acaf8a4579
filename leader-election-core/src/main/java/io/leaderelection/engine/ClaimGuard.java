package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Something a lease-mode election must also hold for its gate to open, composed over the Lease's
 * own claim rules: claimed before the Lease, checked at every renewal and whenever it changes,
 * given up after the drain and before the Lease's release. The key of an older leader election
 * during a migration from it ({@link MigrationKey}) is one; {@link #NONE} is the absence of one.
 */
interface ClaimGuard {

	/** Nothing to hold besides the Lease. */
	ClaimGuard NONE = new ClaimGuard() {

		@Override
		public boolean held() {
			return true;
		}

		@Override
		public boolean permitsClaim(long now) {
			return true;
		}

		@Override
		public CompletableFuture<Void> claim(Duration timeout) {
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public CompletableFuture<Void> removeIfOurs(Duration timeout) {
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public String describe() {
			return "nothing";
		}

	};

	/** Starts following it, telling {@code changed} (on the scheduler) when it may have changed. */
	default void start(Runnable changed) {
	}

	default void stop() {
	}

	/** Whether this replica holds it, so that its gate may be open. */
	boolean held();

	/** Whether this replica may claim it (or holds it) now, so that claiming the Lease is worth it. */
	boolean permitsClaim(long now);

	/** Claims it, when not held, before the Lease is claimed. */
	CompletableFuture<Void> claim(Duration timeout);

	/** Gives it up if this replica holds it; after the drain, before the Lease is released. */
	CompletableFuture<Void> removeIfOurs(Duration timeout);

	/** Names it for messages. */
	String describe();

	/** Why it cannot be claimed, beyond failed calls; {@code null} when nothing. */
	default String problem() {
		return null;
	}

	/**
	 * How long a replica that stepped down stays out after its release, so that another takes
	 * over: a lease duration, or longer when the others first wait for what this guards.
	 */
	default long stayOutAfterRelease(long leaseDurationNanos, long retryPeriodNanos) {
		return leaseDurationNanos;
	}

}
