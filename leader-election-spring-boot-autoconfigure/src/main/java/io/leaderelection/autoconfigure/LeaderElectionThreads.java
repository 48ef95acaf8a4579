package io.leaderelection.autoconfigure;

import java.time.Clock;
import java.util.Random;
import java.util.concurrent.Executor;
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
 * runs every election, one thread that publishes events and calls listeners, and two that open
 * followers' watches.
 */
public class LeaderElectionThreads implements DisposableBean {

	/** Scheduler threads; every step is non-blocking, so a second thread is only headroom. */
	static final int SCHEDULER_THREADS = 2;

	private final ScheduledThreadPoolExecutor scheduler;

	/** Watch openers; fabric8 blocks each until the server accepted the watch. */
	static final int WATCH_OPENER_THREADS = 2;

	private final ExecutorService callbacks;

	private final ExecutorService watchOpeners;

	public LeaderElectionThreads() {
		CustomizableThreadFactory schedulerThreads = new CustomizableThreadFactory("leader-election-");
		schedulerThreads.setDaemon(true);
		this.scheduler = new ScheduledThreadPoolExecutor(SCHEDULER_THREADS, schedulerThreads);
		this.scheduler.setRemoveOnCancelPolicy(true);
		CustomizableThreadFactory callbackThreads = new CustomizableThreadFactory("leader-election-events-");
		callbackThreads.setDaemon(true);
		this.callbacks = Executors.newSingleThreadExecutor(callbackThreads);
		CustomizableThreadFactory watchThreads = new CustomizableThreadFactory("leader-election-watch-");
		watchThreads.setDaemon(true);
		this.watchOpeners = Executors.newFixedThreadPool(WATCH_OPENER_THREADS, watchThreads);
	}

	/** Where the Lease stores open their watches. */
	public Executor watchOpener() {
		return this.watchOpeners;
	}

	/** The runtime the engine runs on: these threads, the system's monotonic and UTC clocks. */
	public ElectionRuntime runtime() {
		return new ElectionRuntime(new ExecutorElectionScheduler(this.scheduler), MonotonicClock.system(),
				Clock.systemUTC(), this.callbacks, new Random());
	}

	@Override
	public void destroy() throws InterruptedException {
		this.scheduler.shutdownNow();
		this.watchOpeners.shutdownNow();
		this.callbacks.shutdown();
		this.callbacks.awaitTermination(5, TimeUnit.SECONDS);
	}

}
