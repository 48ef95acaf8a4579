package io.leaderelection.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Reads and writes the key an older leader election keeps its leader's id in, during a
 * migration from it: spring-cloud-kubernetes' ConfigMap leader, whose replicas take the key when
 * it is empty or names a Pod that is not Ready. Every write is conditional on the version read.
 * Calls never block; failures complete the future with a {@link LeaseStoreException}.
 */
public interface LeaderKeyStore {

	/** Names the key for messages, e.g. {@code key 'leader.id.orders' of ConfigMap team-a/leaders}. */
	String describe();

	/** The key as stored now. */
	CompletableFuture<LeaderKey> read(Duration timeout);

	/**
	 * Writes the value over the version read (creating the object when it was absent), or
	 * removes the key when the value is {@code null}. Fails with {@link LeaseConflictException}
	 * when the object was written since that version.
	 */
	CompletableFuture<LeaderKey> write(LeaderKey read, String value, Duration timeout);

	/** The Pod of that name in the key's namespace; {@code null} when there is none. */
	CompletableFuture<PodState> pod(String name, Duration timeout);

	/**
	 * One version of the key.
	 *
	 * @param value the id the key holds; {@code null} when the key or its object is absent
	 * @param version the version of the object holding the key; {@code null} when it is absent
	 * @param stored the object as read, written back with only the key changed
	 */
	record LeaderKey(String value, String version, Object stored) {

		/** Whether the key names no one: absent or empty. */
		public boolean empty() {
			return this.value == null || this.value.isEmpty();
		}

	}

}
