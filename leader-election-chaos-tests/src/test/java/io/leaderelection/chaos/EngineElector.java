package io.leaderelection.chaos;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderStatus;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionHealth;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionRuntime;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderCalls;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

/**
 * This project's elector: an {@link ElectionEngine} on the threads the auto-configuration gives
 * it, with the replica's wall clock and pauses, a fabric8 client through the replica's link, and
 * the leader-only calls registered with {@link LeaderCalls} as the {@code @LeaderOnly}
 * interceptor registers them, drained for up to {@link ChaosSettings#DRAIN_TIMEOUT}. Terms are
 * recorded with the gate times the engine reports to its listeners.
 * <p>
 * A process follows its Leases from its start and campaigns up to a lease duration later, drawn
 * from its seed, as an application does whose elector follows while its context starts; for
 * life, it campaigns at once.
 * <p>
 * It campaigns on renewed Leases, or, {@link #forLife()}, leader-for-life: every election of
 * the run is then configured with {@link ElectionSettings#forLife}, the identity a process is
 * started with being the name of the Pod it runs in, which the run created before.
 */
final class EngineElector implements Elector {

	private final boolean forLife;

	/** On renewed Leases. */
	EngineElector() {
		this(false);
	}

	private EngineElector(boolean forLife) {
		this.forLife = forLife;
	}

	/** Leader-for-life: each process in a Pod, holding locks its Pod owns. */
	static EngineElector forLifeElector() {
		return new EngineElector(true);
	}

	@Override
	public String name() {
		return this.forLife ? "this project, for life" : "this project";
	}

	@Override
	public String identityPrefix() {
		return this.forLife ? "life" : "ours";
	}

	@Override
	public boolean forLife() {
		return this.forLife;
	}

	@Override
	public Candidate start(ReplicaSlot slot, String identity, String process, ChaosSettings settings,
			LeadershipHistory history, long seed) {
		List<ElectionSettings> elections = settings.electionSettings();
		if (this.forLife) {
			ElectionSettings.ForLife inPod = new ElectionSettings.ForLife(identity, null);
			elections = elections.stream().map((election) -> election.forLife(inPod)).toList();
		}
		return new EngineCandidate(slot, identity, process, null, elections, history, seed);
	}

	/** In lease mode with exit takeover: the Leases it holds name its container's run. */
	@Override
	public Candidate startInPod(ReplicaSlot slot, String identity, String process, String pod, ChaosSettings settings,
			LeadershipHistory history, long seed) {
		if (this.forLife) {
			return start(slot, identity, process, settings, history, seed);
		}
		return new EngineCandidate(slot, identity, process, pod, settings.electionSettings(), history, seed);
	}

	private static final class EngineCandidate implements Candidate {

		private static final long NOT_KILLED = Long.MIN_VALUE;

		private final String identity;

		private final String process;

		private final LeadershipHistory history;

		private final List<String> elections;

		private final KubernetesClient client;

		private final LeaderElectionThreads threads = new LeaderElectionThreads();

		private final LeaderCalls calls = new LeaderCalls();

		/** The elections to step down from at the next listener call of each. */
		private final Set<String> yields = ConcurrentHashMap.newKeySet();

		/** The elector's own client: closed with the process, so that its calls in flight die with it. */
		private final KubernetesLeaseStores stores;

		private final ElectionEngine engine;

		/** When the process was killed, on the engine's monotonic clock; {@link #NOT_KILLED} before. */
		private volatile long killedAt = NOT_KILLED;

		/** Whether the process was stopped or killed; guarded by this. */
		private boolean ended;

		/** @param pod the Pod it runs in, with exit takeover; {@code null} for none */
		private EngineCandidate(ReplicaSlot slot, String identity, String process, String pod,
				List<ElectionSettings> elections, LeadershipHistory history, long seed) {
			this.identity = identity;
			this.process = process;
			this.history = history;
			this.elections = elections.stream().map(ElectionSettings::name).toList();
			this.client = new KubernetesClientBuilder().withConfig(slot.clientConfig().build()).build();
			ElectionRuntime production = this.threads.runtime();
			ElectionRuntime runtime = new ElectionRuntime(slot.pause().pausing(production.scheduler()),
					production.monotonicClock(), slot.wallClock(),
					slot.pause().pausing(production.callbackExecutor()), new Random(seed));
			this.stores = new KubernetesLeaseStores(this.client, slot.pause().pausing(this.threads.blockingCalls()),
					this.threads.requests());
			if (pod != null) {
				this.stores.takeOverOnExit(ChaosSettings.NAMESPACE, pod, null, null);
			}
			this.engine = new ElectionEngine(this.identity, elections, this.stores, runtime,
					List.of(new Recorder(), new Yielder()), this.calls, ChaosSettings.DRAIN_TIMEOUT);
			if (elections.stream().anyMatch((election) -> election.forLife() != null)) {
				try {
					this.engine.start();
				}
				catch (RuntimeException ex) {
					// for life, the Pod could not be read: the process exits, as its container would
					close();
					throw ex;
				}
				return;
			}
			// As the auto-configuration does: following from the elector's creation, campaigning
			// once the application has started, up to a lease duration later.
			this.engine.follow();
			// drawn apart from the engine's own jitter, which the same seed seeds
			long startingFor = new Random(~seed).nextLong(elections.get(0).leaseDuration().toNanos() + 1);
			runtime.scheduler().schedule(this::campaign, startingFor);
		}

		/** Campaigns, unless the process ended while it was starting. */
		private synchronized void campaign() {
			if (!this.ended) {
				this.engine.start();
			}
		}

		@Override
		public String identity() {
			return this.identity;
		}

		@Override
		public Call enter(String election, String what) {
			LeaderCalls.Call call = this.calls.enter(election, false, what);
			return (call != null) ? call::exit : null;
		}

		@Override
		public boolean isLeader(String election) {
			return this.engine.isLeader(election);
		}

		@Override
		public Long fencingToken(String election) {
			return this.engine.status(election).fencingToken();
		}

		@Override
		public String holderSeen(String election) {
			return this.engine.status(election).holderIdentity();
		}

		@Override
		public boolean tellsHolderSeen() {
			return true;
		}

		@Override
		public String describe(String election) {
			LeaderStatus status = this.engine.status(election);
			ElectionHealth health = this.engine.health(election);
			return this.process + (status.leader() ? " leads" : " follows") + ", holder seen "
					+ status.holderIdentity() + ", renewed " + status.renewTime() + ", "
					+ ((status.group() != null) ? "group: " + status.group().held() + " of " + status.group().leases()
							+ " held here, " + status.group().members() + " members live, " : "")
					+ "last attempt " + ((health.sinceLastAttempt() != null)
							? health.sinceLastAttempt().toMillis() + " ms ago" : "never")
					+ ", failing for " + health.failingFor().toMillis() + " ms, last error " + health.lastError();
		}

		@Override
		public void stepDown(String election, boolean fromListener) {
			if (fromListener) {
				this.yields.add(election);
			}
			else {
				this.engine.stepDown(election);
			}
		}

		@Override
		public List<String> identityConflicts() {
			return this.elections.stream()
				.filter((election) -> this.engine.health(election).identityConflict() != null)
				.toList();
		}

		@Override
		public void stopGracefully() {
			end();
			try {
				// The engine bounds the drain and the release; this only guards the run.
				this.engine.stop(true).get(ChaosSettings.RECOVERY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new IllegalStateException(this.identity + " did not stop within " + ChaosSettings.RECOVERY_TIMEOUT, ex);
			}
			close();
		}

		/**
		 * Stops the engine without a release; the engine reports the terms it ends as ended by
		 * shutdown, which the history records as the process killed.
		 */
		@Override
		public void kill() {
			this.killedAt = System.nanoTime();
			end();
			this.engine.stop(false);
			close();
		}

		/** No campaign starts from now on; one that started has ended it first. */
		private synchronized void end() {
			this.ended = true;
		}

		/** Lets the listener calls already made run, so that the history sees every term end. */
		private void close() {
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
			return this.process;
		}

		/** Records the process's terms with the gate times the engine reports. */
		private final class Recorder implements ElectionListener {

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				EngineCandidate.this.history.opened(EngineCandidate.this.process, election, fencingToken, gateOpenedAt);
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				long killed = EngineCandidate.this.killedAt;
				if (killed != NOT_KILLED && gateClosedAt - killed >= 0) {
					EngineCandidate.this.history.closed(EngineCandidate.this.process, election, gateClosedAt,
							"process killed", false);
				}
				else {
					EngineCandidate.this.history.closed(EngineCandidate.this.process, election, gateClosedAt,
							cause.name(), !cause.isLost());
				}
			}

		}

		/**
		 * Steps down on a listener thread, as an application's event listener calls
		 * {@code Context.yield()}: at the election's next renewal; a yield whose term ends first is
		 * dropped.
		 */
		private final class Yielder implements ElectionListener {

			@Override
			public void renewed(String election, boolean success, long nanos) {
				if (EngineCandidate.this.yields.remove(election)) {
					EngineCandidate.this.engine.stepDown(election);
				}
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				EngineCandidate.this.yields.remove(election);
			}

		}

	}

}
