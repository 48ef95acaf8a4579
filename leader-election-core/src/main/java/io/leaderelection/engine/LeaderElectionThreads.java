package io.leaderelection.engine;

import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The threads the elector owns, whatever the number of elections: a small scheduler pool that
 * runs every election, one thread that publishes events, calls listeners and starts and stops
 * gated beans (another one for as long as user code there blocks), one that hands the elector's
 * requests to the HTTP client (another one for as long as a credential refresh there blocks), and
 * two for the calls that block: opening followers' watches, recording Kubernetes Events. Closing
 * it stops them all.
 */
public class LeaderElectionThreads implements AutoCloseable {

	/** Scheduler threads; every step is non-blocking, so a second thread is only headroom. */
	static final int SCHEDULER_THREADS = 2;

	private final ScheduledThreadPoolExecutor scheduler;

	/** For fabric8's blocking calls: opening a watch waits until the server accepted it. */
	static final int BLOCKING_CALL_THREADS = 2;

	/** How long user code may block the callback thread before another one takes over the rest. */
	static final Duration CALLBACK_PATIENCE = Duration.ofMillis(100);

	/**
	 * How long a request may wait behind one whose credential refresh blocks before another thread
	 * sends it: a small part of any renew deadline.
	 */
	static final Duration REQUEST_PATIENCE = Duration.ofMillis(100);

	private final ElasticExecutor callbacks;

	private final ElasticExecutor requests;

	private final ExecutorService blockingCalls;

	public LeaderElectionThreads() {
		this.scheduler = new ScheduledThreadPoolExecutor(SCHEDULER_THREADS, DaemonThreads.named("leader-election-"));
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.callbacks = new ElasticExecutor(DaemonThreads.named("leader-election-events-"), this.scheduler,
				CALLBACK_PATIENCE);
		this.requests = new ElasticExecutor(DaemonThreads.named("leader-election-requests-"), this.scheduler,
				REQUEST_PATIENCE);
		this.blockingCalls = Executors.newFixedThreadPool(BLOCKING_CALL_THREADS,
				DaemonThreads.named("leader-election-watch-"));
	}

	/** Where calls that block run: the Lease stores open their watches, Events are recorded. */
	public Executor blockingCalls() {
		return this.blockingCalls;
	}

	/**
	 * Where the Lease stores hand their requests to the HTTP client: fabric8 refreshes credentials
	 * on the sending thread first, and an exec credential plugin runs as a process for as long as
	 * it takes.
	 */
	public Executor requests() {
		return this.requests;
	}

	/** The runtime the engine runs on: these threads, the system's monotonic and UTC clocks. */
	public ElectionRuntime runtime() {
		return new ElectionRuntime(new ExecutorElectionScheduler(this.scheduler), MonotonicClock.system(),
				Clock.systemUTC(), this.callbacks, new Random());
	}

	@Override
	public void close() throws InterruptedException {
		this.scheduler.shutdownNow();
		this.blockingCalls.shutdownNow();
		this.requests.shutdown(Duration.ZERO);
		this.callbacks.shutdown(Duration.ofSeconds(5));
	}

}
