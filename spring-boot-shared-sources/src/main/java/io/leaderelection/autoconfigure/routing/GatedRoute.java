package io.leaderelection.autoconfigure.routing;

import java.util.concurrent.CompletableFuture;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.kubernetes.LeaderRoute;

import org.springframework.context.Lifecycle;
import org.springframework.context.Phased;

/**
 * The route to the leader as leader work of its election: started on the election's work lane
 * once a term began, it asks for the route under that term's fencing token; withdrawn the moment
 * the gate closes, a release of our own accord waiting for the withdrawal as for a call under
 * way. Neither waits on the work lane, which the other leader work shares. The last leader work
 * to start, so that traffic comes only once the rest of the leader work runs.
 */
final class GatedRoute implements Lifecycle, Phased {

	private final LeaderRoute route;

	private final LeaderElector elector;

	private final String election;

	private volatile boolean running;

	GatedRoute(LeaderRoute route, LeaderElector elector, String election) {
		this.route = route;
		this.elector = elector;
		this.election = election;
	}

	/**
	 * Asks for the route under the term held now; a term whose gate already closed asks for
	 * nothing. In step with {@link #withdraw}, which runs once the gate is closed.
	 */
	@Override
	public synchronized void start() {
		LeaderStatus status = this.elector.status(this.election);
		if (!status.leader() || status.fencingToken() == null) {
			return;
		}
		this.running = true;
		this.route.lead(status.fencingToken());
	}

	/** Nothing to wait for: the withdrawal began when the gate closed. */
	@Override
	public void stop() {
		this.running = false;
	}

	/** Asks for the route to be withdrawn; called when the gate closed, so it only enqueues. */
	synchronized CompletableFuture<?> withdraw() {
		return this.route.follow();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return Integer.MAX_VALUE;
	}

}
