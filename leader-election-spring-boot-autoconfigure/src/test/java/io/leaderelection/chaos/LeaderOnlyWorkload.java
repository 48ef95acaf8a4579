package io.leaderelection.chaos;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A replica's leader-only work: every few milliseconds, for each election, it checks the
 * candidate's leadership at call time, as the {@code @LeaderOnly} interceptor checks the gate,
 * and if it leads runs a millisecond of work. Each execution is recorded from just before the
 * check to the end of the work, so an overlap of two executions is an overlap of real work.
 * <p>
 * The work runs on its own thread, like a scheduled job; a pause of the replica holds it
 * between executions.
 */
final class LeaderOnlyWorkload {

	private static final Duration WORK = Duration.ofMillis(1);

	private static final Duration INTERVAL = Duration.ofMillis(10);

	private final Candidate candidate;

	private final List<String> elections;

	private final Pause pause;

	private final LeadershipHistory history;

	private final Thread thread;

	private volatile boolean running = true;

	private LeaderOnlyWorkload(Candidate candidate, List<String> elections, Pause pause, LeadershipHistory history) {
		this.candidate = candidate;
		this.elections = elections;
		this.pause = pause;
		this.history = history;
		this.thread = new Thread(this::work, "leader-only-work-" + candidate.identity());
		this.thread.setDaemon(true);
	}

	static LeaderOnlyWorkload start(Candidate candidate, List<String> elections, Pause pause,
			LeadershipHistory history) {
		LeaderOnlyWorkload workload = new LeaderOnlyWorkload(candidate, elections, pause, history);
		workload.thread.start();
		return workload;
	}

	/** Stops after the execution in progress, if any, has finished. */
	void stop() {
		this.running = false;
		try {
			this.thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void work() {
		while (this.running) {
			this.pause.awaitResumed();
			for (String election : this.elections) {
				long start = System.nanoTime();
				if (this.candidate.isLeader(election)) {
					LockSupport.parkNanos(WORK.toNanos());
					this.history.executed(this.candidate.identity(), election, start, System.nanoTime());
				}
			}
			LockSupport.parkNanos(INTERVAL.toNanos());
		}
	}

}
