package io.leaderelection.integration;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three replicas, each its own Spring context, client, identity and TCP proxy, electing a leader
 * on fabric8's CRUD mock API server with lease 2s, renew deadline 1s, retry 250ms.
 */
class ReplicaElectionIntegrationTests {

	private static final Duration RENEW_DEADLINE = Duration.ofSeconds(1);

	private static final Duration LEASE_DURATION = Duration.ofSeconds(2);

	private static final Duration RETRY_PERIOD = Duration.ofMillis(250);

	private static NioReactor reactor;

	private final GateHistory history = new GateHistory();

	private final List<Replica> replicas = new ArrayList<>();

	private CrudApiServer server;

	@BeforeAll
	static void startReactor() throws Exception {
		reactor = new NioReactor();
	}

	@AfterAll
	static void stopReactor() {
		reactor.close();
	}

	@BeforeEach
	void startServer() {
		this.server = CrudApiServer.start();
	}

	@AfterEach
	void stopEverything() {
		this.replicas.forEach(Replica::close);
		this.server.close();
	}

	@Test
	void exactlyOneOfThreeReplicasLeads() {
		startReplicas("r1", "r2", "r3");
		Replica leader = awaitLeader();
		await().during(LEASE_DURATION.multipliedBy(2)).atMost(LEASE_DURATION.multipliedBy(3)).until(() -> leaders().size() == 1
				&& leaders().get(0) == leader);
		Lease lease = lease();
		assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(leader.name());
		assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(2);
		this.history.assertNoOverlap("default");
	}

	@Test
	void aGracefulShutdownOfTheLeaderHandsOverWithinAboutOneRetryPeriod() {
		startReplicas("r1", "r2", "r3");
		for (int handover = 0; handover < 2; handover++) {
			Replica leader = awaitLeader();
			long token = leader.elector().status("default").fencingToken();
			// The application stops (and releases) first; its connections close once the successor
			// leads. fabric8's mock server now and then applies a write that races with another
			// client's connections closing but never answers it, so the claim would wait out its
			// timeout and this would time the mock server, not the handover.
			leader.context().close();
			Replica successor = awaitLeader();
			leader.close();
			this.replicas.remove(leader);
			GateHistory.Interval released = intervalOf(leader, token);
			GateHistory.Interval taken = this.history.last();
			assertThat(taken.replica).isEqualTo(successor.name());
			long handoverMillis = TimeUnit.NANOSECONDS.toMillis(taken.openedAt - released.closedAt);
			System.out.printf("graceful handover %s -> %s: %d ms%n", leader, successor, handoverMillis);
			// Without the release a follower would wait a whole lease duration (2s) from its last look.
			assertThat(handoverMillis).as("handover in ms").isLessThan(RETRY_PERIOD.multipliedBy(2).toMillis());
			assertThat(taken.fencingToken).isGreaterThan(token);
		}
		this.history.assertNoOverlap("default");
	}

	@Test
	void aBlackHoledLeaderClosesItsGateWithinTheRenewDeadlineBeforeTheSuccessorOpens() {
		startReplicas("r1", "r2", "r3");
		Replica leader = awaitLeader();
		long token = leader.elector().status("default").fencingToken();
		long cutAt = System.nanoTime();
		leader.blackHole();
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(() -> leaders().size() == 1 && leaders().get(0) != leader);
		GateHistory.Interval cut = intervalOf(leader, token);
		assertThat(cut.closedAt).isNotNull();
		assertThat(cut.closedAt - cutAt).as("gate closed after the cut, in ns").isLessThanOrEqualTo(RENEW_DEADLINE.toNanos());
		System.out.printf("black hole: gate closed %d ms after the cut, successor opened %d ms after that%n",
				TimeUnit.NANOSECONDS.toMillis(cut.closedAt - cutAt),
				TimeUnit.NANOSECONDS.toMillis(this.history.last().openedAt - cut.closedAt));
		assertThat(leader.elector().isLeader()).isFalse();
		this.history.assertNoOverlap("default");
		leader.restoreNetwork();
		await().atMost(LEASE_DURATION).untilAsserted(
				() -> assertThat(leader.elector().status("default").holderIdentity()).isNotEqualTo(leader.name()));
		assertThat(leader.elector().status("default").lastError()).isNull();
		this.history.assertNoOverlap("default");
	}

	@Test
	void aLiveHolderRenewingWithTimestampsAnHourInThePastIsNeverRobbed() throws Exception {
		KubernetesClient foreign = this.server.client("foreign");
		ZonedDateTime anHourAgo = ZonedDateTime.now(ZoneOffset.UTC).minusHours(1);
		foreign.resource(new LeaseBuilder().withNewMetadata()
			.withName("it-leader")
			.withNamespace(CrudApiServer.NAMESPACE)
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity("skewed-holder")
			.withLeaseDurationSeconds(2)
			.withAcquireTime(anHourAgo)
			.withRenewTime(anHourAgo)
			.withLeaseTransitions(0)
			.endSpec()
			.build()).create();
		ScheduledExecutorService holder = Executors.newSingleThreadScheduledExecutor();
		try {
			holder.scheduleAtFixedRate(() -> foreign.leases()
				.inNamespace(CrudApiServer.NAMESPACE)
				.withName("it-leader")
				.edit((lease) -> new LeaseBuilder(lease).editSpec()
					.withRenewTime(ZonedDateTime.now(ZoneOffset.UTC).minusHours(1))
					.endSpec()
					.build()), 0, RETRY_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
			startReplicas("r1", "r2", "r3");
			await().during(LEASE_DURATION.multipliedBy(3))
				.atMost(LEASE_DURATION.multipliedBy(4))
				.until(() -> leaders().isEmpty() && "skewed-holder".equals(lease().getSpec().getHolderIdentity()));
		}
		finally {
			holder.shutdownNow();
			holder.awaitTermination(5, TimeUnit.SECONDS);
			foreign.close();
		}
		Replica successor = awaitLeader();
		assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(successor.name());
		assertThat(lease().getSpec().getLeaseTransitions()).isEqualTo(1);
	}

	private GateHistory.Interval intervalOf(Replica replica, long token) {
		return this.history.intervals()
			.stream()
			.filter((interval) -> interval.replica.equals(replica.name()) && interval.fencingToken == token)
			.findFirst()
			.orElseThrow();
	}

	private void startReplicas(String... names) {
		for (String name : names) {
			this.replicas.add(Replica.start(name, this.server, reactor, this.history, Map.of()));
		}
	}

	private Replica awaitLeader() {
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(() -> leaders().size() == 1);
		return leaders().get(0);
	}

	private List<Replica> leaders() {
		List<Replica> leaders = this.replicas.stream().filter(Replica::isLeader).toList();
		assertThat(leaders).as("replicas whose gate is open").hasSizeLessThanOrEqualTo(1);
		return leaders;
	}

	private Lease lease() {
		try (KubernetesClient client = this.server.client("test")) {
			return client.leases().inNamespace(CrudApiServer.NAMESPACE).withName("it-leader").get();
		}
	}

}
