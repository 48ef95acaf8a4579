package io.leaderelection.store;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where the replicas campaigning in a group of Leases make themselves known to each other, so
 * that they spread the group's Leases among them: one record per member, renewed while it takes
 * part. Membership decides only who tries to claim which Lease; every claim stays a
 * compare-and-swap on the Lease itself, so members that see different members cost balance for
 * a while, never safety.
 */
public interface MembershipStore {

	/** Names where the records are kept, for messages. */
	String describe();

	/**
	 * Writes this member's record in the group, creating it when missing; every call changes its
	 * version, which is how others tell a live member from one gone.
	 */
	CompletableFuture<Void> renew(String group, String member, Duration timeout);

	/** Marks this member's record as left, so that others stop counting it at once. */
	CompletableFuture<Void> leave(String group, String member, Duration timeout);

	/**
	 * Follows the group's records until closed: {@code members} is told every member that has not
	 * left, with the version of its record, once they are known and again at every change.
	 * {@code failed} is told when the records cannot be followed (no permission to list them).
	 */
	Following follow(String group, Consumer<Map<String, String>> members, Consumer<Throwable> failed);

	/** A running {@link #follow}. */
	@FunctionalInterface
	interface Following {

		void close();

	}

}
