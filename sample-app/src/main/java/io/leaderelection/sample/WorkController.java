package io.leaderelection.sample;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The read side every replica serves, leader or not: which elections this replica leads and
 * what its leader-only work did.
 */
@RestController
class WorkController {

	private final LeaderElector elector;

	private final WorkJournal journal;

	private final ReportRequestConsumer reportRequestConsumer;

	WorkController(LeaderElector elector, WorkJournal journal, ReportRequestConsumer reportRequestConsumer) {
		this.elector = elector;
		this.journal = journal;
		this.reportRequestConsumer = reportRequestConsumer;
	}

	@GetMapping("/work")
	Work work() {
		Map<String, Boolean> leads = new LinkedHashMap<>();
		for (LeaderStatus status : this.elector.statuses().values()) {
			leads.put(status.election(), status.leader());
		}
		return new Work(this.elector.identity(), leads, this.elector.ownedShards(OrderShipper.ORDERS),
				this.reportRequestConsumer.isRunning(), this.journal.entries());
	}

	/**
	 * @param replica this replica's identity
	 * @param leads whether this replica leads each election, each shard of {@code orders} as one
	 * @param ownedOrderShards the shards of {@code orders} this replica leads
	 * @param consumingReportRequests whether the leader-only consumer runs here
	 * @param journal what this replica's leader-only work did, newest first
	 */
	record Work(String replica, Map<String, Boolean> leads, Set<Integer> ownedOrderShards,
			boolean consumingReportRequests,
			List<WorkJournal.Entry> journal) {
	}

}
