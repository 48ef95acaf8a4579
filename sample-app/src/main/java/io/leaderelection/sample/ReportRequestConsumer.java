package io.leaderelection.sample;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Stands for a message listener container or a poller: a lifecycle bean that runs only on the
 * leader of the {@code reports} election. {@code @LeaderOnly} keeps it stopped when the
 * context starts, starts it when this replica becomes leader and stops it when leadership ends,
 * so a follower never consumes (and drops) messages meant for the leader.
 */
@Component
@LeaderOnly(LeaderJobs.REPORTS)
class ReportRequestConsumer implements SmartLifecycle {

	private final LeaderElector elector;

	private final WorkJournal journal;

	private volatile boolean running;

	ReportRequestConsumer(LeaderElector elector, WorkJournal journal) {
		this.elector = elector;
		this.journal = journal;
	}

	@Override
	public void start() {
		this.running = true;
		Long fencingToken = this.elector.status(LeaderJobs.REPORTS).fencingToken();
		if (fencingToken != null) {
			this.journal.record(LeaderJobs.REPORTS, fencingToken, "started consuming report requests");
		}
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
