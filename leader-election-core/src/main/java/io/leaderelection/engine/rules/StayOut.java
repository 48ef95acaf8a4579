package io.leaderelection.engine.rules;

import io.leaderelection.store.LeaseRecord;

/**
 * Staying out of the election after giving a term (or a claim) up: for a while, or until another
 * candidate took the Lease over.
 */
public final class StayOut {

	private boolean active;

	private long untilNanos;

	/** The leaseTransitions of the term given up: a higher count, not ours, means another took over. */
	private int transitionsGivenUp;

	/**
	 * Stays out from now for the given time, or until another candidate claims the Lease after the
	 * term (or claim) given up, which wrote the given leaseTransitions.
	 */
	public void begin(long now, long forNanos, int transitionsGivenUp) {
		this.transitionsGivenUp = transitionsGivenUp;
		this.active = true;
		this.untilNanos = now + forNanos;
	}

	/** The release after a step-down is over: stays out for the given time from now, if still out. */
	public void restartIfActive(long now, long forNanos) {
		if (this.active) {
			this.untilNanos = now + forNanos;
		}
	}

	/** How long this replica still stays out; 0 when it does not. */
	public long leftAt(long now) {
		if (this.active && now - this.untilNanos >= 0) {
			this.active = false;
		}
		return this.active ? this.untilNanos - now : 0;
	}

	/**
	 * Takes note of a version seen: staying out is for another candidate to take over, and one
	 * has when it claimed the Lease after the term given up (a claim counts one transition more,
	 * or, having lost a race with ours, as many), whether it still holds the Lease or not.
	 */
	public void noticeTakeover(LeaseRecord record, String identity) {
		if (this.active && !record.isHeldBy(identity) && (record.transitions() > this.transitionsGivenUp
				|| (record.transitions() == this.transitionsGivenUp && record.hasHolder()))) {
			this.active = false;
		}
	}

}
