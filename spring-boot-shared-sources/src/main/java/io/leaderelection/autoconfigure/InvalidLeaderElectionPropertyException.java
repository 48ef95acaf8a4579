package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.convert.DurationStyle;

/**
 * A {@code leader.election.*} property has a value the elector cannot run with.
 */
public class InvalidLeaderElectionPropertyException extends LeaderElectionConfigurationException {

	private final String property;

	private final Object value;

	private final String reason;

	public InvalidLeaderElectionPropertyException(String property, Object value, String reason) {
		super("Invalid leader election property '" + property + "' (value: " + format(value) + "): " + reason);
		this.property = property;
		this.value = value;
		this.reason = reason;
	}

	/** The full name of the offending property, e.g. {@code leader.election.renew-deadline}. */
	public String getProperty() {
		return this.property;
	}

	/** The offending value as bound. */
	public Object getValue() {
		return this.value;
	}

	public String getReason() {
		return this.reason;
	}

	@Override
	public String description() {
		return String.format("Leader election cannot start: property '%s' (value: %s) is invalid: %s.", this.property,
				format(this.value), this.reason);
	}

	@Override
	public String action() {
		return String.format("Update '%s' in your configuration: it %s.", this.property, this.reason);
	}

	/** Durations as they are written in configuration ({@code 15s}, {@code 250ms}), anything else as is. */
	static String format(Object value) {
		if (value instanceof Duration duration) {
			boolean wholeSeconds = duration.toMillis() % 1000 == 0 && duration.getNano() % 1_000_000 == 0;
			return DurationStyle.SIMPLE.print(duration, wholeSeconds ? ChronoUnit.SECONDS : ChronoUnit.MILLIS);
		}
		return String.valueOf(value);
	}

}
