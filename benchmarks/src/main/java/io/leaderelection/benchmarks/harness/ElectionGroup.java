package io.leaderelection.benchmarks.harness;

/**
 * Elections of one implementation in this JVM on one client of their own, each alone on its Lease
 * (so each leads once it has claimed its Lease): what {@link Implementation#elections} starts.
 */
public interface ElectionGroup extends AutoCloseable {

	/** How many of the elections lead now. */
	int leading();

	/**
	 * Leaderships lost since the start: this project's revocations, fabric8's
	 * {@code onStopLeading} calls.
	 */
	int losses();

	/** Stops every election without releasing its Lease, and closes the client. */
	@Override
	void close();

}
