package io.leaderelection.autoconfigure;

import io.leaderelection.engine.ElectionEngine;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Follows the elections' Leases from the first lifecycle phase, before campaigning
 * ({@link LeaderElectionLifecycle}) begins: a missing Lease's wait of a lease duration then runs
 * while the web server and the rest of the context start. Stops following in the last phase, once
 * the campaign has stopped, and on the destruction of a context whose start failed, as Spring
 * then stops no lifecycle.
 */
class LeaseFollowingLifecycle implements SmartLifecycle, DisposableBean {

	/** Before every other lifecycle, so that following overlaps them all. */
	static final int PHASE = Integer.MIN_VALUE;

	private final ElectionEngine engine;

	private volatile boolean running;

	LeaseFollowingLifecycle(ElectionEngine engine) {
		this.engine = engine;
	}

	@Override
	public void start() {
		this.engine.follow();
		this.running = true;
	}

	@Override
	public void stop() {
		this.engine.stopFollowing();
		this.running = false;
	}

	@Override
	public void destroy() {
		if (this.running) {
			stop();
		}
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
