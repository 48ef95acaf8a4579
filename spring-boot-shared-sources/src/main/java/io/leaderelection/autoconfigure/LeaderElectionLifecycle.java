package io.leaderelection.autoconfigure;

import java.util.concurrent.CompletableFuture;

import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.ForLifePodException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Starts campaigning once the web server and actuator are up. On shutdown, before the web
 * server drains: refuses new leader work, closes every gate, waits for the work under way
 * (bounded by the drain timeout), then releases the held Leases.
 * <p>
 * Standalone, it leads every election before the context finishes starting, so that work
 * started from the context's refresh (scheduled methods, runners) finds every gate open.
 */
public class LeaderElectionLifecycle implements SmartLifecycle {

	/**
	 * After the web server starts ({@code DEFAULT_PHASE - 2048}) and before its graceful
	 * shutdown ({@code DEFAULT_PHASE - 1024}) stops.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private static final Logger logger = LoggerFactory.getLogger(LeaderElectionLifecycle.class);

	private final ElectionEngine engine;

	private final LeaderElectionSettings settings;

	private final boolean standalone;

	private volatile boolean running;

	/**
	 * @param standalone whether this instance leads alone, so that start waits until it leads
	 * every election
	 */
	public LeaderElectionLifecycle(ElectionEngine engine, LeaderElectionSettings settings, boolean standalone) {
		this.engine = engine;
		this.settings = settings;
		this.standalone = standalone;
	}

	@Override
	public void start() {
		try {
			this.engine.start();
		}
		catch (ForLifePodException ex) {
			throw new ForLifePodUnavailableException(ex);
		}
		this.running = true;
		if (this.standalone) {
			logger.info("Leader election runs standalone: '{}' leads {} without Kubernetes", this.engine.identity(),
					this.settings.electionNames());
			this.settings.elections().forEach(this::awaitLeading);
		}
	}

	private void awaitLeading(ElectionSettings election) {
		try {
			if (!this.engine.awaitLeadership(election.name(), true, election.renewDeadline())) {
				logger.warn("Standalone, election '{}' was not led within its renew deadline of {}", election.name(),
						election.renewDeadline());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void stop() {
		stopping().join();
	}

	@Override
	public void stop(Runnable callback) {
		stopping().whenComplete((ignored, failure) -> callback.run());
	}

	private CompletableFuture<Void> stopping() {
		return this.engine.stop(this.settings.releaseOnShutdown()).whenComplete((ignored, failure) -> this.running = false);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
