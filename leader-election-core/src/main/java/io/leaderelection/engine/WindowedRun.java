package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A run of a once-per-window job whose start the election's leader recorded in its Lease, under
 * its current term, before the run began ({@link ElectionEngine#startInWindow}). Whoever runs the
 * job registers it as leader work for as long as it runs, so that no release of the Lease comes
 * before {@link #end()}.
 */
public interface WindowedRun {

	/** The election the run was recorded in; for a sharded election, the shard. */
	String election();

	/** The job's name. */
	String job();

	/** The fencing token of the term the start was recorded under. */
	long fencingToken();

	/**
	 * The run has ended: the job's window opens at the later of now and its shortest window
	 * after the start. Recorded with the Lease's next write; until then the others count the
	 * run as under way for its longest window.
	 */
	void end();

	/**
	 * Keeps the job's window closed for the given longest window from now, and at least the
	 * given shortest window from now once the run ends: a write under the current term.
	 * @return completes with whether it was recorded; {@code false} once this replica no longer
	 * leads, or the run has ended
	 */
	CompletableFuture<Boolean> extend(Duration atMost, Duration atLeast);

}
