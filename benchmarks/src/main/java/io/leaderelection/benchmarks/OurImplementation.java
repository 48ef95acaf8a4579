package io.leaderelection.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.engine.RevocationCause;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

/**
 * This project's engine, built as the auto-configuration builds it: one engine per replica on
 * its own threads ({@link LeaderElectionThreads}) and its own fabric8 client.
 */
final class OurImplementation implements Implementation {

	@Override
	public String key() {
		return "ours";
	}

	@Override
	public String label() {
		return "this project";
	}

	@Override
	public boolean followersWatch() {
		return true;
	}

	/** A fabric8 client with fabric8's defaults, on a loopback port, naming itself in a header. */
	static KubernetesClient client(int port, String clientName) {
		return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + port)
			.withNamespace(ApiServer.NAMESPACE)
			.withCustomHeaders(Map.of(ApiServer.CLIENT_HEADER, clientName))
			.build()).build();
	}

	static ElectionSettings settings(String name, String namespace, String leaseName, Timings timings) {
		return new ElectionSettings(name, namespace, leaseName, timings.leaseDuration(), timings.renewDeadline(),
				timings.retryPeriod());
	}

	@Override
	public Candidate candidate(String identity, int port, String leaseName, Timings timings, boolean releaseOnStop,
			Candidate.Gates gates) {
		return new OurCandidate(identity, port, leaseName, timings, releaseOnStop, gates);
	}

	private static final class OurCandidate implements Candidate {

		private final String identity;

		private final boolean releaseOnStop;

		private final KubernetesClient client;

		private final LeaderElectionThreads threads = new LeaderElectionThreads();

		private final KubernetesLeaseStores stores;

		private final ElectionEngine engine;

		private boolean running;

		OurCandidate(String identity, int port, String leaseName, Timings timings, boolean releaseOnStop,
				Candidate.Gates gates) {
			this.identity = identity;
			this.releaseOnStop = releaseOnStop;
			this.client = client(port, identity);
			ElectionListener listener = new ElectionListener() {
				@Override
				public void granted(String election, long fencingToken, long gateOpenedAt) {
					gates.opened(gateOpenedAt);
				}

				@Override
				public void revoked(String election, RevocationCause cause, long gateClosedAt) {
					gates.closed(gateClosedAt);
				}
			};
			this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls());
			this.engine = new ElectionEngine(identity,
					List.of(settings("default", ApiServer.NAMESPACE, leaseName, timings)), this.stores,
					this.threads.runtime(), List.of(listener));
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
		public synchronized void stop() {
			if (this.running) {
				this.running = false;
				try {
					this.engine.stop(this.releaseOnStop).get(30, TimeUnit.SECONDS);
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
