package io.leaderelection.chaos;

/** An elector under test: starts candidates that campaign through a replica's link. */
interface Elector {

	/** The elector's name in the report. */
	String name();

	/**
	 * Starts a new process in the replica that campaigns in every election of the run and
	 * records its leadership in the history.
	 * @param seed seeds whatever the elector randomizes, where it lets us
	 */
	Candidate start(ReplicaSlot slot, ChaosSettings settings, LeadershipHistory history, long seed);

}
