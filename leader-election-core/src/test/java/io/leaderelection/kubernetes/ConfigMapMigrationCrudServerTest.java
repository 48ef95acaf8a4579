package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.engine.RevocationCause;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Migration from spring-cloud-kubernetes' ConfigMap leader on fabric8's CRUD mock server, with Pod
 * objects whose Ready condition the test sets: a new replica takes the old key only after seeing
 * it free for a whole lease duration, leads only while it holds both the key and the Lease, and
 * removes the key after draining.
 */
class ConfigMapMigrationCrudServerTest {

	private static final String NAMESPACE = "shop";

	private static final String KEY = "leader.id.orders";

	private static final Duration LEASE_DURATION = Duration.ofMillis(1500);

	private static final ElectionSettings ORDERS = new ElectionSettings("orders", NAMESPACE, "orders-leader",
			LEASE_DURATION, Duration.ofMillis(1000), Duration.ofMillis(100));

	private static final Duration WAIT = Duration.ofSeconds(10);

	private OpenedResources opened;

	private KubernetesClient tool;

	@BeforeEach
	void startServer() {
		this.opened = new OpenedResources(new KubernetesCrudDispatcher());
		this.tool = open(this.opened.server().createClient());
	}

	@AfterEach
	void close() throws Exception {
		this.opened.close();
	}

	@Test
	void aKeyNamingAReadyOldPodIsNeverTakenAndOneNamingAPodTurnedUnreadyOnlyAfterALeaseDuration() {
		pod("old-0", true);
		pod("new-0", true);
		key("old-0");
		Replica replica = replica("new-0");
		replica.engine.start();
		await().during(LEASE_DURATION.multipliedBy(2)).atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> !replica.engine.isLeader("orders") && "old-0".equals(keyValue()));
		pod("old-0", false);
		long unready = System.nanoTime();
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		assertThat(System.nanoTime() - unready).as("nanos from the old Pod turning unready to leading")
			.isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
		assertThat(keyValue()).isEqualTo("new-0");
		assertThat(this.tool.leases().inNamespace(NAMESPACE).withName("orders-leader").get().getSpec().getHolderIdentity())
			.isEqualTo("new-0-identity");
	}

	@Test
	void anEmptyKeyIsTakenAfterALeaseDurationAndAMissingConfigMapIsCreated() {
		pod("new-0", true);
		Replica replica = replica("new-0");
		long started = System.nanoTime();
		replica.engine.start();
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
		assertThat(keyValue()).isEqualTo("new-0");
	}

	@Test
	void aReplicaWhosePodIsNotReadyLeavesAFreeKeyAloneAndStepsDownWhenItsPodTurnsUnready() {
		// the old replicas take at once a key naming a Pod that is not Ready
		pod("new-0", false);
		Replica replica = replica("new-0");
		replica.engine.start();
		await().during(LEASE_DURATION.multipliedBy(2)).atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> !replica.engine.isLeader("orders") && keyValue() == null);
		pod("new-0", true);
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		pod("new-0", false);
		await().atMost(WAIT).until(() -> !replica.engine.isLeader("orders"));
		assertThat(replica.causes).containsExactly(RevocationCause.MIGRATION_KEY_LOST);
	}

	@Test
	void theGateClosesAsSoonAsAnOldReplicaTakesTheKey() {
		pod("new-0", true);
		pod("old-0", true);
		Replica replica = replica("new-0");
		replica.engine.start();
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		// as an old replica does when the new replica's Pod turns unready
		key("old-0");
		await().atMost(WAIT).until(() -> !replica.engine.isLeader("orders"));
		assertThat(replica.causes).containsExactly(RevocationCause.MIGRATION_KEY_LOST);
		await().during(LEASE_DURATION.multipliedBy(2)).atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> !replica.engine.isLeader("orders"));
		assertThat(keyValue()).isEqualTo("old-0");
	}

	@Test
	void aStepDownRemovesTheKeyAndTheOtherNewReplicaWaitsALeaseDurationBeforeTakingIt() {
		pod("new-0", true);
		pod("new-1", true);
		Replica first = replica("new-0");
		first.engine.start();
		await().atMost(WAIT).until(() -> first.engine.isLeader("orders"));
		Replica second = replica("new-1");
		second.engine.start();
		first.engine.stepDown("orders", WAIT);
		assertThat(keyValue()).isNull();
		long removed = System.nanoTime();
		await().atMost(WAIT).until(() -> second.engine.isLeader("orders"));
		assertThat(System.nanoTime() - removed).isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
		assertThat(keyValue()).isEqualTo("new-1");
	}

	@Test
	void aKeyHoldingWhatIsNoPodNameIsNeverTakenAndSaysWhy() {
		pod("new-0", true);
		key("Not a Pod!");
		Replica replica = replica("new-0");
		replica.engine.start();
		await().atMost(WAIT).untilAsserted(() -> assertThat(replica.engine.status("orders").lastError())
			.contains("key 'leader.id.orders' of ConfigMap shop/leaders holds 'Not a Pod!', which is no Pod name"));
		await().during(LEASE_DURATION.multipliedBy(2)).atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> !replica.engine.isLeader("orders"));
		assertThat(keyValue()).isEqualTo("Not a Pod!");
	}

	@Test
	void aReplicaWhosePodCannotBeFoundTakesNoLeadershipAndSaysWhy() {
		Replica replica = replica("new-0");
		replica.engine.start();
		await().atMost(WAIT).untilAsserted(() -> assertThat(replica.engine.status("orders").lastError())
			.contains("Pod 'new-0' (POD_NAME, else HOSTNAME) does not exist"));
		await().during(LEASE_DURATION.multipliedBy(2)).atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> !replica.engine.isLeader("orders"));
		assertThat(keyValue()).isNull();
		pod("new-0", true);
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
	}

	private Replica replica(String podName) {
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		KubernetesClient client = open(this.opened.server().createClient());
		KubernetesLeaseStores stores = open(new KubernetesLeaseStores(client, threads.blockingCalls()));
		Replica replica = new Replica();
		replica.engine = new ElectionEngine(podName + "-identity",
				List.of(ORDERS.migratingFrom(new ElectionSettings.Migration("leaders", KEY, podName))), stores,
				threads.runtime(), List.of(replica));
		this.opened.open(() -> replica.engine.stop(false).join());
		return replica;
	}

	private void pod(String name, boolean ready) {
		Pod pod = new PodBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(NAMESPACE)
			.endMetadata()
			.withNewStatus()
			.withPhase("Running")
			.addNewCondition()
			.withType("Ready")
			.withStatus(ready ? "True" : "False")
			.endCondition()
			.endStatus()
			.build();
		if (this.tool.pods().inNamespace(NAMESPACE).withName(name).get() == null) {
			this.tool.pods().inNamespace(NAMESPACE).resource(pod).create();
		}
		else {
			this.tool.pods().inNamespace(NAMESPACE).withName(name).edit((existing) -> {
				existing.setStatus(pod.getStatus());
				return existing;
			});
		}
	}

	private void key(String value) {
		if (this.tool.configMaps().inNamespace(NAMESPACE).withName("leaders").get() == null) {
			this.tool.configMaps()
				.inNamespace(NAMESPACE)
				.resource(new ConfigMapBuilder().withNewMetadata()
					.withName("leaders")
					.withNamespace(NAMESPACE)
					.endMetadata()
					.withData(Map.of(KEY, value))
					.build())
				.create();
		}
		else {
			this.tool.configMaps().inNamespace(NAMESPACE).withName("leaders").edit((existing) -> {
				Map<String, String> data = new HashMap<>((existing.getData() != null) ? existing.getData() : Map.of());
				data.put(KEY, value);
				existing.setData(data);
				return existing;
			});
		}
	}

	private String keyValue() {
		ConfigMap map = this.tool.configMaps().inNamespace(NAMESPACE).withName("leaders").get();
		return (map != null && map.getData() != null) ? map.getData().get(KEY) : null;
	}

	private <T extends AutoCloseable> T open(T resource) {
		return this.opened.open(resource);
	}

	private static final class Replica implements ElectionListener {

		ElectionEngine engine;

		final List<RevocationCause> causes = new java.util.concurrent.CopyOnWriteArrayList<>();

		@Override
		public void revoked(String election, RevocationCause cause, long gateClosedAt) {
			this.causes.add(cause);
		}

	}

}
