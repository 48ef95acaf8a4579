package io.leaderelection.sample;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Stands for a queue of orders every replica sees: each round offers the same eight new order
 * ids to every replica, and {@link OrderShipper} ships each on the one replica that leads the
 * shard of the order's id.
 */
@Component
class OrderShipping {

	/** Order ids offered per round: as many as the sample's shards, so that every replica gets some. */
	private static final int ORDERS_PER_ROUND = 8;

	private final OrderShipper shipper;

	private final AtomicLong round = new AtomicLong();

	OrderShipping(OrderShipper shipper) {
		this.shipper = shipper;
	}

	@Scheduled(fixedDelayString = "${sample.jobs.interval}")
	void shipNewOrders() {
		// the same ids on every replica, as a shared queue would hand them out; the round counts on each
		long first = this.round.getAndIncrement() * ORDERS_PER_ROUND;
		for (long order = first; order < first + ORDERS_PER_ROUND; order++) {
			this.shipper.ship("order-" + order);
		}
	}

}
