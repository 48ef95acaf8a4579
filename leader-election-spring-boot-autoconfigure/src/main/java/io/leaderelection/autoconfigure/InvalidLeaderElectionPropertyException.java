package io.leaderelection.autoconfigure;

/**
 * A {@code leader.election.*} property has a value the elector cannot run with.
 */
public class InvalidLeaderElectionPropertyException extends RuntimeException {

	private final String property;

	private final Object value;

	private final String reason;

	public InvalidLeaderElectionPropertyException(String property, Object value, String reason) {
		super("Invalid leader election property '" + property + "' (value: " + value + "): " + reason);
		this.property = property;
		this.value = value;
		this.reason = reason;
	}

	/** The full name of the offending property, e.g. {@code leader.election.renew-deadline}. */
	public String getProperty() {
		return this.property;
	}

	public Object getValue() {
		return this.value;
	}

	public String getReason() {
		return this.reason;
	}

}
