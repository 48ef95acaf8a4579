package io.leaderelection.autoconfigure;

import java.util.concurrent.CompletableFuture;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.ForLifePodException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Starts campaigning once the web server and actuator are up, or, with
 * {@code leader.election.campaign-when-ready}, once the application accepts traffic as well
 * (Spring Boot's {@link ReadinessState#ACCEPTING_TRAFFIC}, published when the application is
 * ready): health, metrics and whatever the runners warm up are then in place before leader work
 * starts. When readiness turns to refusing traffic, a leader steps down as on a voluntary
 * release (gate closed, leader work drained, Lease released unless
 * {@code leader.election.release-on-shutdown} is off: a web application's shutdown begins with
 * that change) and the replica campaigns again once it accepts traffic.
 * <p>
 * On shutdown, before the web server drains: refuses new leader work, closes every gate, waits
 * for the work under way (bounded by the drain timeout), then releases the held Leases.
 * <p>
 * Standalone, it leads every election before the context finishes starting, so that work
 * started from the context's refresh (scheduled methods, runners) finds every gate open.
 */
public class LeaderElectionLifecycle
		implements SmartLifecycle, ApplicationListener<AvailabilityChangeEvent<ReadinessState>> {

	/**
	 * After the web server starts ({@code DEFAULT_PHASE - 2048}) and before its graceful
	 * shutdown ({@code DEFAULT_PHASE - 1024}) stops.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private static final Logger logger = LoggerFactory.getLogger(LeaderElectionLifecycle.class);

	private final ElectionEngine engine;

	private final LeaderElectionSettings settings;

	private final boolean standalone;

	private final boolean campaignWhenReady;

	private volatile boolean running;

	/** Whether started and not stopped since; guarded by this. */
	private boolean started;

	/** Whether the application accepts traffic, as last published; guarded by this. */
	private boolean ready;

	/** Whether the engine campaigns; guarded by this. */
	private boolean campaigning;

	/**
	 * @param standalone whether this instance leads alone, so that start waits until it leads
	 * every election
	 * @param campaignWhenReady whether to campaign only while the application accepts traffic
	 */
	public LeaderElectionLifecycle(ElectionEngine engine, LeaderElectionSettings settings, boolean standalone,
			boolean campaignWhenReady) {
		this.engine = engine;
		this.settings = settings;
		this.standalone = standalone;
		this.campaignWhenReady = campaignWhenReady;
	}

	@Override
	public void start() {
		synchronized (this) {
			this.running = true;
			this.started = true;
			if (this.campaignWhenReady && !this.ready) {
				logger.info("Leader election of '{}' campaigns once the application accepts traffic",
						this.engine.identity());
				return;
			}
			campaign();
		}
		if (this.standalone) {
			logger.info("Leader election runs standalone: '{}' leads {} without Kubernetes", this.engine.identity(),
					this.settings.electionNames());
			this.settings.elections().forEach(this::awaitLeading);
		}
	}

	@Override
	public synchronized void onApplicationEvent(AvailabilityChangeEvent<ReadinessState> event) {
		if (!this.campaignWhenReady) {
			return;
		}
		this.ready = event.getState() == ReadinessState.ACCEPTING_TRAFFIC;
		if (!this.started || this.ready == this.campaigning) {
			return;
		}
		if (this.ready) {
			logger.info("'{}' accepts traffic: it campaigns", this.engine.identity());
			campaign();
		}
		else {
			logger.info("'{}' refuses traffic: it steps down and stops campaigning until it accepts traffic again",
					this.engine.identity());
			this.campaigning = false;
			// a web application's shutdown begins with this change, so it keeps the Lease as the shutdown would
			this.engine.stop(this.settings.releaseOnShutdown(), RevocationCause.NOT_READY);
		}
	}

	private void campaign() {
		try {
			this.engine.start();
		}
		catch (ForLifePodException ex) {
			throw new ForLifePodUnavailableException(ex);
		}
		this.campaigning = true;
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

	private synchronized CompletableFuture<Void> stopping() {
		this.started = false;
		this.campaigning = false;
		return this.engine.stop(this.settings.releaseOnShutdown())
			.whenComplete((ignored, failure) -> this.running = false);
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
