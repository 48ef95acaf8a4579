package io.leaderelection.engine;

/**
 * A leader-for-life election cannot start: the Pod this process runs in, which will own the lock,
 * is not named or cannot be read. The message says what is missing and how to give it.
 */
public class ForLifePodException extends RuntimeException {

	private final String election;

	public ForLifePodException(String election, String message, Throwable cause) {
		super(message, cause);
		this.election = election;
	}

	/** The election that runs for-life. */
	public String getElection() {
		return this.election;
	}

}
