package io.leaderelection.chaos;

/** The faults a chaos run injects, one at a time. */
enum FaultKind {

	/** A replica stops as on a rolling update, then starts again as a new process. */
	GRACEFUL_STOP("graceful stop"),

	/** A replica's process dies without a word, then a new one starts. */
	ABRUPT_STOP("abrupt stop"),

	/** Nothing passes between a replica and the API server; connections stay open. */
	BLACK_HOLE("black-holed traffic"),

	/** A replica's connections to the API server are reset again and again. */
	CONNECTION_RESETS("connection resets"),

	/** Every request of a replica is held for up to a few seconds. */
	LATENCY("added latency"),

	/** The API server stops, refusing connections, and comes back with its objects. */
	SERVER_RESTART("API server restart"),

	/** A foreign writer keeps changing the Leases, so that writes at a version just read conflict. */
	CONFLICT_STORM("409 storm"),

	/** The API server answers every request of a replica with 500. */
	SERVER_ERRORS("500 answers"),

	/** A replica's wall clock is off by up to an hour. */
	CLOCK_SHIFT("clock shift"),

	/** A replica stops running anything for a while, as in a long garbage collection. */
	PAUSE("pause (GC)");

	private final String label;

	FaultKind(String label) {
		this.label = label;
	}

	String label() {
		return this.label;
	}

}
