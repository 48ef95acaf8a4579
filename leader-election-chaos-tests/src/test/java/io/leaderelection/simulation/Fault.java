package io.leaderelection.simulation;

/** The kinds of fault a seed draws, alone or mixed. */
enum Fault {

	/** A replica's link to every API server instance cut. */
	CUT_REPLICA,
	/** A replica's messages each held back by up to {@link Network#LONGEST_DELAY_NANOS}. */
	SLOW_REPLICA,
	/** An API server instance unreachable. */
	CUT_INSTANCE,
	SLOW_INSTANCE,
	/** Messages lost before or after the server, or held back past their timeout, on every link. */
	LOSSY_NETWORK,
	/** Reads served from the lagging watch cache of the instance they reach. */
	STALE_READS,
	/** Watch caches lagging seconds behind etcd. */
	LAGGING_CACHES,
	/** An instance ends every watch it serves; the clients end them or resume them, perhaps into 410 Gone. */
	END_WATCHES,
	/** A replica's process paused (its events held, its clock running on). */
	PAUSE,
	/** A replica's process killed, and started again with a new identity. */
	CRASH,
	/** A replica shut down (drain, release), and started again with a new identity. */
	SHUTDOWN,
	/** A replica stops accepting traffic (stop with release), and campaigns again later. */
	NOT_READY,
	STEP_DOWN,
	/** The Lease deleted by a foreign client. */
	DELETE_LEASE,
	/** A label of the Lease edited by a foreign client: a new resourceVersion, the same election fields. */
	EDIT_LABELS;

	boolean targetsReplica() {
		return this == CUT_REPLICA || this == SLOW_REPLICA || this == PAUSE || this == CRASH || this == SHUTDOWN
				|| this == NOT_READY || this == STEP_DOWN;
	}

	boolean targetsInstance() {
		return this == CUT_INSTANCE || this == SLOW_INSTANCE || this == END_WATCHES;
	}

}
