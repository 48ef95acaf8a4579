package io.leaderelection.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * The configuration of one election.
 *
 * @param name the election name, {@code default} for the default election
 * @param namespace the namespace of the Lease
 * @param leaseName the name of the Lease
 * @param leaseDuration how long followers wait, on their own clocks, after last seeing the Lease
 * change before they take it
 * @param renewDeadline how long after its last successful renewal was sent the leader's gate
 * stays open; shorter than the lease duration
 * @param retryPeriod the interval between renewals and between followers' attempts; shorter than
 * the renew deadline
 */
public record ElectionSettings(String name, String namespace, String leaseName, Duration leaseDuration,
		Duration renewDeadline, Duration retryPeriod) {

	public ElectionSettings {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(namespace, "namespace");
		Objects.requireNonNull(leaseName, "leaseName");
		if (retryPeriod.isNegative() || retryPeriod.isZero()) {
			throw new IllegalArgumentException("retryPeriod must be positive, was " + retryPeriod);
		}
		if (renewDeadline.compareTo(retryPeriod) <= 0) {
			throw new IllegalArgumentException(
					"renewDeadline (" + renewDeadline + ") must be longer than retryPeriod (" + retryPeriod + ")");
		}
		if (leaseDuration.compareTo(renewDeadline) <= 0) {
			throw new IllegalArgumentException(
					"leaseDuration (" + leaseDuration + ") must be longer than renewDeadline (" + renewDeadline + ")");
		}
	}

	/** The lease duration as written to spec.leaseDurationSeconds, rounded up to a whole second. */
	public int leaseDurationSeconds() {
		long millis = this.leaseDuration.toMillis();
		return (int) Math.max(1, (millis + 999) / 1000);
	}

}
