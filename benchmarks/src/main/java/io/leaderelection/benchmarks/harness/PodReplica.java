package io.leaderelection.benchmarks.harness;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderStatus;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

/**
 * One application process in its own Pod: this project's engine with one election, in lease mode
 * or for-life, built as the auto-configuration builds it (its own {@link LeaderElectionThreads},
 * its own fabric8 client naming the Pod in {@link ApiServer#CLIENT_HEADER}). Its gate's first
 * opening and closing are kept on the engine's clock ({@link System#nanoTime()}).
 */
public final class PodReplica implements AutoCloseable {

	public static final String ELECTION = "default";

	private final String pod;

	private final KubernetesClient client;

	private final LeaderElectionThreads threads = new LeaderElectionThreads();

	private final KubernetesLeaseStores stores;

	private final ElectionEngine engine;

	private final CompletableFuture<Long> opened = new CompletableFuture<>();

	private final CompletableFuture<Long> closed = new CompletableFuture<>();

	private boolean stopped;

	private boolean closedDown;

	/**
	 * @param pod the Pod it runs in, which must exist before {@link #start()} for-life; also its
	 * identity in lease mode and its client's name
	 */
	public PodReplica(ApiServer server, String pod, String lockName, Timings timings, boolean forLife) {
		this(server, pod, lockName, timings, forLife, false);
	}

	/**
	 * @param exitTakeover whether, in lease mode, it names its container's run in the Leases it holds
	 * and takes a Lease over when the kubelet reports its holder's run ended; its Pod's only container
	 * must then be reported running
	 */
	public PodReplica(ApiServer server, String pod, String lockName, Timings timings, boolean forLife, boolean exitTakeover) {
		this.pod = pod;
		this.client = OurImplementation.client(server.port(), pod);
		ElectionSettings settings = OurImplementation.settings(ELECTION, ApiServer.NAMESPACE, lockName, timings);
		if (forLife) {
			settings = settings.forLife(new ElectionSettings.ForLife(pod, null));
		}
		ElectionListener listener = new ElectionListener() {
			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				PodReplica.this.opened.complete(gateOpenedAt);
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				if (PodReplica.this.opened.isDone()) {
					PodReplica.this.closed.complete(gateClosedAt);
				}
			}
		};
		this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
		if (exitTakeover) {
			this.stores.takeOverOnExit(ApiServer.NAMESPACE, pod, null, null);
		}
		this.engine = new ElectionEngine(pod, List.of(settings), this.stores, this.threads.runtime(),
				List.of(listener));
	}

	public String pod() {
		return this.pod;
	}

	/** The holderIdentity it writes: its Pod's name in both modes here. */
	public String holder() {
		return this.pod;
	}

	public PodReplica start() {
		this.engine.start();
		return this;
	}

	/** When its gate first opened; completes when it does. */
	public CompletableFuture<Long> opened() {
		return this.opened;
	}

	/** When its gate first closed after opening; completes when it does. */
	public CompletableFuture<Long> closed() {
		return this.closed;
	}

	public boolean isLeader() {
		return this.engine.isLeader(ELECTION);
	}

	public LeaderStatus status() {
		return this.engine.status(ELECTION);
	}

	/** The renewTime of the last version of the Lease it saw (lease mode: changes with every renewal). */
	public Object lastSeenRenewal() {
		return status().renewTime();
	}

	/** Whether it has seen the given holder hold the Lease or lock. */
	public boolean sees(String holder) {
		return Objects.equals(holder, status().holderIdentity());
	}

	/**
	 * SIGTERM: stops as the application's shutdown does with release-on-shutdown, returning once
	 * the release (for-life: the release and the lock's deletion) was answered.
	 */
	public void stopReleasing() {
		stop(true);
	}

	/**
	 * The process is gone (killed, or its Pod force-deleted): it sends nothing more and releases
	 * nothing; its connections close. {@code engine.stop(false)}, then its threads and client go.
	 */
	public void kill() {
		close();
	}

	private synchronized void stop(boolean release) {
		if (this.stopped) {
			return;
		}
		this.stopped = true;
		try {
			this.engine.stop(release).get(60, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(this.pod + " was interrupted while stopping", ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException(this.pod + " did not stop", ex);
		}
	}

	@Override
	public synchronized void close() {
		if (this.closedDown) {
			return;
		}
		this.closedDown = true;
		try {
			stop(false);
		}
		finally {
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

}
