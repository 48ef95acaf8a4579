package io.leaderelection.autoconfigure;

import io.leaderelection.engine.ElectionEngine;

import org.springframework.context.SmartLifecycle;

/**
 * Starts campaigning once the web server and actuator are up and, on shutdown, stops
 * campaigning and releases held Leases before the web server drains.
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
		this.engine.stop(this.releaseOnShutdown).join();
		this.running = false;
	}

	@Override
	public void stop(Runnable callback) {
		this.engine.stop(this.releaseOnShutdown).whenComplete((ignored, failure) -> {
			this.running = false;
			callback.run();
		});
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
