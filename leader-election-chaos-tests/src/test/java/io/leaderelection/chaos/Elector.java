package io.leaderelection.chaos;

/** An elector under test: starts candidates that campaign through a replica's link. */
interface Elector {

	/** The elector's name in the report. */
	String name();

	/** How the identities of this elector's processes begin, e.g. {@code ours}. */
	String identityPrefix();

	/**
	 * Whether it elects leaders for life: each process then runs in a Pod that owns its lock, the
	 * run plays Kubernetes around the Pods, the identity a process is started with is its Pod's
	 * name, and the run injects {@link FaultMix#FOR_LIFE}.
	 */
	default boolean forLife() {
		return false;
	}

	/**
	 * Starts a new process in the replica that campaigns in every election of the run and
	 * records its leadership in the history.
	 * @param identity the identity the process campaigns with; two processes may be given one
	 * @param process the process's name in the history, unique to it
	 * @param seed seeds whatever the elector randomizes, where it lets us
	 */
	Candidate start(ReplicaSlot slot, String identity, String process, ChaosSettings settings,
			LeadershipHistory history, long seed);

	/**
	 * As {@link #start}, the process running in the given Pod's only container, which the kubelet
	 * reports running: an elector that takes over on the kubelet's word that a leader's process
	 * ended names that container's run in the Leases it holds; others ignore the Pod.
	 */
	default Candidate startInPod(ReplicaSlot slot, String identity, String process, String pod,
			ChaosSettings settings, LeadershipHistory history, long seed) {
		return start(slot, identity, process, settings, history, seed);
	}

}
