package io.leaderelection.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

import io.leaderelection.engine.rules.Term;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One election's leader work on its own lane, apart from the listeners: started on a grant if the
 * term's gate is still open when the lane gets to it, stopped when the gate closes (only what was
 * started), and its calls under way awaited before a release.
 */
final class GatedWork {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final String election;

	private final LeaderWork work;

	private final Executor lane;

	/** Why gated work failed to start at the last grant; {@code null} when it started. */
	private volatile String startFailure;

	/** Whether the work was started and not stopped since; only read and written on the lane. */
	private boolean started;

	GatedWork(String election, LeaderWork work, Executor lane) {
		this.election = election;
		this.work = work;
		this.lane = lane;
	}

	/**
	 * Starts the work of the term granted, unless its gate has closed by the time the lane gets to
	 * it (the process paused, or a stop blocked the lane): another replica may lead by then. The
	 * stop the gate's closing queued then finds nothing started.
	 * @param stillOpen whether the term still holds an open gate, asked on the lane
	 */
	void start(Term won, Predicate<Term> stillOpen) {
		this.lane.execute(() -> {
			if (!stillOpen.test(won)) {
				logger.debug("Gated work of election '{}' not started: the gate of its term closed first", this.election);
				return;
			}
			try {
				this.started = true;
				this.work.start(this.election);
				this.startFailure = null;
			}
			catch (RuntimeException ex) {
				this.startFailure = String.valueOf(ex.getMessage());
				logger.error("Gated work of election '{}' failed to start; it is started again at the next grant",
						this.election, ex);
			}
		});
	}

	/**
	 * The gate closed: tells the work at once, and stops it on its lane if it was started.
	 * @return completes when the work was stopped
	 */
	CompletableFuture<Void> gateClosed() {
		try {
			this.work.gateClosed(this.election);
		}
		catch (RuntimeException ex) {
			logger.error("Leader work of election '{}' failed to take note of the closed gate", this.election, ex);
		}
		CompletableFuture<Void> stopped = new CompletableFuture<>();
		this.lane.execute(() -> {
			try {
				if (this.started) {
					this.started = false;
					this.work.stop(this.election);
				}
			}
			finally {
				stopped.complete(null);
			}
		});
		return stopped;
	}

	/** Completes once every leader-only call of the election under way now has ended. */
	CompletableFuture<Void> callsEnded() {
		try {
			return this.work.whenCallsEnded(this.election);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** The leader-only calls under way now, each described for a log line. */
	List<String> callsUnderWay() {
		try {
			return this.work.callsUnderWay(this.election);
		}
		catch (RuntimeException ex) {
			return List.of("(the calls under way could not be listed: " + ex + ")");
		}
	}

	/** Completes once the starts and stops queued on the lane so far have run. */
	CompletableFuture<Void> queuedRun() {
		CompletableFuture<Void> ran = new CompletableFuture<>();
		this.lane.execute(() -> ran.complete(null));
		return ran;
	}

	/** Why the work failed to start at the last grant; {@code null} when it started. Lock-free. */
	String startFailure() {
		return this.startFailure;
	}

}
