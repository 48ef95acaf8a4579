package io.leaderelection.benchmarks.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderStatus;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.engine.LeaderWork;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

/**
 * This project's engine, built as the auto-configuration builds it: one engine per replica on
 * its own threads ({@link LeaderElectionThreads}) and its own fabric8 client. Its leaders renew
 * every retry period unless it was made with {@link #renewingEvery}.
 */
public final class OurImplementation implements Implementation {

	private final String key;

	private final String label;

	private final Function<Timings, Duration> renewPeriod;

	/** Leaders renewing every retry period ({@code ElectionSettings}' six-argument constructor). */
	public OurImplementation() {
		this("ours", "this project", Timings::retryPeriod);
	}

	private OurImplementation(String key, String label, Function<Timings, Duration> renewPeriod) {
		this.key = key;
		this.label = label;
		this.renewPeriod = renewPeriod;
	}

	/**
	 * Leaders renewing every given period ({@link ElectionSettings#renewingEvery}), told apart from
	 * other variants by the key (in Lease and client names) and the label.
	 */
	public static OurImplementation renewingEvery(String key, String label, Function<Timings, Duration> renewPeriod) {
		return new OurImplementation(key, label, renewPeriod);
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String label() {
		return this.label;
	}

	@Override
	public Duration renewPeriod(Timings timings) {
		return this.renewPeriod.apply(timings);
	}

	@Override
	public boolean followersWatch() {
		return true;
	}

	/** A fabric8 client with fabric8's defaults, on a loopback port, naming itself in a header. */
	public static KubernetesClient client(int port, String clientName) {
		return client(ApiServer.accessAt(port, clientName));
	}

	/** A fabric8 client with fabric8's defaults, reaching its server as given. */
	public static KubernetesClient client(ClientAccess access) {
		return new KubernetesClientBuilder().withConfig(access.config()).build();
	}

	/** An election on a renewed Lease, its leader renewing every retry period. */
	public static ElectionSettings settings(String name, String namespace, String leaseName, Timings timings) {
		return new ElectionSettings(name, namespace, leaseName, timings.leaseDuration(), timings.renewDeadline(),
				timings.retryPeriod()).renewingEvery(timings.retryPeriod());
	}

	/** An election on a renewed Lease, its leader renewing every {@link #renewPeriod(Timings)}. */
	public ElectionSettings election(String name, String namespace, String leaseName, Timings timings) {
		return settings(name, namespace, leaseName, timings).renewingEvery(renewPeriod(timings));
	}

	@Override
	public Candidate candidate(String identity, ClientAccess access, String leaseName, Timings timings,
			boolean releaseOnStop, Candidate.Gates gates) {
		return new OurCandidate(identity, access, election("default", access.namespace(), leaseName, timings),
				releaseOnStop, gates);
	}

	/** One engine with every election, on one client and its own threads, as one replica runs them. */
	@Override
	public ElectionGroup elections(int port, String clientName, String namespace, int count, Timings timings) {
		KubernetesClient client = client(port, clientName);
		List<ElectionSettings> settings = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			settings.add(election("e" + i, namespace, "lease-" + i, timings));
		}
		AtomicInteger losses = new AtomicInteger();
		ElectionListener countingLosses = new ElectionListener() {
			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				losses.incrementAndGet();
			}
		};
		LeaderElectionThreads threads = new LeaderElectionThreads();
		KubernetesLeaseStores stores = new KubernetesLeaseStores(client, threads.blockingCalls(), threads.requests());
		ElectionEngine engine = new ElectionEngine(clientName, settings, stores, threads.runtime(),
				List.of(countingLosses));
		engine.start();
		return new ElectionGroup() {

			@Override
			public int leading() {
				return (int) engine.statuses().values().stream().filter(LeaderStatus::leader).count();
			}

			@Override
			public int losses() {
				return losses.get();
			}

			@Override
			public void close() {
				try {
					engine.stop(false).get(30, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					throw new IllegalStateException(clientName + " did not stop", ex);
				}
				finally {
					try {
						threads.close();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					stores.close();
					client.close();
				}
			}
		};
	}

	/**
	 * One replica's engine on its own client and threads: a candidate in one election, whose
	 * engine harnesses may also drive directly.
	 */
	public static final class OurCandidate implements Candidate {

		private final String identity;

		private final boolean releaseOnStop;

		private final KubernetesClient client;

		private final LeaderElectionThreads threads = new LeaderElectionThreads();

		private final KubernetesLeaseStores stores;

		private final ElectionEngine engine;

		private boolean running;

		public OurCandidate(String identity, ClientAccess access, ElectionSettings settings, boolean releaseOnStop,
				Candidate.Gates gates) {
			this(identity, access, settings, releaseOnStop, new ElectionListener() {
				@Override
				public void granted(String election, long fencingToken, long gateOpenedAt) {
					gates.opened(gateOpenedAt);
				}

				@Override
				public void revoked(String election, RevocationCause cause, long gateClosedAt) {
					gates.closed(gateClosedAt);
				}
			}, LeaderWork.NONE);
		}

		/**
		 * @param work the leader work the engine drains before a release of its own accord, as
		 * the auto-configuration's {@code LeaderCalls}
		 */
		public OurCandidate(String identity, ClientAccess access, ElectionSettings settings, boolean releaseOnStop,
				ElectionListener listener, LeaderWork work) {
			this.identity = identity;
			this.releaseOnStop = releaseOnStop;
			this.client = client(access);
			this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
			this.engine = new ElectionEngine(identity, List.of(settings), this.stores, this.threads.runtime(),
					List.of(listener), work, ElectionEngine.DEFAULT_DRAIN_TIMEOUT);
		}

		public ElectionEngine engine() {
			return this.engine;
		}

		@Override
		public String identity() {
			return this.identity;
		}

		@Override
		public Object lastSeenRenewal() {
			return this.engine.status("default").renewTime();
		}

		@Override
		public synchronized void start() {
			this.running = true;
			this.engine.start();
		}

		@Override
		public void stop() {
			stop(this.releaseOnStop);
		}

		/** Stops campaigning, releasing a held Lease or not, and returns once the engine has stopped. */
		public synchronized void stop(boolean release) {
			if (this.running) {
				this.running = false;
				try {
					this.engine.stop(release).get(30, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					throw new IllegalStateException(this.identity + " did not stop", ex);
				}
			}
		}

		@Override
		public void close() {
			try {
				stop();
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

}
