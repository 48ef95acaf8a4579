package io.leaderelection.sample;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Scheduled work that must run on one replica only: every replica schedules it, and
 * {@code @LeaderOnly} lets it run on the leader of its election alone. Two elections spread the
 * work: one replica may reconcile while another publishes reports.
 */
@Component
class LeaderJobs {

	static final String REPORTS = "reports";

	private final LeaderElector elector;

	private final WorkJournal journal;

	LeaderJobs(LeaderElector elector, WorkJournal journal) {
		this.elector = elector;
		this.journal = journal;
	}

	@LeaderOnly
	@Scheduled(fixedDelayString = "${sample.jobs.interval}")
	void reconcileOrders() {
		record(LeaderElector.DEFAULT_ELECTION, "reconciled the orders");
	}

	@LeaderOnly(REPORTS)
	@Scheduled(fixedDelayString = "${sample.jobs.interval}")
	void publishReport() {
		record(REPORTS, "published the sales report");
	}

	private void record(String election, String what) {
		// Read after the gate let the call in; null if leadership ended in between.
		Long fencingToken = this.elector.status(election).fencingToken();
		if (fencingToken != null) {
			this.journal.record(election, fencingToken, what);
		}
	}

}
