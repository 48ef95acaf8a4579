package io.leaderelection.engine;

import io.leaderelection.engine.rules.Term;

/**
 * Reads an engine's gate exactly, for the deterministic simulation: not only whether it is open
 * now ({@link ElectionEngine#isLeader(String)}) but until when, on the engine's own clock, so
 * that the simulation can tell the instant a gate closes by its deadline with no step running.
 */
public final class GateProbe {

	/** The deadline of a gate that is closed. */
	public static final long CLOSED = Long.MIN_VALUE;

	private GateProbe() {
	}

	/**
	 * When the election's gate closes, on the engine's monotonic clock, if it is open at
	 * {@code now}; {@link #CLOSED} when it is not.
	 */
	public static long gateClosesAt(ElectionEngine engine, String election, long now) {
		Leadership leadership = engine.election(election).loop.leadership;
		Term held = leadership.term();
		if (held == null || !held.gateOpen()) {
			return CLOSED;
		}
		long closesAt = leadership.gateClosesAt();
		return (now - closesAt < 0) ? closesAt : CLOSED;
	}

}
