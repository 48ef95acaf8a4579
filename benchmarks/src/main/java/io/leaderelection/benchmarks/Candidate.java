package io.leaderelection.benchmarks;

/** One replica campaigning in one election. */
interface Candidate extends AutoCloseable {

	String identity();

	/** Starts campaigning. */
	void start();

	/**
	 * Stops campaigning and returns once the candidate has done what it does on stop (for a
	 * releasing candidate: once the release was answered).
	 */
	void stop();

	/** Stops if still running, frees everything. */
	@Override
	void close();

	/** Told when a candidate's gate opens and closes, on the JVM's monotonic clock. */
	interface Gates {

		void opened(long nanoTime);

		void closed(long nanoTime);

	}

}
