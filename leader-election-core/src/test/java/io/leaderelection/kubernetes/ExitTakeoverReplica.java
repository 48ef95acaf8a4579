package io.leaderelection.kubernetes;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;

/**
 * One process in a Pod's container, running the default election in lease mode with exit
 * takeover on, with a client of its own, on the threads the auto-configuration gives it; its gate
 * intervals and fencing tokens are kept, on {@link System#nanoTime()}.
 */
final class ExitTakeoverReplica implements AutoCloseable, ElectionListener {

	static final String NAMESPACE = "team-a";

	static final String LEASE = "orders-leader";

	static final String ELECTION = "default";

	final String identity;

	private final KubernetesClient client;

	private final LeaderElectionThreads threads = new LeaderElectionThreads();

	private final KubernetesLeaseStores stores;

	final ElectionEngine engine;

	final List<Long> tokens = new CopyOnWriteArrayList<>();

	/** Gate intervals: [opened, closed], closed {@link Long#MAX_VALUE} while open. */
	final List<long[]> terms = new CopyOnWriteArrayList<>();

	private boolean closed;

	/**
	 * @param podName the Pod it runs in; {@code null} for a replica without exit takeover
	 * @param container the container it runs in, {@code null} for the Pod's only one
	 * @param started when its container's first process started, {@code null} when unknown: a status
	 * telling of a run started earlier is not its own
	 */
	ExitTakeoverReplica(MockApiServer server, String identity, String podName, String container, Instant started,
			ElectionSettings settings) {
		this.identity = identity;
		this.client = server.client(identity);
		this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
		if (podName != null) {
			this.stores.takeOverOnExit(NAMESPACE, podName, container, started);
		}
		this.engine = new ElectionEngine(identity, List.of(settings), this.stores, this.threads.runtime(),
				List.of(this));
		this.engine.start();
	}

	static ElectionSettings settings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
		return new ElectionSettings(ELECTION, NAMESPACE, LEASE, leaseDuration, renewDeadline, retryPeriod);
	}

	boolean isLeader() {
		return this.engine.isLeader(ELECTION);
	}

	/** The process is killed: it sends nothing more, releases nothing. */
	void kill() {
		close();
	}

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		this.terms.add(new long[] { gateOpenedAt, Long.MAX_VALUE });
		this.tokens.add(fencingToken);
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		this.terms.get(this.terms.size() - 1)[1] = gateClosedAt;
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		long killedAt = System.nanoTime();
		this.engine.stop(false);
		// a killed process's gate is gone with it
		if (!this.terms.isEmpty() && this.terms.get(this.terms.size() - 1)[1] == Long.MAX_VALUE) {
			this.terms.get(this.terms.size() - 1)[1] = killedAt;
		}
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
