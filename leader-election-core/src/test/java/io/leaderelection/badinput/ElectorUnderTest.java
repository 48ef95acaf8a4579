package io.leaderelection.badinput;

import java.time.Duration;
import java.util.List;
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
 * Our elector in one election, on the threads the auto-configuration gives it and a client of
 * its own on the API server, with every grant and revocation it reports kept.
 */
final class ElectorUnderTest implements AutoCloseable, ElectionListener {

	static final String NAMESPACE = "team-a";

	static final String LEASE = "orders-leader";

	static final String ELECTION = "default";

	static final Duration LEASE_DURATION = Duration.ofSeconds(2);

	static final Duration RENEW_DEADLINE = Duration.ofSeconds(1);

	static final Duration RETRY_PERIOD = Duration.ofMillis(250);

	private final KubernetesClient client;

	private final LeaderElectionThreads threads = new LeaderElectionThreads();

	private final KubernetesLeaseStores stores;

	private final ElectionEngine engine;

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<Long> grantedAt = new CopyOnWriteArrayList<>();

	private final List<Long> tokens = new CopyOnWriteArrayList<>();

	private ElectorUnderTest(MockApiServer server, String identity, String namespace) {
		this.client = server.client(identity);
		this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
		this.engine = new ElectionEngine(identity,
				List.of(new ElectionSettings(ELECTION, namespace, LEASE, LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD)),
				this.stores, this.threads.runtime(), List.of(this));
	}

	/** Starts campaigning for {@value #LEASE} in {@value #NAMESPACE}. */
	static ElectorUnderTest start(MockApiServer server, String identity) {
		return start(server, identity, NAMESPACE);
	}

	static ElectorUnderTest start(MockApiServer server, String identity, String namespace) {
		ElectorUnderTest elector = new ElectorUnderTest(server, identity, namespace);
		elector.engine.start();
		return elector;
	}

	String identity() {
		return this.engine.identity();
	}

	boolean isLeader() {
		return this.engine.isLeader(ELECTION);
	}

	/**
	 * Whether it leads and its listeners have heard so. They hear of a grant on the event
	 * thread, a moment after the gate opened, so {@link #isLeader()} alone may come first.
	 */
	boolean leadsAndListenersKnow() {
		List<String> events = events();
		return isLeader() && !events.isEmpty() && events.get(events.size() - 1).startsWith("granted");
	}

	LeaderStatus status() {
		return this.engine.status(ELECTION);
	}

	ElectionHealth health() {
		return this.engine.health(ELECTION);
	}

	/** Every grant and revocation so far, e.g. {@code granted} or {@code revoked LEASE_DELETED}. */
	List<String> events() {
		return List.copyOf(this.events);
	}

	/** The fencing token of each grant so far. */
	List<Long> tokens() {
		return List.copyOf(this.tokens);
	}

	/** When the gate opened at each grant so far, on {@link System#nanoTime()}. */
	List<Long> grantedAt() {
		return List.copyOf(this.grantedAt);
	}

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		this.grantedAt.add(gateOpenedAt);
		this.tokens.add(fencingToken);
		this.events.add("granted");
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		this.events.add("revoked " + cause);
	}

	@Override
	public void close() throws InterruptedException {
		this.engine.stop(false);
		this.threads.close();
		this.stores.close();
		this.client.close();
	}

}
