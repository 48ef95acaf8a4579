package io.leaderelection.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.Config;
import io.leaderelection.baseline.fabric8.Fabric8Baseline;
import io.leaderelection.engine.DaemonThreads;

/**
 * fabric8's {@code LeaderElector} as a baseline, its leadership taken from its callbacks: a term
 * opens when it calls {@code onStartLeading} and closes when it calls {@code onStopLeading}, as
 * an application built on it would see. A new {@code LeaderElector} campaigns a retry period
 * after one ends, as spring-cloud-kubernetes' leader initiator does. The client uses fabric8's
 * defaults scaled like the election timings (request and connection timeout 10 s, retries on I/O
 * errors and 5xx ten times from 100 ms, doubling).
 * <p>
 * fabric8's elector has no scheduler to stop. A pause of the replica ({@link Pause}) holds what
 * it can reach: every round of the elector's loop and every callback wait on the executor it is
 * given, and a round under way waits before it sends a write and after a read that found the
 * Lease (where the elector reads the replica's clock offset). A round under way still acts on a
 * read that found no Lease by creating it, which then waits until the pause ends: a process
 * stopped right after that read does the same once it runs again.
 * <p>
 * fabric8 has no registry of leader-only calls and no drain: a graceful stop or a step-down
 * cancels the election's {@code LeaderElector} with release on cancel, as the library does it,
 * and leader-only calls under way go on meanwhile. A step-down campaigns again a lease duration
 * later, as this project's elector stays out; a yield is the same step-down, as fabric8 calls
 * back on no thread of ours to yield from.
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
	public String identityPrefix() {
		return "fabric8";
	}

	@Override
	public Candidate start(ReplicaSlot slot, String identity, String process, ChaosSettings settings,
			LeadershipHistory history, long seed) {
		return new Fabric8Candidate(slot, identity, process, settings, history);
	}

	private final class Fabric8Candidate implements Candidate {

		private static final String STEPPED_DOWN = "stepped down: cancelled with release";

		private static final String STOPPED = "stopped: cancelled with release";

		private static final String KILLED = "process killed";

		private final String identity;

		private final String process;

		private final ChaosSettings settings;

		private final LeadershipHistory history;

		private final ExecutorService threads;

		private final Executor executor;

		private final ReplicaSlot slot;

		private final Fabric8Baseline.Client client;

		/** The current campaign of each election; guarded by this. */
		private final Map<String, Campaign> campaigns = new HashMap<>();

		/** Whether campaigns may start again after a step-down; false once the process stops. */
		private boolean campaigning = true;

		/** Whether the process has stopped or died: its callbacks are ignored. */
		private boolean dead;

		Fabric8Candidate(ReplicaSlot slot, String identity, String process, ChaosSettings settings,
				LeadershipHistory history) {
			this.identity = identity;
			this.process = process;
			this.settings = settings;
			this.history = history;
			this.slot = slot;
			this.threads = Executors.newCachedThreadPool(DaemonThreads.named(process + "-"));
			this.executor = slot.pause().pausing(this.threads);
			Config config = slot.clientConfig().build();
			this.client = Fabric8Elector.this.fabric8.client(config.getMasterUrl(), ChaosSettings.NAMESPACE,
					config.getCustomHeaders(), config.getOauthToken(), ChaosSettings.scaled(Duration.ofSeconds(10)),
					ChaosSettings.scaled(Duration.ofSeconds(10)), ChaosSettings.scaled(Duration.ofMillis(100)), 10);
			synchronized (this) {
				settings.electionNames().forEach(this::campaign);
			}
		}

		/** Starts a new campaign in the election; guarded by this. */
		private void campaign(String election) {
			Campaign campaign = new Campaign(election);
			this.campaigns.put(election, campaign);
			campaign.cancel = this.client.campaign(ChaosSettings.NAMESPACE, this.settings.leaseName(election),
					this.identity, ChaosSettings.LEASE_DURATION, ChaosSettings.RENEW_DEADLINE,
					ChaosSettings.RETRY_PERIOD, true, true, this.executor, this::clockOffsetOnceResumed,
					() -> startedLeading(campaign), () -> stoppedLeading(campaign));
		}

		/**
		 * The replica's clock offset, which fabric8's elector reads before every write it sends
		 * and after every read that found the Lease: while the replica is paused, its elector
		 * waits there, so that it sends no write and acts on no Lease it read until the pause
		 * ends, as a stopped process would.
		 */
		private Duration clockOffsetOnceResumed() {
			this.slot.pause().checkpoint();
			return this.slot.clockOffset();
		}

		@Override
		public String identity() {
			return this.identity;
		}

		/** fabric8 keeps no account of leader-only calls: every call may run, none is waited for. */
		@Override
		public Call enter(String election, String what) {
			return () -> {
			};
		}

		@Override
		public synchronized boolean isLeader(String election) {
			Campaign campaign = this.campaigns.get(election);
			return campaign != null && campaign.leading;
		}

		/** Cancels the election's campaign with release, and campaigns again a lease duration later. */
		@Override
		public void stepDown(String election, boolean fromListener) {
			Campaign campaign;
			synchronized (this) {
				campaign = this.campaigns.get(election);
				if (!this.campaigning || campaign.ending != null) {
					return;
				}
				campaign.ending = STEPPED_DOWN;
			}
			campaign.cancel.run();
			synchronized (this) {
				endTerm(campaign, System.nanoTime());
			}
			CompletableFuture.delayedExecutor(ChaosSettings.LEASE_DURATION.toMillis(), TimeUnit.MILLISECONDS,
					this.executor)
				.execute(() -> campaignAgain(election));
		}

		private synchronized void campaignAgain(String election) {
			if (this.campaigning) {
				campaign(election);
			}
		}

		private synchronized void startedLeading(Campaign campaign) {
			if (!this.dead && campaign.ending == null) {
				this.history.opened(this.process, campaign.election, null, System.nanoTime());
				campaign.leading = true;
			}
		}

		/** fabric8 lost or gave up the Lease; while a campaign is being cancelled, the latter. */
		private synchronized void stoppedLeading(Campaign campaign) {
			if (!this.dead && campaign.leading) {
				campaign.leading = false;
				boolean cancelled = campaign.ending != null;
				this.history.closed(this.process, campaign.election, System.nanoTime(),
						cancelled ? campaign.ending : "onStopLeading", cancelled);
			}
		}

		/** fabric8 does not tell apart another process writing under its identity from itself. */
		@Override
		public List<String> identityConflicts() {
			return List.of();
		}

		/** Cancels every elector, as an application does on shutdown; fabric8 releases held Leases. */
		@Override
		public void stopGracefully() {
			List<Campaign> cancelled;
			synchronized (this) {
				this.campaigning = false;
				cancelled = new ArrayList<>(this.campaigns.values());
				cancelled.forEach((campaign) -> campaign.ending = STOPPED);
			}
			cancelled.forEach((campaign) -> campaign.cancel.run());
			this.client.close();
			endTerms(STOPPED);
			this.threads.shutdownNow();
		}

		/**
		 * Closes the client first, so that nothing more is sent. fabric8 cancels in the calling
		 * thread and may wait there for an elector stuck on a request the closed client never
		 * completes, so the electors are cancelled on a thread of their own.
		 */
		@Override
		public void kill() {
			List<Campaign> cancelled = endTerms(KILLED);
			this.client.close();
			Thread cancelling = new Thread(() -> cancelled.forEach((campaign) -> campaign.cancel.run()),
					this.process + "-kill");
			cancelling.setDaemon(true);
			cancelling.start();
			this.threads.shutdownNow();
		}

		/**
		 * From now on this process leads nothing and its callbacks are ignored. Called outside the
		 * campaign's calls: fabric8 calls back while holding its elector's lock.
		 * @return every campaign
		 */
		private synchronized List<Campaign> endTerms(String reason) {
			long now = System.nanoTime();
			this.campaigning = false;
			this.dead = true;
			for (Campaign campaign : this.campaigns.values()) {
				if (campaign.ending == null) {
					campaign.ending = reason;
				}
				endTerm(campaign, now);
			}
			return new ArrayList<>(this.campaigns.values());
		}

		/** Closes the campaign's term, if open, for the reason it is ending; guarded by this. */
		private void endTerm(Campaign campaign, long at) {
			if (campaign.leading) {
				campaign.leading = false;
				this.history.closed(this.process, campaign.election, at, campaign.ending, !KILLED.equals(campaign.ending));
			}
		}

		@Override
		public String toString() {
			return this.process;
		}

		/** One fabric8 {@code LeaderElector} campaign in an election, with its callbacks' state. */
		private static final class Campaign {

			private final String election;

			private Runnable cancel;

			private boolean leading;

			/** Why the campaign is being cancelled; {@code null} while it runs. */
			private String ending;

			Campaign(String election) {
				this.election = election;
			}

		}

	}

}
