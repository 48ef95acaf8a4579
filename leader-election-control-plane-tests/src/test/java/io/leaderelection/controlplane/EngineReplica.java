package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderStatus;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

/**
 * One replica of the elector without Spring: the engine on threads and a fabric8 client of its
 * own, as the auto-configuration builds them, talking to the control plane as a ServiceAccount.
 */
final class EngineReplica implements AutoCloseable {

	private final String identity;

	private final KubernetesClient client;

	private final LeaderElectionThreads threads = new LeaderElectionThreads();

	private final KubernetesLeaseStores stores;

	private final ElectionEngine engine;

	private boolean closed;

	private EngineReplica(String identity, Config config, List<ElectionSettings> elections,
			List<ElectionListener> listeners) {
		this(identity, config, elections, listeners, null);
	}

	/** @param container where it runs, with exit takeover on; {@code null} for none */
	private EngineReplica(String identity, Config config, List<ElectionSettings> elections,
			List<ElectionListener> listeners, InContainer container) {
		this.identity = identity;
		this.client = new KubernetesClientBuilder().withConfig(config).build();
		this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
		if (container != null) {
			this.stores.takeOverOnExit(container.namespace(), container.pod(), null, container.started());
		}
		this.engine = new ElectionEngine(identity, elections, this.stores, this.threads.runtime(), listeners);
	}

	/** A replica that campaigns at once in the given elections. */
	static EngineReplica start(String identity, Config config, List<ElectionSettings> elections,
			ElectionListener... listeners) {
		EngineReplica replica = new EngineReplica(identity, config, elections, List.of(listeners));
		replica.engine.start();
		return replica;
	}

	/**
	 * A replica in a Pod's container, with exit takeover on, that campaigns at once in the given
	 * elections: it names its container's run in the Leases it holds, and takes a Lease over when
	 * the Pod of the run its holder names reports it ended.
	 */
	static EngineReplica startInContainer(String identity, Config config, List<ElectionSettings> elections,
			InContainer container, ElectionListener... listeners) {
		EngineReplica replica = new EngineReplica(identity, config, elections, List.of(listeners), container);
		replica.engine.start();
		return replica;
	}

	/**
	 * The container a replica runs in: its Pod's only one.
	 * @param started when the container started, at the latest; {@code null} when the Pod's status says
	 */
	record InContainer(String namespace, String pod, java.time.Instant started) {
	}

	/**
	 * A replica that only follows the given elections (reads and watches their Leases, creates a
	 * missing one without holder) and claims nothing until {@code engine().start()}.
	 */
	static EngineReplica follow(String identity, Config config, List<ElectionSettings> elections,
			ElectionListener... listeners) {
		EngineReplica replica = new EngineReplica(identity, config, elections, List.of(listeners));
		replica.engine.follow();
		return replica;
	}

	String identity() {
		return this.identity;
	}

	ElectionEngine engine() {
		return this.engine;
	}

	boolean isLeader(String election) {
		return !this.closed && this.engine.isLeader(election);
	}

	LeaderStatus status(String election) {
		return this.engine.status(election);
	}

	/** Stops as a graceful shutdown does: drains, releases, and waits for the release. */
	void stopGracefully() {
		try {
			this.engine.stop(true).get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(this.identity + " did not stop gracefully", ex);
		}
		close();
	}

	/** Ends at once without a release, as a killed process does: its Lease is left to expire. */
	void kill() {
		this.engine.stop(false);
		close();
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.engine.stop(false);
		try {
			this.threads.close();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.stores.close();
		this.client.close();
	}

	@Override
	public String toString() {
		return this.identity;
	}

	/** Timings for tests on the control plane: long enough for a busy build machine, short enough for a suite. */
	static ElectionSettings election(String namespace, String leaseName) {
		return new ElectionSettings("default", namespace, leaseName, Duration.ofSeconds(3), Duration.ofSeconds(2),
				Duration.ofMillis(500))
			.renewingEvery(Duration.ofMillis(500));
	}

}
