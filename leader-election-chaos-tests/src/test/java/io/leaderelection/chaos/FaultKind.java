package io.leaderelection.chaos;

/**
 * The faults a chaos run injects: one at a time, or now and then a second (and third) one while
 * the first is held.
 */
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
	PAUSE("pause (GC)"),

	/**
	 * A foreign client deletes the Leases of some elections while their leader is healthy, as
	 * {@code kubectl delete lease} or a pruning deploy tool does.
	 */
	LEASE_DELETED("Lease deleted"),

	/**
	 * The leader is black-holed, then its Leases are deleted; the cut lasts until a successor
	 * leads each of them.
	 */
	LEASE_DELETED_CUT_OFF("Lease deleted, leader cut off"),

	/**
	 * The leader steps down from some elections while leader-only jobs run: directly, or from a
	 * listener thread as Spring Integration's {@code Context.yield()} does.
	 */
	STEP_DOWN("step-down or yield"),

	/**
	 * The leader stops gracefully or steps down while a leader-only job longer than the drain
	 * timeout runs: the Lease must not be released while that job runs.
	 */
	DRAIN_TIMEOUT("drain timeout"),

	/**
	 * An extra process starts with the identity of a live process, in a replica of its own, runs
	 * a while and stops.
	 */
	DUPLICATE_IDENTITY("duplicate identity"),

	/** A foreign writer adds and changes labels and annotations of the Leases. */
	FOREIGN_METADATA_EDIT("foreign label and annotation edits"),

	/**
	 * A foreign writer names another live candidate in {@code spec.preferredHolder} (and sets
	 * {@code spec.strategy}) of the leader's Leases, as KEP-4355's coordinated election does.
	 */
	PREFERRED_HOLDER("preferredHolder set"),

	/**
	 * A follower learns that the Lease is missing (at the run's start, before any Lease exists, or
	 * after the leader's Leases are deleted), and is cut off from the API server right after:
	 * black-holed, its connections left open. While it is cut off, another replica creates the
	 * Lease and leads, and the faults held with it go on; then the Lease is deleted again, and the
	 * follower healed a little before or after that deletion. An elector must not take what it
	 * saw before the cut for an absence that lasted: the Lease existed meanwhile.
	 */
	FOLLOWER_CUT_WHILE_MISSING("follower cut off while the Lease was missing, healed around a deletion"),

	/**
	 * As {@link #FOLLOWER_CUT_WHILE_MISSING}, but the follower's process is frozen instead ({@link Pause}),
	 * as a long garbage collection, a stopped container or a suspended VM stops it, and thawed
	 * around the deletion: the answers and watch events it receives meanwhile wait until it runs
	 * again.
	 */
	FROZEN_WHILE_MISSING("frozen after it saw the Lease missing, thawed around a deletion"),

	/**
	 * For-life only: the leader's Pod is evicted while its process is cut off from the API
	 * server. Its containers are killed and the kubelet reports the phase {@code Failed}; the Pod
	 * stays in the API, so the garbage collector never deletes its lock. A new Pod replaces it.
	 */
	EVICTION("eviction"),

	/**
	 * For-life only: a replica's process dies and the kubelet starts its container again in the
	 * same Pod (same name, same uid): the new process must lead on with the lock it finds.
	 */
	CONTAINER_RESTART("container restart"),

	/**
	 * Balanced shards only: a replica joins, a new process with a new identity in a replica
	 * slot of its own, so that the members already there hand shards over to it; after 1.5–4 s it
	 * leaves again, stopped gracefully or killed, and the others take its shards back.
	 */
	REPLICA_JOINS("replica joins"),

	/**
	 * Balanced shards only: a replica leaves, stopped gracefully or killed, and stays away 1–4 s,
	 * long enough for the others to spread its shards among them; then a new process with a new
	 * identity joins in its place, and they hand shards over to it.
	 */
	REPLICA_LEAVES("replica leaves"),

	/**
	 * Lease mode, each process in a Pod of its own whose only container the run reports running:
	 * a replica's process dies, and 0.1–1 s later the kubelet reports its container terminated in
	 * its Pod's status, which lets this project's followers take over at once (exit takeover); then
	 * a new process starts in a new Pod.
	 */
	EXIT_REPORTED("abrupt stop, container reported terminated");

	private final String label;

	FaultKind(String label) {
		this.label = label;
	}

	String label() {
		return this.label;
	}

}
