package io.leaderelection.store;

import io.leaderelection.engine.ElectionSettings;

/** Creates the {@link LeaseStore} of an election. */
@FunctionalInterface
public interface LeaseStoreFactory {

	LeaseStore create(ElectionSettings election);

	/**
	 * Where the members of balanced groups find each other; {@code null} when these stores offer
	 * no such place, and each replica then sees itself alone in every group.
	 */
	default MembershipStore membership(String namespace) {
		return null;
	}

	/**
	 * The key of the older leader election the given election migrates from
	 * ({@link ElectionSettings#migration()}).
	 * @throws UnsupportedOperationException when these stores cannot reach it
	 */
	default LeaderKeyStore leaderKey(ElectionSettings election) {
		throw new UnsupportedOperationException("Election '" + election.name() + "' migrates from the ConfigMap "
				+ election.migration().configMapName() + ", which only Kubernetes Leases can take part in");
	}

}
