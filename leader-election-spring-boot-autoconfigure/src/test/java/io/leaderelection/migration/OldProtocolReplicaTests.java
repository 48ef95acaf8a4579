package io.leaderelection.migration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.leaderelection.migration.LeadershipIntervals.Overlap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Replicas of spring-cloud-kubernetes 3.3's ConfigMap leader election (the old protocol), each
 * with its own client and Pod, on a CRUD API server: one leads, the ConfigMap's key names it,
 * and when its process dies and its Pod goes away or stops being Ready, or it stops, another
 * takes over, never beside it.
 * <p>
 * Not so when a live leader's Pod stops being Ready: a follower that sees it first overwrites
 * the key, and the leader, whose removal of its key then fails, leads on until it sees the key
 * taken. Two tests pin that down, and the deadlock that can follow such a takeover.
 */
class OldProtocolReplicaTests {

	private static final Logger logger = LoggerFactory.getLogger(OldProtocolReplicaTests.class);

	@RegisterExtension
	static final MigrationApiServer server = MigrationApiServer.start();

	private static final AtomicInteger namespaces = new AtomicInteger();

	/** Scaled down from 60 s: checks come from the watches and from this timer. */
	private static final Duration UPDATE_PERIOD = Duration.ofMillis(300);

	/**
	 * For the tests that arrange an interleaving: long enough that no periodic check comes in
	 * the way, so every check comes from a watch event.
	 */
	private static final Duration QUIET_UPDATE_PERIOD = Duration.ofSeconds(30);

	/** Long enough for a few checks of every replica, on a busy machine. */
	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final String CONFIG_MAP = "leaders";

	/** {@code leader.id.} and the role, {@code leader} when none is set. */
	private static final String KEY = "leader.id.leader";

	private final String namespace = "old-" + namespaces.incrementAndGet();

	private final LeadershipIntervals intervals = new LeadershipIntervals();

	private final List<OldProtocolReplica> replicas = new ArrayList<>();

	@AfterEach
	void killReplicas() {
		this.replicas.forEach(OldProtocolReplica::kill);
		logger.info("{}: terms{}", this.namespace, this.intervals);
		this.replicas.stream()
			.filter(OldProtocolReplica::wasStuck)
			.forEach((replica) -> logger.warn("{}: {} was deadlocked", this.namespace, replica.name()));
	}

	@Test
	void exactlyOneLeadsAndTheConfigMapNamesIt() {
		startReplicas(3, UPDATE_PERIOD);
		OldProtocolReplica leader = awaitOneLeader();
		assertThat(keyValue()).isEqualTo(leader.name());
		// and it stays so: the holder never writes again, the others never take the key from a
		// Ready Pod
		await().during(UPDATE_PERIOD.multipliedBy(4)).atMost(TIMEOUT).until(() -> leaders().equals(List.of(leader)));
		assertThat(keyValue()).isEqualTo(leader.name());
		assertThat(server.configMap(this.namespace, CONFIG_MAP).getMetadata().getLabels())
			.containsEntry("provider", "spring-cloud-kubernetes")
			.containsEntry("kind", "leaders");
		assertNeverTwoLeaders();
	}

	@Test
	void whenTheLeaderIsKilledAndItsPodGoesAwayAnotherTakesOver() {
		startReplicas(3, UPDATE_PERIOD);
		OldProtocolReplica first = awaitOneLeader();
		first.kill();
		// a crash leaves the key, and the others follow it while its Pod is Ready
		await().during(UPDATE_PERIOD.multipliedBy(3)).atMost(TIMEOUT).until(() -> leaders().isEmpty());
		assertThat(keyValue()).isEqualTo(first.name());

		server.deletePod(this.namespace, first.name());
		OldProtocolReplica second = awaitOneLeader();
		assertThat(second).isNotSameAs(first);
		assertNeverTwoLeaders();
	}

	@Test
	void whenTheLeaderIsKilledAndItsPodTurnsNotReadyAnotherTakesOver() {
		startReplicas(3, UPDATE_PERIOD);
		OldProtocolReplica first = awaitOneLeader();
		first.kill();
		server.setPodReady(this.namespace, first.name(), false);
		OldProtocolReplica second = awaitOneLeader();
		assertThat(second).isNotSameAs(first);
		assertNeverTwoLeaders();
	}

	@Test
	void aGracefulStopRemovesTheKeyThenRevokesAndAnotherTakesOver() {
		startReplicas(3, UPDATE_PERIOD);
		OldProtocolReplica first = awaitOneLeader();
		first.stop();
		assertThat(first.revocations()).isEqualTo(1);
		OldProtocolReplica second = awaitOneLeader();
		assertThat(second).isNotSameAs(first);
		assertNeverTwoLeaders();
	}

	@Test
	void whenTheLeadersPodTurnsNotReadyItStepsDownAndAnotherTakesOver() {
		startReplicas(3, UPDATE_PERIOD);
		OldProtocolReplica first = awaitOneLeader();
		server.setPodReady(this.namespace, first.name(), false);
		await().atMost(TIMEOUT).until(() -> !first.isLeader());
		OldProtocolReplica second = awaitOneLeader();
		assertThat(second).isNotSameAs(first);
		assertThat(first.revocations()).isEqualTo(1);
		// and the first, Ready again, follows
		server.setPodReady(this.namespace, first.name(), true);
		await().during(UPDATE_PERIOD.multipliedBy(3)).atMost(TIMEOUT).until(() -> leaders().equals(List.of(second)));
		// Two leaders at once, if the successor's write came before the first's removal of its
		// key (see the test below), until the first's next check: never any other overlap.
		assertThat(this.intervals.overlaps()).as("terms: %s", this.intervals).allSatisfy((overlap) -> {
			assertThat(overlap.first().holder()).isEqualTo(first.name());
			assertThat(overlap.second().holder()).isEqualTo(second.name());
			assertThat(overlap.length()).isLessThan(UPDATE_PERIOD.plus(Duration.ofSeconds(2)));
		});
		assertThat(this.intervals.anomalies()).isEmpty();
	}

	@Test
	void aLeaderWhosePodTurnsNotReadyLeadsBesideItsSuccessorUntilItSeesTheKeyTaken() throws Exception {
		createConfigMap(Map.of());
		startReplicas(2, QUIET_UPDATE_PERIOD);
		OldProtocolReplica first = awaitOneLeader();
		OldProtocolReplica second = awaitFollower(first);
		// the first's removal of its key is slow; the second checks only once it was sent
		RequestHolds.Hold removal = first.requests().holdNext("PUT", "/configmaps/" + CONFIG_MAP);
		RequestHolds.Hold secondsCheck = second.requests().holdNext("GET", "/pods/" + first.name());

		server.setPodReady(this.namespace, first.name(), false);
		assertThat(removal.awaitReached(TIMEOUT)).isTrue();
		assertThat(secondsCheck.awaitReached(TIMEOUT)).isTrue();
		secondsCheck.release();
		await().atMost(TIMEOUT).until(second::isLeader);
		assertThat(keyValue()).isEqualTo(second.name());
		assertThat(first.isLeader()).as("the first still leads").isTrue();
		assertThat(this.intervals.leaders()).containsExactlyInAnyOrder(first.name(), second.name());

		// its removal fails (409), and it leads on until its next check sees the key taken
		long released = System.nanoTime();
		removal.release();
		await().atMost(TIMEOUT).until(() -> !first.isLeader());
		assertThat(keyValue()).isEqualTo(second.name());
		assertThat(this.intervals.overlaps()).singleElement().satisfies((overlap) -> {
			assertThat(overlap.first().holder()).isEqualTo(first.name());
			assertThat(overlap.second().holder()).isEqualTo(second.name());
			assertThat(overlap.first().to()).isGreaterThan(released);
		});
	}

	@Test
	void aFollowerThatTakesOverWhileTheLeadersPodChangesCanDeadlockForGood() throws Exception {
		createConfigMap(Map.of());
		startReplicas(2, QUIET_UPDATE_PERIOD);
		OldProtocolReplica first = awaitOneLeader();
		OldProtocolReplica second = awaitFollower(first);
		first.kill();
		// a check of the second, from a write to the ConfigMap (here, for another role), is under
		// way when the first's Pod turns not Ready: the Pod's watcher waits for the controller
		RequestHolds.Hold check = second.requests().holdNext("GET", "/pods/" + first.name());
		server.client()
			.configMaps()
			.inNamespace(this.namespace)
			.withName(CONFIG_MAP)
			.edit((configMap) -> new ConfigMapBuilder(configMap).addToData("leader.id.other-role", "other-pod").build());
		assertThat(check.awaitReached(TIMEOUT)).isTrue();
		server.setPodReady(this.namespace, first.name(), false);
		await().atMost(TIMEOUT).until(second::hasChecksWaiting);
		check.release();

		// the check takes the key, is granted, and stops that watcher: deadlock
		await().atMost(TIMEOUT).until(second::isStuck);
		assertThat(second.isLeader()).isTrue();
		assertThat(keyValue()).isEqualTo(second.name());
		// for good: it does not step down when its own Pod turns not Ready, and its stop (the
		// application's shutdown) would not return, nor remove its key
		server.setPodReady(this.namespace, second.name(), false);
		await().during(Duration.ofSeconds(1)).atMost(TIMEOUT).until(second::isLeader);
		second.stop();
		assertThat(second.wasStuck()).isTrue();
		assertThat(keyValue()).isEqualTo(second.name());
	}

	@Test
	void aKeyThatNamesNoPodIsTakenOverAtOnceAndTheRoleNamesTheKey() {
		createConfigMap(Map.of("leader.id.jobs", "no-such-pod", KEY, "another-roles-pod"));
		for (int i = 0; i < 2; i++) {
			OldProtocolReplica replica = startReplica("jobs-" + i, (settings) -> settings.withRole("jobs")
				.withUpdatePeriod(QUIET_UPDATE_PERIOD));
			this.replicas.add(replica);
		}
		// at once: on the watch's first event, with no periodic check due for a long while
		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(leaders()).singleElement()
				.extracting(OldProtocolReplica::name)
				.isEqualTo(server.configMapValue(this.namespace, CONFIG_MAP, "leader.id.jobs")));
		assertThat(keyValue()).as("another role's key").isEqualTo("another-roles-pod");
		assertNeverTwoLeaders();
	}

	// ---- helpers

	private void startReplicas(int count, Duration updatePeriod) {
		for (int i = 0; i < count; i++) {
			this.replicas.add(startReplica("app-" + i, (settings) -> settings.withUpdatePeriod(updatePeriod)));
		}
	}

	private OldProtocolReplica startReplica(String pod,
			java.util.function.UnaryOperator<OldProtocolReplica.Settings> settings) {
		server.createPod(this.namespace, pod, true);
		OldProtocolReplica replica = OldProtocolReplica.create(server,
				settings.apply(OldProtocolReplica.Settings.of(this.namespace, pod)), this.intervals);
		replica.start();
		return replica;
	}

	private void createConfigMap(Map<String, String> data) {
		server.client()
			.configMaps()
			.inNamespace(this.namespace)
			.resource(new ConfigMapBuilder().withNewMetadata()
				.withName(CONFIG_MAP)
				.withNamespace(this.namespace)
				.endMetadata()
				.withData(data)
				.build())
			.create();
	}

	/** Waits until exactly one live replica leads, and the ConfigMap names it. */
	private OldProtocolReplica awaitOneLeader() {
		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(leaders()).singleElement()
				.extracting(OldProtocolReplica::name)
				.isEqualTo(keyValue()));
		return leaders().get(0);
	}

	/**
	 * The other replica, once it follows the leader: it has seen the key name it, and watches
	 * its Pod.
	 */
	private OldProtocolReplica awaitFollower(OldProtocolReplica leader) {
		OldProtocolReplica follower = this.replicas.stream()
			.filter((other) -> other != leader)
			.findFirst()
			.orElseThrow();
		await().atMost(TIMEOUT).until(() -> leader.name().equals(follower.leaderSeen()));
		return follower;
	}

	private List<OldProtocolReplica> leaders() {
		return this.replicas.stream().filter(OldProtocolReplica::isLeader).toList();
	}

	private String keyValue() {
		return server.configMapValue(this.namespace, CONFIG_MAP, KEY);
	}

	private void assertNeverTwoLeaders() {
		List<Overlap> overlaps = this.intervals.overlaps();
		assertThat(overlaps).as("overlapping terms: %s", this.intervals).isEmpty();
		assertThat(this.intervals.anomalies()).isEmpty();
	}

}
