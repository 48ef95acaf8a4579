package io.leaderelection.store;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The election fields of one stored version of a Lease as client-go reads and writes them, the
 * resourceVersion that makes every write a compare-and-swap, and the store's own copy of that
 * version, so that a write based on it changes the election fields and nothing else.
 *
 * @param holderIdentity spec.holderIdentity; {@code null} or empty when nobody holds the Lease
 * @param leaseDurationSeconds spec.leaseDurationSeconds as written by the holder
 * @param acquireTime spec.acquireTime
 * @param renewTime spec.renewTime
 * @param leaseTransitions spec.leaseTransitions
 * @param preferredHolder spec.preferredHolder (KEP-4355), read only: {@code null} when unset
 * @param uid metadata.uid, which tells a Lease deleted and created again from the one before;
 * {@code null} for a record not yet stored or a store without it
 * @param resourceVersion metadata.resourceVersion; {@code null} for a record not yet stored
 * @param stored the store's copy of this version (for the Kubernetes store, the whole Lease),
 * {@code null} for a record not read from a store
 * @param windows the once-per-window jobs the version records, by name (for the Kubernetes store,
 * the annotation {@value #WINDOWS_ANNOTATION}); empty when none
 */
public record LeaseRecord(String holderIdentity, Integer leaseDurationSeconds, Instant acquireTime,
		Instant renewTime, Integer leaseTransitions, String preferredHolder, String uid, String resourceVersion,
		Object stored, Map<String, WindowRecord> windows) {

	/** The annotation a Kubernetes Lease records its once-per-window jobs in, as JSON. */
	public static final String WINDOWS_ANNOTATION = "leaderelection.io/windows";

	/** Kubernetes 1.35 (KEP-5504) made resourceVersions decimal integers; etcd always issued them. */
	private static final Pattern INTEGER = Pattern.compile("[0-9]{1,18}");

	/**
	 * The leaseDurationSeconds of a leader-for-life lock: the largest a Lease takes, so that no
	 * elector that expires Leases, this library's lease mode or client-go, ever sees one expire.
	 */
	public static final int FOR_LIFE_LEASE_DURATION_SECONDS = Integer.MAX_VALUE;

	public LeaseRecord {
		windows = (windows != null) ? Map.copyOf(windows) : Map.of();
	}

	/** A version without once-per-window jobs. */
	public LeaseRecord(String holderIdentity, Integer leaseDurationSeconds, Instant acquireTime, Instant renewTime,
			Integer leaseTransitions, String preferredHolder, String uid, String resourceVersion, Object stored) {
		this(holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions, preferredHolder, uid,
				resourceVersion, stored, Map.of());
	}

	/** A record with the election fields only, as a candidate writes it to create a Lease. */
	public static LeaseRecord of(String holderIdentity, Integer leaseDurationSeconds, Instant acquireTime,
			Instant renewTime, Integer leaseTransitions) {
		return new LeaseRecord(holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions, null,
				null, null, null);
	}

	/**
	 * The write of new election fields on top of this version: same resourceVersion, same
	 * stored copy, so that everything else, preferredHolder included, is written as it was read.
	 */
	public LeaseRecord rewrite(String holderIdentity, Integer leaseDurationSeconds, Instant acquireTime,
			Instant renewTime, Integer leaseTransitions) {
		return new LeaseRecord(holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions,
				this.preferredHolder, this.uid, this.resourceVersion, this.stored, this.windows);
	}

	/** The same write, recording the given once-per-window jobs instead. */
	public LeaseRecord withWindows(Map<String, WindowRecord> windows) {
		return new LeaseRecord(this.holderIdentity, this.leaseDurationSeconds, this.acquireTime, this.renewTime,
				this.leaseTransitions, this.preferredHolder, this.uid, this.resourceVersion, this.stored, windows);
	}

	/** Whether some candidate holds the Lease. */
	public boolean hasHolder() {
		return this.holderIdentity != null && !this.holderIdentity.isEmpty();
	}

	/**
	 * Whether the Lease has no holder and the shape of a holder's release, as client-go and this
	 * library write it: a lease duration and a renewTime. A Lease without them was written by
	 * hand or by a tool, not released by a holder whose gate had closed.
	 */
	public boolean looksReleased() {
		return !hasHolder() && this.leaseDurationSeconds != null && this.renewTime != null;
	}

	/** Whether this is a leader-for-life lock, held until it is deleted. */
	public boolean isForLifeLock() {
		return this.leaseDurationSeconds != null && this.leaseDurationSeconds == FOR_LIFE_LEASE_DURATION_SECONDS;
	}

	/** Whether the other record is of another Lease object: deleted and created again in between. */
	public boolean isOtherObjectThan(LeaseRecord other) {
		return other != null && this.uid != null && other.uid != null && !this.uid.equals(other.uid);
	}

	/** Whether the given candidate holds the Lease. */
	public boolean isHeldBy(String identity) {
		return identity.equals(this.holderIdentity);
	}

	/** Whether spec.preferredHolder names a candidate other than the given one. */
	public boolean prefersOtherThan(String identity) {
		return this.preferredHolder != null && !this.preferredHolder.isEmpty()
				&& !this.preferredHolder.equals(identity);
	}

	/** leaseTransitions, reading a missing value as 0. */
	public int transitions() {
		return (this.leaseTransitions != null) ? this.leaseTransitions : 0;
	}

	/** The resourceVersion as an integer, or {@code null} where it is not one. */
	public Long resourceVersionNumber() {
		return (this.resourceVersion != null && INTEGER.matcher(this.resourceVersion).matches())
				? Long.valueOf(this.resourceVersion) : null;
	}

	/**
	 * Whether this record is known to be an older version than the other: both resourceVersions
	 * are integers and this one is lower. Versions that cannot be compared are never older.
	 */
	public boolean isOlderThan(LeaseRecord other) {
		Long mine = resourceVersionNumber();
		Long theirs = (other != null) ? other.resourceVersionNumber() : null;
		return mine != null && theirs != null && mine < theirs;
	}

	/**
	 * Whether this record is the same stored version as another: same resourceVersion and, so
	 * that a store without versions still works, the same election fields.
	 */
	public boolean sameVersionAs(LeaseRecord other) {
		return other != null && Objects.equals(this.resourceVersion, other.resourceVersion)
				&& sameElectionFieldsAs(other);
	}

	/** Whether the election fields are those of the other record, whatever else changed. */
	public boolean sameElectionFieldsAs(LeaseRecord other) {
		return other != null && Objects.equals(this.holderIdentity, other.holderIdentity)
				&& sameInstant(this.renewTime, other.renewTime) && sameInstant(this.acquireTime, other.acquireTime)
				&& Objects.equals(this.leaseTransitions, other.leaseTransitions)
				&& Objects.equals(this.leaseDurationSeconds, other.leaseDurationSeconds);
	}

	/**
	 * Two times the same as a Lease stores them: to the microsecond, as client-go's MicroTime
	 * writes them, so that a time read back equals the time sent.
	 */
	public static boolean sameInstant(Instant one, Instant other) {
		return (one == null) ? other == null
				: other != null && one.truncatedTo(ChronoUnit.MICROS).equals(other.truncatedTo(ChronoUnit.MICROS));
	}

	@Override
	public String toString() {
		return "LeaseRecord[holderIdentity=" + this.holderIdentity + ", leaseDurationSeconds="
				+ this.leaseDurationSeconds + ", acquireTime=" + this.acquireTime + ", renewTime=" + this.renewTime
				+ ", leaseTransitions=" + this.leaseTransitions + ", preferredHolder=" + this.preferredHolder
				+ ", uid=" + this.uid + ", resourceVersion=" + this.resourceVersion + ", windows=" + this.windows.keySet()
				+ "]";
	}

}
