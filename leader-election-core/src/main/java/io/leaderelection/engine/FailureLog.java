package io.leaderelection.engine;

import java.time.Duration;

import io.leaderelection.store.LeaseStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One election's failures to reach its Lease: the last one and since when calls have failed,
 * for its health, and a log that a replica without an API server does not fill once per retry
 * period: each new kind of failure once, then, while it goes on, a summary a minute (how often,
 * for how long), and the end of the streak.
 */
final class FailureLog {

	static final Duration SUMMARY_INTERVAL = Duration.ofMinutes(1);

	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final String election;

	private volatile String lastError;

	/** When the current streak of failed calls began; {@link Long#MIN_VALUE} while calls succeed. */
	private volatile long failingSinceNanos = Long.MIN_VALUE;

	/** The verb of the call that failed last, when it was a store call. */
	private volatile String failingVerb;

	/** The kind of the failure logged last; {@code null} while nothing fails. */
	private String kind;

	private long streakStartedAt;

	private int failures;

	private long summarisedAt;

	private int unlogged;

	FailureLog(String election) {
		this.election = election;
	}

	void failed(Throwable failure, long now) {
		String message = String.valueOf(failure.getMessage());
		this.lastError = message;
		this.failingVerb = (failure instanceof LeaseStoreException storeFailure) ? storeFailure.getVerb() : null;
		if (this.failingSinceNanos == Long.MIN_VALUE) {
			this.failingSinceNanos = now;
		}
		String kind = kindOf(failure, message);
		if (this.kind == null) {
			this.streakStartedAt = now;
			this.failures = 0;
		}
		this.failures++;
		if (!kind.equals(this.kind)) {
			if (this.unlogged > 0) {
				logger.warn("Election '{}' failed {} more times as before in the last {} s", this.election,
						this.unlogged, seconds(now - this.summarisedAt));
			}
			logger.warn("Election '{}': {}", this.election, message);
			this.kind = kind;
			this.summarisedAt = now;
			this.unlogged = 0;
			return;
		}
		this.unlogged++;
		if (now - this.summarisedAt >= SUMMARY_INTERVAL.toNanos()) {
			logger.warn("Election '{}' still fails: {} more times in the last {} s, {} times in {} s in all; last: {}",
					this.election, this.unlogged, seconds(now - this.summarisedAt), this.failures,
					seconds(now - this.streakStartedAt), message);
			this.summarisedAt = now;
			this.unlogged = 0;
		}
	}

	void succeeded(long now) {
		this.lastError = null;
		this.failingSinceNanos = Long.MIN_VALUE;
		this.failingVerb = null;
		if (this.kind != null && this.failures > 1) {
			logger.info("Election '{}' reaches its Lease again, after {} failed calls in {} s", this.election,
					this.failures, seconds(now - this.streakStartedAt));
		}
		this.kind = null;
	}

	/** The last failure; {@code null} once a call succeeded. Lock-free. */
	String lastError() {
		return this.lastError;
	}

	/** How long calls have failed at the given moment; zero while they succeed. Lock-free. */
	Duration failingFor(long now) {
		long since = this.failingSinceNanos;
		return (since != Long.MIN_VALUE) ? Duration.ofNanos(now - since) : Duration.ZERO;
	}

	/** Whether the call that failed last is the given store verb. */
	boolean lastFailed(String verb) {
		return verb.equals(this.failingVerb);
	}

	/** The same verb failing for the same reason, whatever the details of the message. */
	private static String kindOf(Throwable failure, String message) {
		if (failure instanceof LeaseStoreException storeFailure && storeFailure.isNoAnswer()) {
			// the message tells the timeout, which differs from one attempt to the next
			return storeFailure.getVerb() + " no answer";
		}
		if (failure instanceof LeaseStoreException storeFailure) {
			Throwable root = storeFailure;
			while (root.getCause() != null) {
				root = root.getCause();
			}
			return storeFailure.getVerb() + " " + storeFailure.getStatusCode() + " "
					+ ((root != storeFailure) ? root.getClass().getName() : message);
		}
		return message;
	}

	private static long seconds(long nanos) {
		return Duration.ofNanos(nanos).toSeconds();
	}

}
