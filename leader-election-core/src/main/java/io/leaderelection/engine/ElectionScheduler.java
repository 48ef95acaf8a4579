package io.leaderelection.engine;

/**
 * Runs the engine's work: every election's attempts, timeouts and store completions. One
 * scheduler serves all elections of an engine.
 */
public interface ElectionScheduler {

	/** Runs the task once after the delay; the returned handle cancels it if it has not run. */
	Cancellable schedule(Runnable task, long delayNanos);

	/** Runs the task as soon as possible. */
	default void execute(Runnable task) {
		schedule(task, 0);
	}

	/** A scheduled task that can be cancelled. */
	@FunctionalInterface
	interface Cancellable {

		void cancel();

	}

}
