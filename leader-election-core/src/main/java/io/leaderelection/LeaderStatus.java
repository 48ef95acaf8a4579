package io.leaderelection;

import java.time.Instant;

/**
 * An immutable snapshot of one election as seen by this instance.
 *
 * @param election the election name ({@code default} for the default election)
 * @param namespace the namespace of the election's Lease
 * @param leaseName the name of the election's Lease
 * @param leader whether this instance leads the election (the time-bounded gate)
 * @param holderIdentity the holder last seen in the Lease, {@code null} when none
 * @param acquireTime the Lease's acquireTime as last seen, {@code null} when unknown
 * @param renewTime the Lease's renewTime as last seen, {@code null} when unknown
 * @param leaseTransitions the Lease's leaseTransitions as last seen, {@code null} when unknown
 * @param fencingToken a number that strictly increases with every term of leadership, also across
 * deletion and recreation of the Lease: the resourceVersion of the write that acquired it, read as
 * an integer, or where it is not one the Lease's leaseTransitions after that write; {@code null}
 * when not leader
 * @param fencingTokenSource where the fencing token comes from: {@value #RESOURCE_VERSION} or
 * {@value #LEASE_TRANSITIONS}; {@code null} when not leader
 * @param lastError the last failure to read or write the Lease, {@code null} when the last attempt
 * succeeded
 * @param mode how the election runs: {@value #LEASE_MODE} or {@value #FOR_LIFE_MODE}
 * @param ownerPod for life, the Pod owning the lock last seen, as {@code name (uid …)}; {@code null}
 * in lease mode or when no Pod owns it
 * @param shard the shard this election is, {@code null} when it is not one of a sharded election's
 * @param group the group of Leases this election is spread over replicas in, {@code null} when it
 * is not balanced
 */
public record LeaderStatus(String election, String namespace, String leaseName, boolean leader,
		String holderIdentity, Instant acquireTime, Instant renewTime, Integer leaseTransitions, Long fencingToken,
		String fencingTokenSource, String lastError, String mode, String ownerPod, Shard shard, Group group) {

	/** The election campaigns on a Lease its leader renews. */
	public static final String LEASE_MODE = "lease";

	/** The election runs leader-for-life, on a lock owned by the leader's Pod. */
	public static final String FOR_LIFE_MODE = "for-life";

	/** The fencing token is the acquiring write's resourceVersion. */
	public static final String RESOURCE_VERSION = "resourceVersion";

	/**
	 * The fencing token is the Lease's leaseTransitions: the server's resourceVersions are not
	 * integers. It then restarts when the Lease is deleted and created again.
	 */
	public static final String LEASE_TRANSITIONS = "leaseTransitions";

	/**
	 * A group of Leases spread over the replicas campaigning in it, as this instance sees it.
	 *
	 * @param name the group's name, unique in the namespace: the Lease name of a sharded election,
	 * or, for the application's balanced elections, the default election's Lease name followed by
	 * {@value #ELECTIONS_GROUP_SUFFIX}
	 * @param leases how many Leases the group has
	 * @param members how many replicas take part in it now, this one included
	 * @param held how many of the group's Leases this instance holds
	 */
	public record Group(String name, int leases, int members, int held) {

	}

	/**
	 * What follows the default election's Lease name in the name of the group of the application's
	 * elections balanced by {@code leader.election.balance}.
	 */
	public static final String ELECTIONS_GROUP_SUFFIX = "-elections";

}
