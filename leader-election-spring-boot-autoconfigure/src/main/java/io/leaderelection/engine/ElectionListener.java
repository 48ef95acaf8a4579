package io.leaderelection.engine;

/**
 * Told when this instance gains or loses leadership of an election. Called on the engine's
 * callback executor, never on the thread that renews, one call at a time and in order.
 */
public interface ElectionListener {

	/** This instance now leads the election; the fencing token is the Lease's leaseTransitions. */
	default void granted(String election, long fencingToken) {
	}

	/** This instance no longer leads the election; its gate closed before this call. */
	default void revoked(String election, RevocationCause cause) {
	}

}
