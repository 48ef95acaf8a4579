package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.LeaderStatus;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.store.MembershipStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Balanced shards on fabric8's CRUD mock server, each replica with its own client: members find
 * each other through labelled member Leases, spread the shards at most one apart, and the shard
 * Leases carry labels that list them.
 */
class BalancedShardsCrudServerTests {

	private static final int SHARDS = 8;

	private static final ElectionSettings ORDERS = new ElectionSettings("orders", "team-a", "shop-orders",
			Duration.ofMillis(1500), Duration.ofMillis(1000), Duration.ofMillis(100));

	private OpenedResources opened;

	@BeforeEach
	void startServer() {
		this.opened = new OpenedResources(new KubernetesCrudDispatcher());
	}

	@AfterEach
	void close() throws Exception {
		this.opened.close();
	}

	@Test
	void threeReplicasEachLeadTwoOrThreeShardsFoundThroughLabelledMemberLeases() {
		Map<String, ElectionEngine> replicas = new LinkedHashMap<>();
		for (String name : List.of("a", "b", "c")) {
			replicas.put(name, engine(name));
		}
		replicas.values().forEach(ElectionEngine::start);
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
			List<Integer> held = replicas.values().stream().map((replica) -> replica.ownedShards("orders").size()).toList();
			assertThat(held).as("shards held").allSatisfy((count) -> assertThat(count).isBetween(2, 3));
			assertThat(held.stream().mapToInt(Integer::intValue).sum()).isEqualTo(SHARDS);
		});
		LeaderStatus.Group group = replicas.get("a").status("orders-0-of-8").group();
		assertThat(group.name()).isEqualTo("shop-orders");
		assertThat(group.members()).isEqualTo(3);
		assertThat(group.leases()).isEqualTo(SHARDS);

		KubernetesClient tool = open(this.opened.server().createClient());
		List<Lease> shardLeases = tool.leases().inNamespace("team-a").withLabel(LeaseLabels.SHARD_OF, "shop-orders").list().getItems();
		assertThat(shardLeases).extracting((lease) -> lease.getMetadata().getName())
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, SHARDS).mapToObj((i) -> "shop-orders-" + i + "-of-8").toList());
		assertThat(shardLeases).allSatisfy((lease) -> assertThat(lease.getMetadata().getLabels()).containsEntry(LeaseLabels.SHARDS, "8"));
		List<Lease> members = tool.leases().inNamespace("team-a").withLabel(LeaseLabels.MEMBER_OF, "shop-orders").list().getItems();
		assertThat(members).extracting((lease) -> lease.getSpec().getHolderIdentity()).containsExactlyInAnyOrder("a", "b", "c");

		replicas.remove("c").stop(true).join();
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
			List<Integer> held = replicas.values().stream().map((replica) -> replica.ownedShards("orders").size()).toList();
			assertThat(held).as("shards held").containsExactly(4, 4);
		});
		assertThat(tool.leases().inNamespace("team-a").withLabel(LeaseLabels.MEMBER_OF, "shop-orders").list().getItems())
			.filteredOn((lease) -> lease.getSpec().getHolderIdentity() != null)
			.extracting((lease) -> lease.getSpec().getHolderIdentity())
			.containsExactlyInAnyOrder("a", "b");
	}

	@Test
	void theRecordOfAMemberGoneIsDeletedByAMemberStillThereOnceUnchangedForLong() {
		KubernetesClient client = open(this.opened.server().createClient());
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		KubernetesMembership gone = new KubernetesMembership(open(this.opened.server().createClient()), threads.blockingCalls(),
				"team-a");
		gone.renew("shop-orders", "gone", Duration.ofSeconds(5)).join();
		KubernetesMembership staying = new KubernetesMembership(client, threads.blockingCalls(), "team-a",
				Duration.ofMillis(500));
		List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
		MembershipStore.Following following = staying.follow("shop-orders", seen::add,
				(failure) -> seen.add(Map.of("failed", String.valueOf(failure))));
		open(following::close);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(seen).last().satisfies((members) -> assertThat(members).containsKey("gone")));
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
			staying.renew("shop-orders", "staying", Duration.ofSeconds(5)).join();
			assertThat(client.leases().inNamespace("team-a").withLabel(LeaseLabels.MEMBER_OF, "shop-orders").list().getItems())
				.extracting((lease) -> lease.getSpec().getHolderIdentity())
				.containsExactly("staying");
		});
	}

	@Test
	void aRenewalAskedForBeforeALeaveButRunAfterItDoesNotNameTheMemberAgain() {
		KubernetesClient client = open(this.opened.server().createClient());
		List<Runnable> queued = new CopyOnWriteArrayList<>();
		KubernetesMembership membership = new KubernetesMembership(client, queued::add, "team-a");
		CompletableFuture<Void> joined = membership.renew("shop-orders", "c", Duration.ofSeconds(5));
		queued.remove(0).run();
		joined.join();
		CompletableFuture<Void> renewed = membership.renew("shop-orders", "c", Duration.ofSeconds(5));
		CompletableFuture<Void> left = membership.leave("shop-orders", "c", Duration.ofSeconds(5));
		// the pool runs them the other way round
		queued.remove(1).run();
		queued.remove(0).run();
		left.join();
		renewed.join();
		assertThat(client.leases().inNamespace("team-a").withLabel(LeaseLabels.MEMBER_OF, "shop-orders").list().getItems())
			.singleElement()
			.satisfies((record) -> assertThat(record.getSpec().getHolderIdentity()).isNull());
	}

	/**
	 * A member write that hangs on the network holds the lock that orders the record's writes;
	 * the next renewal is asked for on the engine's scheduler, which must not wait for it: the
	 * scheduler runs every election's deadlines and revocations.
	 */
	@Test
	void aMemberWriteThatHangsDoesNotHoldUpTheThreadThatAsksForTheNext() throws Exception {
		CountDownLatch arrived = new CountDownLatch(1);
		CountDownLatch answer = new CountDownLatch(1);
		try (OpenedResources held = new OpenedResources(new KubernetesCrudDispatcher() {

			@Override
			public MockResponse dispatch(RecordedRequest request) {
				if (!"GET".equals(request.getMethod())) {
					arrived.countDown();
					try {
						answer.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return super.dispatch(request);
			}

		})) {
			KubernetesClient client = held.open(held.server().createClient());
			List<Runnable> queued = new CopyOnWriteArrayList<>();
			KubernetesMembership membership = new KubernetesMembership(client, queued::add, "team-a");
			CompletableFuture<Void> joined = membership.renew("shop-orders", "c", Duration.ofSeconds(5));
			Thread writing = new Thread(queued.remove(0), "member-write");
			writing.start();
			try {
				assertThat(arrived.await(10, TimeUnit.SECONDS)).as("the member write reached the server").isTrue();
				CompletableFuture<CompletableFuture<Void>> asked = CompletableFuture
					.supplyAsync(() -> membership.renew("shop-orders", "c", Duration.ofSeconds(5)));
				assertThat(asked).as("the next renewal, asked for while the first write hangs")
					.succeedsWithin(Duration.ofSeconds(1));
			}
			finally {
				answer.countDown();
			}
			joined.join();
			writing.join();
		}
	}

	private ElectionEngine engine(String identity) {
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		KubernetesClient client = open(this.opened.server().createClient());
		List<ElectionSettings> shards = IntStream.range(0, SHARDS).mapToObj((index) -> ORDERS.shard(index, SHARDS, true)).toList();
		KubernetesLeaseStores stores = open(new KubernetesLeaseStores(client, threads.blockingCalls(),
				threads.requests()));
		ElectionEngine engine = new ElectionEngine(identity, shards, stores, threads.runtime(), List.of());
		this.opened.open(() -> engine.stop(false).join());
		return engine;
	}

	private <T extends AutoCloseable> T open(T resource) {
		return this.opened.open(resource);
	}

}
