package io.leaderelection.engine;

import io.leaderelection.RevocationCause;

/**
 * Told when this instance gains or loses leadership of an election. Called on the election's
 * listener lane, never on the thread that renews: one call at a time and in order for each
 * election, and apart from other elections and from the election's gated work.
 */
public interface ElectionListener {

	/**
	 * This instance now leads the election.
	 * @param election the election name
	 * @param fencingToken the term's fencing token: the acquiring write's resourceVersion (or,
	 * where that is not an integer, the Lease's leaseTransitions after it)
	 * @param gateOpenedAt the engine's monotonic time at which the gate opened
	 */
	default void granted(String election, long fencingToken, long gateOpenedAt) {
	}

	/**
	 * This instance no longer leads the election; its gate closed before this call. After a
	 * step-down or on shutdown the Lease is released later, once the leader work has ended.
	 * @param election the election name
	 * @param cause why leadership ended
	 * @param gateClosedAt the engine's monotonic time at which the gate closed: the renew deadline
	 * if it passed first, else when leadership was revoked
	 */
	default void revoked(String election, RevocationCause cause, long gateClosedAt) {
	}

	/**
	 * A renewal, the leader's write of the Lease, ended: it was answered, or it failed or timed
	 * out. A conflict counts as a failed renewal even when the re-read that follows finds the
	 * Lease still ours and renews again.
	 * @param election the election name
	 * @param success whether the Lease was renewed
	 * @param nanos how long from sending the renewal to learning its outcome, on the engine's
	 * monotonic clock
	 */
	default void renewed(String election, boolean success, long nanos) {
	}

}
