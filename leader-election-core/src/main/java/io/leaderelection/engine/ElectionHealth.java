package io.leaderelection.engine;

import java.time.Duration;

import io.leaderelection.StepDown;

/**
 * How well one election is running, for health checks.
 *
 * @param election the election name
 * @param pastDeadlineFor how long the leadership has been kept past its renew deadline without
 * being revoked, {@link Duration#ZERO} when not: anything but a brief moment means the loop is
 * stuck
 * @param failingFor how long every attempt has failed, {@link Duration#ZERO} when the last one
 * succeeded; a read followed by a failing write is a failed attempt
 * @param lastError the last failure, {@code null} when the last attempt succeeded
 * @param sinceLastAttempt how long ago the loop last began an attempt or acted on a watch event;
 * {@code null} before the first one
 * @param leaseDuration the election's lease duration
 * @param retryPeriod the election's retry period
 * @param identityConflict {@code null}, or what shows that another process writes the Lease under
 * this instance's identity, which keeps it out of the election
 * @param gatedWorkFailure {@code null}, or why gated work failed to start at the last grant; it
 * is started again at the next grant
 * @param lastRelease what became of the last release of this instance's own accord (step-down,
 * shutdown, preferred holder); {@code null} before the first
 */
public record ElectionHealth(String election, Duration pastDeadlineFor, Duration failingFor,
		String lastError, Duration sinceLastAttempt, Duration leaseDuration, Duration retryPeriod,
		String identityConflict, String gatedWorkFailure, StepDown lastRelease) {

	/**
	 * Whether the loop has not begun an attempt for longer than any schedule allows: a follower
	 * waits at most a lease duration for expiry, a leader one retry period.
	 */
	public boolean loopStalled() {
		return this.sinceLastAttempt != null
				&& this.sinceLastAttempt.compareTo(this.leaseDuration.plus(this.retryPeriod.multipliedBy(2))) > 0;
	}

}
