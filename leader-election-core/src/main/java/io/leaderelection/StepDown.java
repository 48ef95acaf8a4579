package io.leaderelection;

import java.util.List;

/**
 * What became of a step-down: the gate closes at once, the Lease is released only once the
 * election's leader-only calls under way have ended.
 *
 * @param election the election stepped down from
 * @param release how far the release got
 * @param callsUnderWay the leader-only calls still running, each described with its thread;
 * empty when none
 * @param detail why the release was not written, {@code null} otherwise
 */
public record StepDown(String election, Release release, List<String> callsUnderWay, String detail) {

	public StepDown {
		callsUnderWay = List.copyOf(callsUnderWay);
	}

	/** How far a release got. */
	public enum Release {

		/** This replica did not lead the election: nothing to release. */
		NOT_LEADER,

		/** The step-down was asked for; this elector does not tell more. */
		REQUESTED,

		/**
		 * The gate is closed and the release waits for leader-only calls under way to end; it is
		 * written when they have, or not at all if they outlast the drain timeout.
		 */
		WAITING_FOR_CALLS,

		/** The release was written: another replica may take over at once. */
		WRITTEN,

		/**
		 * The release was not written (calls outlasted the drain timeout, the write failed, or
		 * leadership was lost meanwhile): the Lease expires a lease duration after its last renewal.
		 */
		NOT_WRITTEN

	}

}
