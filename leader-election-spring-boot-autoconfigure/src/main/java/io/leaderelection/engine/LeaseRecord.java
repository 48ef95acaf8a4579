package io.leaderelection.engine;

import java.time.Instant;
import java.util.Objects;

/**
 * The election fields of a Lease as client-go reads and writes them, plus the resourceVersion
 * that makes every write a compare-and-swap.
 *
 * @param holderIdentity spec.holderIdentity; {@code null} or empty when nobody holds the Lease
 * @param leaseDurationSeconds spec.leaseDurationSeconds as written by the holder
 * @param acquireTime spec.acquireTime
 * @param renewTime spec.renewTime
 * @param leaseTransitions spec.leaseTransitions
 * @param resourceVersion metadata.resourceVersion; {@code null} for a record not yet stored
 */
public record LeaseRecord(String holderIdentity, Integer leaseDurationSeconds, Instant acquireTime,
		Instant renewTime, Integer leaseTransitions, String resourceVersion) {

	/** Whether some candidate holds the Lease. */
	public boolean hasHolder() {
		return this.holderIdentity != null && !this.holderIdentity.isEmpty();
	}

	/** Whether the given candidate holds the Lease. */
	public boolean isHeldBy(String identity) {
		return identity.equals(this.holderIdentity);
	}

	/** leaseTransitions, reading a missing value as 0. */
	public int transitions() {
		return (this.leaseTransitions != null) ? this.leaseTransitions : 0;
	}

	/**
	 * Whether this record is the same stored version as another: same resourceVersion and, so
	 * that a store without versions still works, the same election fields.
	 */
	public boolean sameVersionAs(LeaseRecord other) {
		return other != null && Objects.equals(this.resourceVersion, other.resourceVersion)
				&& Objects.equals(this.holderIdentity, other.holderIdentity)
				&& Objects.equals(this.renewTime, other.renewTime)
				&& Objects.equals(this.acquireTime, other.acquireTime)
				&& Objects.equals(this.leaseTransitions, other.leaseTransitions)
				&& Objects.equals(this.leaseDurationSeconds, other.leaseDurationSeconds);
	}

}
