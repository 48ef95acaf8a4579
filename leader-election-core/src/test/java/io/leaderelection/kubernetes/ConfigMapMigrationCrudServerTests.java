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
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
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
class ConfigMapMigrationCrudServerTests {

	private static final String NAMESPACE = "shop";

	private static final String KEY = "leader.id.orders";

	private static final Duration LEASE_DURATION = Duration.ofMillis(1500);

	private static final ElectionSettings ORDERS = new ElectionSettings("orders", NAMESPACE, "orders-leader",
			LEASE_DURATION, Duration.ofMillis(1000), Duration.ofMillis(100));

	/** A renew deadline and a renew period many looks (retry periods) long. */
	private static final ElectionSettings ORDERS_RENEWING_RARELY = new ElectionSettings("orders", NAMESPACE,
			"orders-leader", Duration.ofSeconds(3), Duration.ofMillis(2500), Duration.ofMillis(100))
		.renewingEvery(Duration.ofSeconds(2));

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final String OWN_POD = "/api/v1/namespaces/" + NAMESPACE + "/pods/new-0";

	private final FailingOwnPodReads dispatcher = new FailingOwnPodReads();

	private OpenedResources opened;

	private KubernetesClient tool;

	@BeforeEach
	void startServer() {
		this.opened = new OpenedResources(this.dispatcher);
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
		assertLeadsNoSoonerThan(replica, LEASE_DURATION, unready, "the old Pod turning unready");
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
		assertLeadsNoSoonerThan(replica, LEASE_DURATION, started, "its start");
		assertThat(keyValue()).isEqualTo("new-0");
	}

	/**
	 * An old replica that takes the free key and gives it back between two looks leaves nothing a
	 * look sees but a new version of the ConfigMap: the wait for a free key starts again from there.
	 */
	@Test
	void aKeyTakenAndGivenBackBetweenTwoLooksStartsTheWaitAgain() {
		ElectionSettings lookingRarely = new ElectionSettings("orders", NAMESPACE, "orders-leader",
				Duration.ofSeconds(3), Duration.ofMillis(2500), Duration.ofMillis(500));
		pod("new-0", true);
		pod("old-0", true);
		key("");
		Replica replica = replica("new-0", lookingRarely);
		replica.engine.start();
		await().during(lookingRarely.leaseDuration().dividedBy(3)).atMost(WAIT)
			.until(() -> !replica.engine.isLeader("orders"));
		key("old-0");
		long givenBack = System.nanoTime();
		key("");
		assertLeadsNoSoonerThan(replica, lookingRarely.leaseDuration(), givenBack, "the key given back");
		assertThat(keyValue()).isEqualTo("new-0");
	}

	/**
	 * A write of another key of the ConfigMap (another role's leader) changes its version too,
	 * which does not say which key changed: the wait for a free key starts again from there.
	 */
	@Test
	void aWriteOfAnotherKeyOfTheConfigMapStartsTheWaitAgain() {
		pod("new-0", true);
		key("");
		Replica replica = replica("new-0");
		replica.engine.start();
		await().during(LEASE_DURATION.dividedBy(2)).atMost(WAIT).until(() -> !replica.engine.isLeader("orders"));
		long written = System.nanoTime();
		entry("leader.id.payments", "old-1");
		assertLeadsNoSoonerThan(replica, LEASE_DURATION, written, "the other key's write");
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

	/**
	 * The look that finds its own Pod not Ready closes the gate, not the next renewal: the old
	 * replicas take the key at once, and renewals may be far apart.
	 */
	@Test
	void theGateClosesAtTheFirstLookThatFindsItsOwnPodNotReadyNotAtTheNextRenewal() {
		pod("new-0", true);
		Replica replica = replica("new-0", ORDERS_RENEWING_RARELY);
		replica.engine.start();
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		// just after a renewal, so that the next one is a renew period away
		String renewed = renewTime();
		await().pollInterval(Duration.ofMillis(5)).atMost(WAIT).until(() -> !renewTime().equals(renewed));
		long unready = System.nanoTime();
		pod("new-0", false);
		await().atMost(WAIT).until(() -> !replica.engine.isLeader("orders"));
		assertThat(Duration.ofNanos(System.nanoTime() - unready)).as("from its Pod turning unready to its gate closing")
			.isLessThan(ORDERS_RENEWING_RARELY.renewPeriod().dividedBy(2));
		assertThat(replica.causes).containsExactly(RevocationCause.MIGRATION_KEY_LOST);
	}

	/**
	 * A look that fails cannot tell whether this replica's Pod is still Ready, and the old replicas
	 * take at once the key of a Pod that is not: the gate closes at that look, not at the next
	 * renewal, and opens again only once a look reads the Pod Ready.
	 */
	@Test
	void aLookThatFailsClosesTheGateAtOnce() {
		pod("new-0", true);
		Replica replica = replica("new-0", ORDERS_RENEWING_RARELY);
		replica.engine.start();
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		long failingFrom = System.nanoTime();
		this.dispatcher.failOwnPodReads(true);
		await().atMost(WAIT).until(() -> !replica.engine.isLeader("orders"));
		assertThat(Duration.ofNanos(System.nanoTime() - failingFrom)).as("from reads of its Pod failing to its gate closing")
			.isLessThan(ORDERS_RENEWING_RARELY.renewPeriod().dividedBy(2));
		assertThat(replica.causes).containsExactly(RevocationCause.MIGRATION_KEY_LOST);
		await().during(ORDERS_RENEWING_RARELY.leaseDuration()).atMost(WAIT)
			.until(() -> !replica.engine.isLeader("orders"));

		this.dispatcher.failOwnPodReads(false);
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		assertThat(keyValue()).isEqualTo("new-0");
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
		assertLeadsNoSoonerThan(second, LEASE_DURATION, removed, "the key's removal");
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
		return replica(podName, ORDERS);
	}

	private Replica replica(String podName, ElectionSettings settings) {
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		KubernetesClient client = open(this.opened.server().createClient());
		KubernetesLeaseStores stores = open(new KubernetesLeaseStores(client, threads.blockingCalls(),
				threads.requests()));
		Replica replica = new Replica();
		replica.engine = new ElectionEngine(podName + "-identity",
				List.of(settings.migratingFrom(new ElectionSettings.Migration("leaders", KEY, podName))), stores,
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
		entry(KEY, value);
	}

	/** Sets an entry of the ConfigMap, creating it if missing. */
	private void entry(String key, String value) {
		if (this.tool.configMaps().inNamespace(NAMESPACE).withName("leaders").get() == null) {
			this.tool.configMaps()
				.inNamespace(NAMESPACE)
				.resource(new ConfigMapBuilder().withNewMetadata()
					.withName("leaders")
					.withNamespace(NAMESPACE)
					.endMetadata()
					.withData(Map.of(key, value))
					.build())
				.create();
		}
		else {
			this.tool.configMaps().inNamespace(NAMESPACE).withName("leaders").edit((existing) -> {
				Map<String, String> data = new HashMap<>((existing.getData() != null) ? existing.getData() : Map.of());
				data.put(key, value);
				existing.setData(data);
				return existing;
			});
		}
	}

	/** Waits for the replica to lead, and checks that it did no sooner than the given wait after the given moment. */
	private static void assertLeadsNoSoonerThan(Replica replica, Duration wait, long since, String sinceWhat) {
		await().atMost(WAIT).until(() -> replica.engine.isLeader("orders"));
		assertThat(Duration.ofNanos(System.nanoTime() - since)).as("from %s to leading", sinceWhat)
			.isGreaterThanOrEqualTo(wait);
	}

	private String renewTime() {
		return String.valueOf(this.tool.leases().inNamespace(NAMESPACE).withName("orders-leader").get().getSpec()
			.getRenewTime());
	}

	private String keyValue() {
		ConfigMap map = this.tool.configMaps().inNamespace(NAMESPACE).withName("leaders").get();
		return (map != null && map.getData() != null) ? map.getData().get(KEY) : null;
	}

	private <T extends AutoCloseable> T open(T resource) {
		return this.opened.open(resource);
	}

	/** The CRUD dispatcher, but for reads of Pod {@code new-0}, answered 500 while it is told to fail them. */
	private static final class FailingOwnPodReads extends KubernetesCrudDispatcher {

		private volatile boolean failing;

		void failOwnPodReads(boolean failing) {
			this.failing = failing;
		}

		@Override
		public MockResponse dispatch(RecordedRequest request) {
			if (this.failing && "GET".equals(request.getMethod()) && request.getPath().startsWith(OWN_POD)) {
				return new MockResponse().setResponseCode(500)
					.setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
							+ "\"message\":\"etcd unavailable\",\"code\":500}");
			}
			return super.dispatch(request);
		}

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
