package io.leaderelection.engine;

import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

/**
 * What the engine takes from outside: where it runs, how it tells time and where it calls
 * listeners.
 *
 * @param scheduler runs every election's work
 * @param monotonicClock measures every timeout
 * @param wallClock only stamps acquireTime and renewTime into the Lease for humans and other
 * clients; never used to decide anything
 * @param callbackExecutor runs listener calls, away from the scheduler
 * @param random spreads followers' attempts
 */
public record ElectionRuntime(ElectionScheduler scheduler, MonotonicClock monotonicClock, Clock wallClock,
		Executor callbackExecutor, RandomGenerator random) {

	public ElectionRuntime {
		Objects.requireNonNull(scheduler, "scheduler");
		Objects.requireNonNull(monotonicClock, "monotonicClock");
		Objects.requireNonNull(wallClock, "wallClock");
		Objects.requireNonNull(callbackExecutor, "callbackExecutor");
		Objects.requireNonNull(random, "random");
	}

}
