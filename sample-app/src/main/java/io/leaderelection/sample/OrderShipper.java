package io.leaderelection.sample;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.LeaderStatus;

import org.springframework.stereotype.Component;

/**
 * Ships an order on the replica that leads the shard of its id, and on no other: the election
 * {@code orders} is split into shards spread over the replicas, so each replica ships some of the
 * orders. A bean of its own, since a call from a bean to its own method does not pass the gate.
 */
@Component
class OrderShipper {

	static final String ORDERS = "orders";

	private final LeaderElector elector;

	private final WorkJournal journal;

	OrderShipper(LeaderElector elector, WorkJournal journal) {
		this.elector = elector;
		this.journal = journal;
	}

	@LeaderOnly(value = ORDERS, key = "#orderId")
	void ship(String orderId) {
		// Read after the gate let the call in; null if leadership of the shard ended in between.
		LeaderStatus shard = this.elector.status(ORDERS, orderId);
		if (shard.fencingToken() != null) {
			this.journal.record(shard.election(), shard.fencingToken(), "shipped " + orderId);
		}
	}

}
