package io.leaderelection.forlife;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderStatus;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionHealth;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import io.leaderelection.kubernetes.MockApiServer;

/**
 * One process in a Pod, running the default election for-life with a client of its own on the
 * API server, on the threads the auto-configuration gives it; every grant and revocation it
 * reports is kept, with the gate's moments on {@link System#nanoTime()}.
 */
final class ForLifeReplica implements AutoCloseable, ElectionListener {

	static final String NAMESPACE = "team-a";

	static final String LEASE = "orders-leader";

	static final String ELECTION = "default";

	private final KubernetesClient client;

	private final LeaderElectionThreads threads = new LeaderElectionThreads();

	private final ElectionEngine engine;

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<Long> tokens = new CopyOnWriteArrayList<>();

	/** Gate intervals: [opened, closed], closed {@link Long#MAX_VALUE} while open. */
	private final List<long[]> terms = new CopyOnWriteArrayList<>();

	private final KubernetesLeaseStores stores;

	private boolean closed;

	ForLifeReplica(MockApiServer server, String podName, Duration notReadyNodeTakeover) {
		this.client = server.client(podName);
		ElectionSettings settings = new ElectionSettings(ELECTION, NAMESPACE, LEASE, Duration.ofSeconds(2),
				Duration.ofSeconds(1), Duration.ofMillis(200))
			.forLife(new ElectionSettings.ForLife(podName, notReadyNodeTakeover));
		this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
		this.engine = new ElectionEngine("process-" + podName, List.of(settings), this.stores, this.threads.runtime(),
				List.of(this));
	}

	static ForLifeReplica start(MockApiServer server, String podName) {
		return start(server, podName, null);
	}

	static ForLifeReplica start(MockApiServer server, String podName, Duration notReadyNodeTakeover) {
		ForLifeReplica replica = new ForLifeReplica(server, podName, notReadyNodeTakeover);
		replica.engine.start();
		return replica;
	}

	ElectionEngine engine() {
		return this.engine;
	}

	boolean isLeader() {
		return this.engine.isLeader(ELECTION);
	}

	LeaderStatus status() {
		return this.engine.status(ELECTION);
	}

	ElectionHealth health() {
		return this.engine.health(ELECTION);
	}

	List<String> events() {
		return List.copyOf(this.events);
	}

	List<Long> tokens() {
		return List.copyOf(this.tokens);
	}

	List<long[]> terms() {
		return List.copyOf(this.terms);
	}

	/** Stops campaigning and releases (deletes) the lock after draining, as on shutdown. */
	CompletableFuture<Void> stopReleasing() {
		return this.engine.stop(true);
	}

	/**
	 * The process dies: its gate closes, it releases nothing and sends nothing more; the lock
	 * stays until its Pod goes.
	 */
	void crash() {
		close();
	}

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		this.terms.add(new long[] { gateOpenedAt, Long.MAX_VALUE });
		this.tokens.add(fencingToken);
		this.events.add("granted");
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		this.terms.get(this.terms.size() - 1)[1] = gateClosedAt;
		this.events.add("revoked " + cause);
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.engine.stop(false).join();
		try {
			this.threads.close();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.stores.close();
		this.client.close();
	}

}
