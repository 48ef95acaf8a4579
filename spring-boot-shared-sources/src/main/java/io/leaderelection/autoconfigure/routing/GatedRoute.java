package io.leaderelection.autoconfigure.routing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.kubernetes.LeaderRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.Lifecycle;
import org.springframework.context.Phased;

/**
 * The route to the leader as leader work of its election: started on the election's work lane
 * once a term began, it writes the route under that term's fencing token; stopped when the gate
 * closed, and before a release of our own accord, it withdraws it. The last leader work to start
 * and the first to stop, so that traffic comes only once the rest of the leader work runs.
 */
final class GatedRoute implements Lifecycle, Phased {

	private static final Logger logger = LoggerFactory.getLogger(GatedRoute.class);

	private final LeaderRoute route;

	private final LeaderElector elector;

	private final String election;

	/** How long a start or stop waits for the write: the route's own calls are bounded shorter. */
	private final Duration wait;

	private volatile boolean running;

	GatedRoute(LeaderRoute route, LeaderElector elector, String election, Duration wait) {
		this.route = route;
		this.elector = elector;
		this.election = election;
		this.wait = wait;
	}

	/** Writes the route under the term held now; a term that already ended writes nothing. */
	@Override
	public void start() {
		LeaderStatus status = this.elector.status(this.election);
		if (!status.leader() || status.fencingToken() == null) {
			return;
		}
		this.running = true;
		await(this.route.lead(status.fencingToken()), "written");
	}

	@Override
	public void stop() {
		this.running = false;
		await(this.route.follow(), "withdrawn");
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return Integer.MAX_VALUE;
	}

	private void await(CompletableFuture<Void> written, String what) {
		try {
			written.get(this.wait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("The {} was not {} within {} ms; it is tried again in the background", this.route.describe(),
					what, this.wait.toMillis());
		}
	}

}
