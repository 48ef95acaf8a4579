package io.leaderelection.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A Lease that can serve as a leader-for-life lock: created with an owner reference to the
 * holder's Pod, so that the garbage collector deletes it with that Pod, never renewed, and
 * deleted rather than released. It also reads the Pods (and Nodes) that followers judge the
 * owner by.
 */
public interface ForLifeLockStore extends LeaseStore {

	/** The Pod the given version of the Lease is owned by; {@code null} when no Pod owns it. */
	PodReference podOwner(LeaseRecord version);

	/**
	 * Creates the Lease with the record's election fields and an owner reference to the Pod.
	 * <p>
	 * Fails with {@link LeaseConflictException} when the Lease already exists.
	 */
	CompletableFuture<LeaseRecord> createOwnedBy(LeaseRecord record, PodReference owner, Duration timeout);

	/**
	 * Deletes the given version of the Lease, and only that one: the server checks its uid and
	 * resourceVersion.
	 * <p>
	 * Fails with {@link LeaseConflictException} when the Lease was written or created again since
	 * that version, with {@link LeaseNotFoundException} when it is gone.
	 */
	CompletableFuture<Void> delete(LeaseRecord version, Duration timeout);

	/** The Pod of that name in the Lease's namespace; {@code null} when there is none. */
	CompletableFuture<PodState> pod(String name, Duration timeout);

	/** Whether the Node reports the Ready condition True. */
	CompletableFuture<Boolean> nodeReady(String nodeName, Duration timeout);

}
