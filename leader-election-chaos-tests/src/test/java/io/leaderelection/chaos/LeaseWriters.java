package io.leaderelection.chaos;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;

/**
 * Who wrote each version of a Lease, told from the versions in the order they were stored, for a
 * real API server, which tells its watchers what changed and not who changed it. In lease mode,
 * an elector writes only as the holder: it claims or renews naming itself, or releases the term
 * of the version before; so a version whose election fields (holder, acquire and renew time,
 * lease duration, transitions) changed was written by the replica the holder's identity names
 * ({@link ReplicaSlot#nameInIdentity}), or, for a release, the previous holder's. Anything else
 * (labels, annotations, {@code preferredHolder}, {@code strategy}, a deletion) is a foreign
 * writer's. A Lease created without holder after a deletion (this project's engine creates a
 * missing one so) tells no replica: {@value #AN_ELECTOR}. A duplicate identity's twin writes as
 * the replica of the process it copies.
 */
final class LeaseWriters {

	/** The writer of what no elector writes. */
	static final String FOREIGN_WRITER = "foreign-writer";

	/** The writer of an elector's version that names no holder, neither before nor now. */
	static final String AN_ELECTOR = "an elector";

	/** The last version of each Lease; none once deleted. */
	private final Map<String, LeaseSpec> lastVersions = new HashMap<>();

	/**
	 * The writer of the next version of the named Lease.
	 * @param stored the version; {@code null} for its deletion
	 */
	synchronized String writerOf(String lease, Lease stored) {
		LeaseSpec before = this.lastVersions.remove(lease);
		if (stored == null) {
			return FOREIGN_WRITER;
		}
		LeaseSpec now = (stored.getSpec() != null) ? stored.getSpec() : new LeaseSpec();
		this.lastVersions.put(lease, now);
		if (before != null && electionFields(before).equals(electionFields(now))) {
			return FOREIGN_WRITER;
		}
		String holder = hasHolder(now) ? now.getHolderIdentity()
				: (before != null && hasHolder(before)) ? before.getHolderIdentity() : null;
		String replica = (holder != null) ? ReplicaSlot.nameInIdentity(holder) : null;
		return (replica != null) ? replica : AN_ELECTOR;
	}

	private static List<Object> electionFields(LeaseSpec spec) {
		return List.of(Objects.toString(spec.getHolderIdentity(), ""), Objects.toString(spec.getAcquireTime(), ""),
				Objects.toString(spec.getRenewTime(), ""), Objects.toString(spec.getLeaseDurationSeconds(), ""),
				Objects.toString(spec.getLeaseTransitions(), ""));
	}

	private static boolean hasHolder(LeaseSpec spec) {
		return spec.getHolderIdentity() != null && !spec.getHolderIdentity().isEmpty();
	}

}
