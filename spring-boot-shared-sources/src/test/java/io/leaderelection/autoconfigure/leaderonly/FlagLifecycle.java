package io.leaderelection.autoconfigure.leaderonly;

import org.springframework.context.SmartLifecycle;

/** A lifecycle bean that only remembers whether it runs: a gated bean of the tests. */
public class FlagLifecycle implements SmartLifecycle {

	private volatile boolean running;

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
