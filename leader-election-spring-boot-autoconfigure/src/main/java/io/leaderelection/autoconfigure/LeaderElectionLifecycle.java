package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.engine.ElectionEngine;

import org.springframework.context.SmartLifecycle;

/**
 * Starts campaigning once the web server and actuator are up. On shutdown, before the web
 * server drains: refuses new leader work, waits for the work under way (bounded), then stops
 * campaigning and releases the held Leases.
 */
public class LeaderElectionLifecycle implements SmartLifecycle {

	/**
	 * After the web server starts ({@code DEFAULT_PHASE - 2048}) and before its graceful
	 * shutdown ({@code DEFAULT_PHASE - 1024}) stops.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private final ElectionEngine engine;

	private final boolean releaseOnShutdown;

	private final List<LeaderWorkDrain> drains;

	private final Duration drainTimeout;

	private volatile boolean running;

	/**
	 * @param drainTimeout how long shutdown waits for leader work before releasing anyway; keep
	 * it below Spring's {@code spring.lifecycle.timeout-per-shutdown-phase} so the release fits
	 */
	public LeaderElectionLifecycle(ElectionEngine engine, boolean releaseOnShutdown, List<LeaderWorkDrain> drains,
			Duration drainTimeout) {
		this.engine = engine;
		this.releaseOnShutdown = releaseOnShutdown;
		this.drains = List.copyOf(drains);
		this.drainTimeout = drainTimeout;
	}

	@Override
	public void start() {
		this.drains.forEach(LeaderWorkDrain::resume);
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
		CompletableFuture<?>[] drained = this.drains.stream()
			.map((drain) -> drain.drain(this.drainTimeout))
			.toArray(CompletableFuture[]::new);
		return CompletableFuture.allOf(drained)
			.handle((ignored, failure) -> null)
			.thenCompose((ignored) -> this.engine.stop(this.releaseOnShutdown))
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
