package io.leaderelection.engine.rules;

import io.leaderelection.LeaderStatus;
import io.leaderelection.store.LeaseRecord;

/**
 * A term of leadership: what the acquiring write made of the Lease, its fencing token, and when
 * the last successful write was sent. Its gate is open until that moment plus the gate deadline
 * (the renew deadline; for life, none), unless it was closed to finish the term.
 *
 * @param number counts the terms this election began
 * @param fencingToken the acquiring write's resourceVersion, or where that is not an integer,
 * the Lease's leaseTransitions after it
 * @param fencingTokenSource {@link LeaderStatus#RESOURCE_VERSION} or
 * {@link LeaderStatus#LEASE_TRANSITIONS}
 * @param acquired the version the acquiring write stored
 * @param lastRenewStartNanos when the last successful write was sent
 * @param gateOpen whether the gate is open, as far as the deadline lets it
 */
public record Term(long number, long fencingToken, String fencingTokenSource, LeaseRecord acquired,
		long lastRenewStartNanos, boolean gateOpen) {

	/**
	 * A new term from the acquiring write's answer. The fencing token is that write's
	 * resourceVersion, which keeps rising across deletion and recreation of the Lease; where the
	 * server's versions are not integers, its leaseTransitions.
	 */
	public static Term begun(long number, LeaseRecord acquired, long sentAtNanos) {
		Long version = acquired.resourceVersionNumber();
		long token = (version != null) ? version : acquired.transitions();
		String source = (version != null) ? LeaderStatus.RESOURCE_VERSION : LeaderStatus.LEASE_TRANSITIONS;
		return new Term(number, token, source, acquired, sentAtNanos, true);
	}

	/** The spec.preferredHolder the Lease named when the term began; {@code null} when none. */
	public String preferredHolderAtGrant() {
		return this.acquired.preferredHolder();
	}

	public long gateClosesAt(long gateDeadlineNanos) {
		return this.lastRenewStartNanos + gateDeadlineNanos;
	}

	public boolean gateOpenAt(long now, long gateDeadlineNanos) {
		return this.gateOpen && now - gateClosesAt(gateDeadlineNanos) < 0;
	}

	public Term renewedAt(long sentAtNanos) {
		return new Term(this.number, this.fencingToken, this.fencingTokenSource, this.acquired, sentAtNanos,
				this.gateOpen);
	}

	public Term closed() {
		return new Term(this.number, this.fencingToken, this.fencingTokenSource, this.acquired,
				this.lastRenewStartNanos, false);
	}

}
