package io.leaderelection.engine;

/**
 * Source of monotonic time in nanoseconds. Every timeout of the engine is measured on it, never
 * on a wall clock, so a shifted or stepped system clock cannot open or hold a gate.
 */
@FunctionalInterface
public interface MonotonicClock {

	/** The current value of the clock; only differences between two values are meaningful. */
	long nanoTime();

	/** The JVM's monotonic clock. */
	static MonotonicClock system() {
		return System::nanoTime;
	}

}
