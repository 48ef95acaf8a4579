package io.leaderelection.autoconfigure;

import java.util.concurrent.CompletableFuture;

import io.leaderelection.engine.ElectionEngine;

import org.springframework.context.SmartLifecycle;

/**
 * Starts campaigning once the web server and actuator are up. On shutdown, before the web
 * server drains: refuses new leader work, closes every gate, waits for the work under way
 * (bounded by the drain timeout), then releases the held Leases.
 */
public class LeaderElectionLifecycle implements SmartLifecycle {

	/**
	 * After the web server starts ({@code DEFAULT_PHASE - 2048}) and before its graceful
	 * shutdown ({@code DEFAULT_PHASE - 1024}) stops.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private final ElectionEngine engine;

	private final boolean releaseOnShutdown;

	private volatile boolean running;

	public LeaderElectionLifecycle(ElectionEngine engine, boolean releaseOnShutdown) {
		this.engine = engine;
		this.releaseOnShutdown = releaseOnShutdown;
	}

	@Override
	public void start() {
		this.engine.start();
		this.running = true;
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
		return this.engine.stop(this.releaseOnShutdown).whenComplete((ignored, failure) -> this.running = false);
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
