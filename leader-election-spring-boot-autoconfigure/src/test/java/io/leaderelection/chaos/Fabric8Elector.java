package io.leaderelection.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.leaderelection.baseline.fabric8.Fabric8Baseline;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * fabric8's {@code LeaderElector} as a baseline, its leadership taken from its callbacks: a term
 * opens when it calls {@code onStartLeading} and closes when it calls {@code onStopLeading}, as
 * an application built on it would see. A new {@code LeaderElector} campaigns a retry period
 * after one ends, as spring-cloud-kubernetes' leader initiator does. The client uses fabric8's
 * defaults scaled like the election timings (request and connection timeout 10 s, retries on I/O
 * errors and 5xx ten times from 100 ms, doubling).
 */
final class Fabric8Elector implements Elector {

	private final Fabric8Baseline fabric8;

	private Fabric8Elector(Fabric8Baseline fabric8) {
		this.fabric8 = fabric8;
	}

	/** The fabric8 version the tests run with, from the test class path. */
	static Fabric8Elector onTestClassPath() {
		return new Fabric8Elector(Fabric8Baseline.onClassPath());
	}

	/** Another fabric8 version, from a file listing its jars, loaded apart from the test's own fabric8. */
	static Fabric8Elector isolated(Path classPathFile) {
		return new Fabric8Elector(Fabric8Baseline.isolated(classPathFile));
	}

	String version() {
		return this.fabric8.version();
	}

	@Override
	public String name() {
		return "fabric8 " + this.fabric8.version();
	}

	@Override
	public Candidate start(ReplicaSlot slot, ChaosSettings settings, LeadershipHistory history, long seed) {
		return new Fabric8Candidate(slot, settings, history);
	}

	private final class Fabric8Candidate implements Candidate {

		private final String identity;

		private final LeadershipHistory history;

		private final Map<String, Boolean> leading = new HashMap<>();

		private final ExecutorService threads;

		private final Fabric8Baseline.Client client;

		private final List<Runnable> cancels = new ArrayList<>();

		private boolean dead;

		Fabric8Candidate(ReplicaSlot slot, ChaosSettings settings, LeadershipHistory history) {
			this.identity = slot.nextIdentity("fabric8");
			this.history = history;
			CustomizableThreadFactory threadFactory = new CustomizableThreadFactory(this.identity + "-");
			threadFactory.setDaemon(true);
			this.threads = Executors.newCachedThreadPool(threadFactory);
			this.client = Fabric8Elector.this.fabric8.client("http://127.0.0.1:" + slot.link().port(),
					ChaosSettings.NAMESPACE, Map.of(ChaosApiServer.CLIENT_HEADER, slot.name()),
					ChaosSettings.scaled(Duration.ofSeconds(10)), ChaosSettings.scaled(Duration.ofSeconds(10)),
					ChaosSettings.scaled(Duration.ofMillis(100)), 10);
			Executor executor = slot.pause().pausing(this.threads);
			for (String election : settings.electionNames()) {
				this.cancels.add(this.client.campaign(ChaosSettings.NAMESPACE, settings.leaseName(election),
						this.identity, ChaosSettings.LEASE_DURATION, ChaosSettings.RENEW_DEADLINE,
						ChaosSettings.RETRY_PERIOD, true, true, executor, slot::clockOffset,
						() -> startedLeading(election), () -> stoppedLeading(election)));
			}
		}

		@Override
		public String identity() {
			return this.identity;
		}

		@Override
		public synchronized boolean isLeader(String election) {
			return this.leading.getOrDefault(election, false);
		}

		private synchronized void startedLeading(String election) {
			if (!this.dead) {
				this.history.opened(this.identity, election, null, System.nanoTime());
				this.leading.put(election, true);
			}
		}

		private synchronized void stoppedLeading(String election) {
			if (!this.dead) {
				this.leading.put(election, false);
				this.history.closed(this.identity, election, System.nanoTime(), "onStopLeading");
			}
		}

		/** Cancels every elector, as an application does on shutdown; fabric8 releases held Leases. */
		@Override
		public void stopGracefully() {
			this.cancels.forEach(Runnable::run);
			this.client.close();
			endTerms();
			this.threads.shutdownNow();
		}

		/**
		 * Closes the client first, so that nothing more is sent. fabric8 cancels in the calling
		 * thread and may wait there for an elector stuck on a request the closed client never
		 * completes, so the electors are cancelled on a thread of their own.
		 */
		@Override
		public void kill() {
			endTerms();
			this.client.close();
			Thread cancelling = new Thread(() -> this.cancels.forEach(Runnable::run), this.identity + "-kill");
			cancelling.setDaemon(true);
			cancelling.start();
			this.threads.shutdownNow();
		}

		/**
		 * From now on this process leads nothing and its callbacks are ignored. Called outside the
		 * campaign's calls: fabric8 calls back while holding its elector's lock.
		 */
		private synchronized void endTerms() {
			this.dead = true;
			long now = System.nanoTime();
			this.leading.forEach((election, leads) -> {
				if (leads) {
					this.history.closed(this.identity, election, now, "process ended");
				}
			});
			this.leading.clear();
		}

		@Override
		public String toString() {
			return this.identity;
		}

	}

}
