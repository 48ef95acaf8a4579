package io.leaderelection.autoconfigure;

import java.time.Clock;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.leaderelection.engine.ElectionRuntime;
import io.leaderelection.engine.ExecutorElectionScheduler;
import io.leaderelection.engine.MonotonicClock;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The threads the elector owns, whatever the number of elections: a small scheduler pool that
 * runs every election and one thread that publishes events and calls listeners.
 */
public class LeaderElectionThreads implements DisposableBean {

	/** Scheduler threads; every step is non-blocking, so a second thread is only headroom. */
	static final int SCHEDULER_THREADS = 2;

	private final ScheduledThreadPoolExecutor scheduler;

	private final ExecutorService callbacks;

	public LeaderElectionThreads() {
		CustomizableThreadFactory schedulerThreads = new CustomizableThreadFactory("leader-election-");
		schedulerThreads.setDaemon(true);
		this.scheduler = new ScheduledThreadPoolExecutor(SCHEDULER_THREADS, schedulerThreads);
		this.scheduler.setRemoveOnCancelPolicy(true);
		CustomizableThreadFactory callbackThreads = new CustomizableThreadFactory("leader-election-events-");
		callbackThreads.setDaemon(true);
		this.callbacks = Executors.newSingleThreadExecutor(callbackThreads);
	}

	/** The runtime the engine runs on: these threads, the system's monotonic and UTC clocks. */
	public ElectionRuntime runtime() {
		return new ElectionRuntime(new ExecutorElectionScheduler(this.scheduler), MonotonicClock.system(),
				Clock.systemUTC(), this.callbacks, new Random());
	}

	@Override
	public void destroy() throws InterruptedException {
		this.scheduler.shutdownNow();
		this.callbacks.shutdown();
		this.callbacks.awaitTermination(5, TimeUnit.SECONDS);
	}

}
