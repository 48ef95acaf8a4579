package io.leaderelection.autoconfigure;

import java.time.Duration;

import org.springframework.boot.convert.DurationStyle;

/**
 * A {@code leader.election.*} property has a value the elector cannot run with.
 */
public class InvalidLeaderElectionPropertyException extends LeaderElectionConfigurationException {

	private final String property;

	private final String value;

	private final String reason;

	public InvalidLeaderElectionPropertyException(String property, Object value, String reason) {
		super("Invalid leader election property '" + property + "' (value: " + format(value) + "): " + reason);
		this.property = property;
		this.value = format(value);
		this.reason = reason;
	}

	/** The full name of the offending property, e.g. {@code leader.election.renew-deadline}. */
	public String getProperty() {
		return this.property;
	}

	public String getValue() {
		return this.value;
	}

	public String getReason() {
		return this.reason;
	}

	@Override
	public String description() {
		return String.format("Leader election cannot start: property '%s' (value: %s) is invalid: %s.", this.property,
				this.value, this.reason);
	}

	@Override
	public String action() {
		return String.format("Update '%s' in your configuration: it %s.", this.property, this.reason);
	}

	/** Durations as they are written in configuration ({@code 15s}), anything else as is. */
	static String format(Object value) {
		return (value instanceof Duration duration) ? DurationStyle.SIMPLE.print(duration) : String.valueOf(value);
	}

}
