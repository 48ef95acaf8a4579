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
 * @param fencingToken the Lease's leaseTransitions after this instance acquired it; {@code null}
 * when not leader. Strictly increases with every change of holder.
 * @param lastError the last failure to read or write the Lease, {@code null} when the last attempt
 * succeeded
 */
public record LeaderStatus(String election, String namespace, String leaseName, boolean leader,
		String holderIdentity, Instant acquireTime, Instant renewTime, Integer leaseTransitions, Long fencingToken,
		String lastError) {
}
