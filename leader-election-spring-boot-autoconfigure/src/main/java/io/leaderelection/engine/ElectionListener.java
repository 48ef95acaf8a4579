package io.leaderelection.engine;

/**
 * Told when this instance gains or loses leadership of an election. Called on the engine's
 * callback executor, never on the thread that renews, one call at a time and in order.
 */
public interface ElectionListener {

	/**
	 * This instance now leads the election.
	 * @param election the election name
	 * @param fencingToken the Lease's leaseTransitions after the acquiring write
	 * @param gateOpenedAt the engine's monotonic time at which the gate opened
	 */
	default void granted(String election, long fencingToken, long gateOpenedAt) {
	}

	/**
	 * This instance no longer leads the election; its gate closed before this call.
	 * @param election the election name
	 * @param cause why leadership ended
	 * @param gateClosedAt the engine's monotonic time at which the gate closed: the renew deadline
	 * if it passed first, else when leadership was revoked
	 */
	default void revoked(String election, RevocationCause cause, long gateClosedAt) {
	}

}
