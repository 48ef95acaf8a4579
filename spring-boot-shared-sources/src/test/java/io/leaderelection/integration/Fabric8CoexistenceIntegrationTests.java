package io.leaderelection.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Our replicas and fabric8's own {@code LeaderElector} campaign for one Lease with the same
 * timings; leadership moves between them and no two ever lead at once.
 */
class Fabric8CoexistenceIntegrationTests {

	private static final String LEASE = "it-leader";

	private final GateHistory history = new GateHistory();

	private final List<Replica> replicas = new ArrayList<>();

	private final CrudApiServer server = CrudApiServer.start();

	private NioReactor reactor;

	private Fabric8Candidate fabric8;

	@AfterEach
	void stopEverything() {
		if (this.fabric8 != null) {
			this.fabric8.stop();
		}
		this.replicas.forEach(Replica::close);
		this.reactor.close();
		this.server.close();
	}

	@Test
	void ourElectorAndFabric8sNeverLeadAtOnce() throws Exception {
		this.reactor = new NioReactor();
		int generation = 0;
		this.fabric8 = new Fabric8Candidate("fabric8-" + generation, this.server, this.history);
		await().atMost(Duration.ofSeconds(5)).until(this.fabric8::isLeading);
		this.replicas.add(Replica.start("ours-a", this.server, this.reactor, this.history, Map.of()));
		this.replicas.add(Replica.start("ours-b", this.server, this.reactor, this.history, Map.of()));
		int fabric8Terms = 0;
		int ourTerms = 0;
		for (int round = 0; round < 6; round++) {
			await().atMost(Duration.ofSeconds(10)).until(() -> leaders().size() == 1);
			Object leader = leaders().get(0);
			generation++;
			if (leader == this.fabric8) {
				fabric8Terms++;
				this.fabric8.stop();
				await().atMost(Duration.ofSeconds(10)).until(() -> leaders().size() == 1);
				this.fabric8 = new Fabric8Candidate("fabric8-" + generation, this.server, this.history);
			}
			else {
				ourTerms++;
				Replica ours = (Replica) leader;
				ours.close();
				this.replicas.remove(ours);
				this.replicas.add(Replica.start("ours-" + generation, this.server, this.reactor, this.history,
						Map.of()));
			}
		}
		assertThat(fabric8Terms).as("terms led by fabric8").isPositive();
		assertThat(ourTerms).as("terms led by our elector").isPositive();
		this.history.assertNoOverlap("default");
	}

	private List<Object> leaders() {
		List<Object> leaders = new ArrayList<>(this.replicas.stream().filter(Replica::isLeader).toList());
		if (this.fabric8.isLeading()) {
			leaders.add(this.fabric8);
		}
		return leaders;
	}

	/**
	 * fabric8 7.3.1's elector, its leadership taken from its callbacks. It is stopped without
	 * release: 7.3.1 writes the release before it calls onStopLeading, so with release its
	 * callbacks would report it leading after a follower could already have taken over.
	 */
	private static final class Fabric8Candidate {

		private final KubernetesClient client;

		private final CompletableFuture<?> campaign;

		private final AtomicBoolean leading = new AtomicBoolean();

		Fabric8Candidate(String identity, CrudApiServer server, GateHistory history) {
			this.client = server.client(identity);
			LeaderCallbacks callbacks = new LeaderCallbacks(() -> {
				long openedAt = System.nanoTime();
				// fabric8 has no fencing token: the resourceVersion it leaves on the Lease as it
				// starts leading is on the scale of ours, which are acquiring writes' versions
				long token = Long.parseLong(this.client.leases()
					.inNamespace(CrudApiServer.NAMESPACE)
					.withName(LEASE)
					.get()
					.getMetadata()
					.getResourceVersion());
				history.opened(identity, "default", token, openedAt);
				this.leading.set(true);
			}, () -> {
				this.leading.set(false);
				history.closed(identity, "default", System.nanoTime());
			}, (newLeader) -> {
			});
			this.campaign = this.client.leaderElector()
				.withConfig(new LeaderElectionConfigBuilder().withName(identity)
					.withLock(new LeaseLock(CrudApiServer.NAMESPACE, LEASE, identity))
					.withLeaseDuration(Duration.ofSeconds(2))
					.withRenewDeadline(Duration.ofSeconds(1))
					.withRetryPeriod(Duration.ofMillis(250))
					.withReleaseOnCancel(false)
					.withLeaderCallbacks(callbacks)
					.build())
				.build()
				.start();
		}

		boolean isLeading() {
			return this.leading.get();
		}

		void stop() {
			this.campaign.cancel(true);
			await().atMost(Duration.ofSeconds(5)).until(() -> !this.leading.get());
			this.client.close();
		}

		@Override
		public String toString() {
			return "fabric8";
		}

	}

}
