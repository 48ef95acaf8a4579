package io.leaderelection.test;

import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaseStore;
import io.leaderelection.engine.LeaseStoreFactory;
import io.leaderelection.engine.MembershipStore;
import io.leaderelection.memory.InMemoryLeaseStores;

/** One context's way to the Leases that {@link InMemoryLeases} shares between contexts. */
record Replica(InMemoryLeaseStores leases) implements LeaseStoreFactory {

	@Override
	public LeaseStore create(ElectionSettings election) {
		return this.leases.create(election);
	}

	/** The shared membership records, so that replicas spread sharded and balanced elections among them. */
	@Override
	public MembershipStore membership(String namespace) {
		return this.leases.membership(namespace);
	}

}
