package io.leaderelection.benchmarks.harness;

/** One replica campaigning in one election. */
public interface Candidate extends AutoCloseable {

	String identity();

	/** Starts campaigning. */
	void start();

	/**
	 * Stops campaigning and returns once the candidate has done what it does on stop (for a
	 * releasing candidate: once the release was answered).
	 */
	void stop();

	/**
	 * The renewTime of the last Lease record this candidate saw, for candidates that can tell
	 * (this project's: {@code status().renewTime()}); {@code null} otherwise.
	 */
	default Object lastSeenRenewal() {
		return null;
	}

	/** Stops if still running, frees everything. */
	@Override
	void close();

	/** Told when a candidate's gate opens and closes, on the JVM's monotonic clock. */
	interface Gates {

		void opened(long nanoTime);

		void closed(long nanoTime);

	}

}
