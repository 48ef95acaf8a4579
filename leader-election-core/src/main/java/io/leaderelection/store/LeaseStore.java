package io.leaderelection.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Reads and writes one Lease. Every write is conditional: {@link #update} succeeds only if the
 * stored resourceVersion is still the one in the record, {@link #create} only if no Lease exists.
 * Calls never block; failures complete the future with a {@link LeaseStoreException}.
 */
public interface LeaseStore {

	/** Names the Lease for messages, e.g. {@code Lease team-a/orders-leader}. */
	String describe();

	/** The stored record, or {@code null} when the Lease does not exist. */
	CompletableFuture<LeaseRecord> get(Duration timeout);

	/**
	 * Creates the Lease with the record's election fields.
	 * <p>
	 * Fails with {@link LeaseConflictException} when the Lease already exists.
	 */
	CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout);

	/**
	 * Writes the record's election fields over the version it was made from
	 * ({@link LeaseRecord#rewrite}), at that version's resourceVersion: every other field is
	 * written as that version had it, so a write never reverts what someone else wrote since.
	 * <p>
	 * Fails with {@link LeaseConflictException} when someone else wrote the Lease since that
	 * version, with {@link LeaseNotFoundException} when it was deleted.
	 */
	CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout);

	/**
	 * Follows the Lease from now on, telling the listener when the server has accepted the watch,
	 * then the Lease's current version where the store can tell it, then every change, until the
	 * watch is closed or ends. Followers use it to learn of a release or a deletion within a round
	 * trip and to send no request while the leader renews. A store that cannot watch returns
	 * {@code null}, and followers poll.
	 * <p>
	 * From now, not from a version read: a real API server keeps a few minutes of changes, and
	 * answers a watch from an older version (a for-life lock, a Lease released long ago) with 410
	 * Gone, for good.
	 */
	default LeaseWatch watch(LeaseWatch.Listener listener) {
		return null;
	}

	/**
	 * Where followers learn that the process holding a version has ended; {@link HolderExits#NONE}
	 * for a store whose versions never name it, whose holders are then always waited out.
	 */
	default HolderExits holderExits() {
		return HolderExits.NONE;
	}

}
