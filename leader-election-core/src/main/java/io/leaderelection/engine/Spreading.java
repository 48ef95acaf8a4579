package io.leaderelection.engine;

import io.leaderelection.LeaderStatus;

/**
 * What an election asks of the balancing that spreads its group's Leases over replicas
 * ({@link Balancer}): whether it may claim its free Lease now, and what it tells back.
 */
interface Spreading {

	/**
	 * Whether the election may claim its free Lease now; counts the Lease as free from the first
	 * time it is asked.
	 */
	boolean mayClaim(Election election, long now);

	/** Whether the election would be let claim now, without starting to count its Lease as free. */
	boolean wouldLetClaim(Election election, long now);

	/** A Lease of the group changed hands as this replica sees it. */
	void leaseChanged();

	/** The group as this replica sees it, for the election's status. */
	LeaderStatus.Group status();

}
