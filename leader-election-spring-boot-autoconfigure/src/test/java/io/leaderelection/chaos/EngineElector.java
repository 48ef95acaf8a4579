package io.leaderelection.chaos;

import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.autoconfigure.LeaderElectionThreads;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionRuntime;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

/**
 * This project's elector: an {@link ElectionEngine} on the threads the auto-configuration gives
 * it, with the replica's wall clock and pauses, and a fabric8 client through the replica's link.
 * Terms are recorded with the gate times the engine reports to its listeners.
 */
final class EngineElector implements Elector {

	@Override
	public String name() {
		return "this project";
	}

	@Override
	public Candidate start(ReplicaSlot slot, ChaosSettings settings, LeadershipHistory history, long seed) {
		return new EngineCandidate(slot, settings, history, seed);
	}

	private static final class EngineCandidate implements Candidate {

		private final String identity;

		private final KubernetesClient client;

		private final LeaderElectionThreads threads = new LeaderElectionThreads();

		private final ElectionEngine engine;

		private EngineCandidate(ReplicaSlot slot, ChaosSettings settings, LeadershipHistory history, long seed) {
			this.identity = slot.nextIdentity("ours");
			this.client = new KubernetesClientBuilder()
				.withConfig(ChaosApiServer.config(slot.link().port(), slot.name()).build())
				.build();
			ElectionRuntime production = this.threads.runtime();
			ElectionRuntime runtime = new ElectionRuntime(slot.pause().pausing(production.scheduler()),
					production.monotonicClock(), slot.wallClock(),
					slot.pause().pausing(production.callbackExecutor()), new Random(seed));
			this.engine = new ElectionEngine(this.identity, settings.electionSettings(),
					new KubernetesLeaseStores(this.client, slot.pause().pausing(this.threads.watchOpener())), runtime,
					List.of(history.recorder(this.identity)));
			this.engine.start();
		}

		@Override
		public String identity() {
			return this.identity;
		}

		@Override
		public boolean isLeader(String election) {
			return this.engine.isLeader(election);
		}

		@Override
		public void stopGracefully() {
			try {
				// The engine bounds the release by the renew deadline; this only guards the run.
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

		@Override
		public void kill() {
			this.engine.stop(false);
			close();
		}

		/** Lets the listener calls already made run, so that the history sees every term end. */
		private void close() {
			try {
				this.threads.destroy();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.client.close();
		}

		@Override
		public String toString() {
			return this.identity;
		}

	}

}
