package io.leaderelection.engine;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs one election's failures to reach its Lease so that a replica without an API server does
 * not log once per retry period: each new kind of failure once, then, while it goes on, a
 * summary a minute (how often, for how long), and the end of the streak.
 */
final class FailureLog {

	static final Duration SUMMARY_INTERVAL = Duration.ofMinutes(1);

	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final String election;

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
		if (this.kind != null && this.failures > 1) {
			logger.info("Election '{}' reaches its Lease again, after {} failed calls in {} s", this.election,
					this.failures, seconds(now - this.streakStartedAt));
		}
		this.kind = null;
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
