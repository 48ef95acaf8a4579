package io.leaderelection.simulation;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silences the engine's log while seeds run: hundreds of runs a second would spend most of their
 * time logging failovers that the checks look at anyway.
 */
final class QuietEngineLog implements AutoCloseable {

	private final Logger engine = (Logger) LoggerFactory.getLogger("io.leaderelection");

	private final Level before = this.engine.getLevel();

	QuietEngineLog() {
		this.engine.setLevel(Level.OFF);
	}

	@Override
	public void close() {
		this.engine.setLevel(this.before);
	}

}
