package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.LeaderStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Elected shards with balanced spreading on the real control plane (docs/shards.md): an election
 * of four shards over three replicas, each a Spring context with its own client as a
 * ServiceAccount of its own, bound to the rules docs/operations.md and docs/shards.md give. Every
 * shard is led by exactly one replica, none leads more than ceil(4/3); the shard Leases and the
 * member Leases carry their labels, and each replica follows the members through fabric8's
 * informer (a list, then a watch, on the label). When one replica shuts down, its shards go to the
 * two left, two each. No two gates of a shard were open at once, and the API server refused
 * nothing.
 */
class ShardsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private static final int SHARDS = 4;

	private static final String LEASE = "shop-orders";

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final Map<String, Terms> terms = new LinkedHashMap<>();

	private final List<SpringReplica> replicas = new ArrayList<>();

	private TestNamespace namespace;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("shards");
		for (int shard = 0; shard < SHARDS; shard++) {
			this.terms.put(shard(shard), new Terms(shard(shard)));
		}
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(SpringReplica::close);
		this.namespace.close();
	}

	@Test
	void fourShardsAreSpreadOverThreeReplicasAndOverTheTwoLeftWhenOneShutsDown() {
		long mark = this.controlPlane.apiServer().auditLog().mark();
		Map<String, TestNamespace.ServiceAccount> accounts = new LinkedHashMap<>();
		for (int i = 1; i <= 3; i++) {
			String identity = "replica-" + i;
			TestNamespace.ServiceAccount account = this.namespace.serviceAccount("elector-" + i,
					DocumentedRoles.rules(DocumentedRoles.LEASES, DocumentedRoles.SHARDS));
			accounts.put(identity, account);
			List<Object> listeners = this.terms.values().stream().map((terms) -> (Object) terms.recorderFor(identity)).toList();
			this.replicas.add(SpringReplica.start(identity, account.config(this.controlPlane.apiServer()),
					this.namespace.name(), Map.of("leader.election.elections.orders.shards", SHARDS,
							"leader.election.elections.orders.lease-name", LEASE),
					listeners));
		}

		awaitSpread(2);
		LeaderStatus.Group group = this.replicas.get(0).elector().status(shard(0)).group();
		assertThat(group.name()).isEqualTo(LEASE);
		assertThat(group.leases()).isEqualTo(SHARDS);
		assertThat(group.members()).isEqualTo(3);

		// the shard Leases, labelled so that kubectl lists them, each held by the replica that leads it
		List<Lease> shardLeases = this.controlPlane.admin()
			.leases()
			.inNamespace(this.namespace.name())
			.withLabel("leaderelection.io/shard-of", LEASE)
			.list()
			.getItems();
		assertThat(shardLeases).extracting((lease) -> lease.getMetadata().getName())
			.containsExactlyInAnyOrderElementsOf(
					IntStream.range(0, SHARDS).mapToObj((shard) -> LEASE + "-" + shard + "-of-" + SHARDS).toList());
		assertThat(shardLeases).allSatisfy((lease) -> assertThat(lease.getMetadata().getLabels())
			.containsEntry("leaderelection.io/shards", String.valueOf(SHARDS))
			.containsEntry("leaderelection.io/shard",
					lease.getMetadata().getName().substring(LEASE.length() + 1).replaceAll("-of-.*", "")));
		// the member Leases, one per replica, labelled with the group
		assertThat(members()).containsExactlyInAnyOrder("replica-1", "replica-2", "replica-3");
		// each replica follows the members through an informer on that label: a list, then a watch
		String selector = "labelSelector=leaderelection.io%2Fmember-of%3D" + LEASE;
		accounts.forEach((identity, account) -> {
			List<AuditLog.Request> following = this.controlPlane.apiServer()
				.auditLog()
				.since(mark, (request) -> request.user().equals(account.user())
						&& request.resource().equals("leases.coordination.k8s.io") && request.uri().contains(selector));
			assertThat(following).as("%s's requests on the member label", identity)
				.anyMatch((request) -> request.verb().equals("list") && request.code() == 200)
				.anyMatch((request) -> request.verb().equals("watch") && (request.code() == 200 || request.code() == 101));
		});

		// one replica shuts down: its shards go to the two left, two each
		SpringReplica leaving = this.replicas.stream()
			.filter((replica) -> !replica.elector().ownedShards("orders").isEmpty())
			.findFirst()
			.orElseThrow();
		leaving.close();
		this.replicas.remove(leaving);
		long left = System.nanoTime();
		awaitSpread(2);
		System.out.printf("shards on the real control plane: %s left, every shard led two each by %s after %d ms%n",
				leaving, this.replicas, Duration.ofNanos(System.nanoTime() - left).toMillis());
		assertThat(this.replicas).allSatisfy((replica) -> assertThat(replica.elector().ownedShards("orders")).hasSize(2));
		await().atMost(TIMEOUT).untilAsserted(() -> assertThat(members()).containsExactlyInAnyOrderElementsOf(
				this.replicas.stream().map(SpringReplica::identity).toList()));

		this.replicas.forEach(SpringReplica::close);
		this.replicas.clear();
		this.terms.values().forEach(Terms::assertSafe);
		this.namespace.assertNothingRefused();
	}

	/**
	 * Until every shard is led by exactly one replica and no replica leads more than the given
	 * share, asserting meanwhile that no shard ever has two gates open.
	 */
	private void awaitSpread(int share) {
		await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
			for (int shard = 0; shard < SHARDS; shard++) {
				String election = shard(shard);
				List<String> leaders = this.replicas.stream()
					.filter((replica) -> replica.isLeader(election))
					.map(SpringReplica::identity)
					.toList();
				assertThat(leaders).as("replicas leading %s", election).hasSize(1);
			}
			for (SpringReplica replica : this.replicas) {
				assertThat(replica.elector().ownedShards("orders")).as("shards %s leads", replica)
					.hasSizeLessThanOrEqualTo(share);
			}
		});
	}

	/** The holders of the group's member Leases that name one: the members still there. */
	private List<String> members() {
		return this.controlPlane.admin()
			.leases()
			.inNamespace(this.namespace.name())
			.withLabel("leaderelection.io/member-of", LEASE)
			.list()
			.getItems()
			.stream()
			.map((lease) -> lease.getSpec().getHolderIdentity())
			.filter((holder) -> holder != null && !holder.isEmpty())
			.toList();
	}

	private static String shard(int shard) {
		return "orders-" + shard + "-of-" + SHARDS;
	}

}
