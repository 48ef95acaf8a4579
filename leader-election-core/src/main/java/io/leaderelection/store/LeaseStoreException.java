package io.leaderelection.store;

import java.time.Duration;

/**
 * A Lease could not be read or written. The message names the verb and the Lease, e.g.
 * {@code update Lease team-a/orders-leader: 403 Forbidden: ...}.
 */
public class LeaseStoreException extends RuntimeException {

	private final String verb;

	private final int statusCode;

	private final boolean noAnswer;

	public LeaseStoreException(String verb, String lease, int statusCode, String detail, Throwable cause) {
		this(verb, lease, statusCode, detail, cause, false);
	}

	public LeaseStoreException(String verb, String lease, int statusCode, String detail) {
		this(verb, lease, statusCode, detail, null, false);
	}

	private LeaseStoreException(String verb, String lease, int statusCode, String detail, Throwable cause,
			boolean noAnswer) {
		super(verb + " " + lease + ": " + detail, cause);
		this.verb = verb;
		this.statusCode = statusCode;
		this.noAnswer = noAnswer;
	}

	/** A request that got no answer within its timeout, whichever side gave up waiting. */
	public static LeaseStoreException noAnswer(String verb, String lease, Duration timeout, Throwable cause) {
		return new LeaseStoreException(verb, lease, 0, "no answer within " + timeout.toMillis() + " ms", cause, true);
	}

	/** Whether the request got no answer within its timeout (rather than a failing one). */
	public boolean isNoAnswer() {
		return this.noAnswer;
	}

	/** The API verb that failed: {@code get}, {@code create} or {@code update}. */
	public String getVerb() {
		return this.verb;
	}

	/** The HTTP status of the answer, or 0 when there was none (timeout, connection failure). */
	public int getStatusCode() {
		return this.statusCode;
	}

}
