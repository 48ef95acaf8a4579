package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.migration.LeaderSamples;
import io.leaderelection.migration.LeadershipIntervals;
import io.leaderelection.migration.LeadershipIntervals.Interval;
import io.leaderelection.migration.LeadershipIntervals.Overlap;
import io.leaderelection.migration.OldProtocolReplica;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.leaderelection.controlplane.MigrationRoutingReplica.LEASE_DURATION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rollout from spring-cloud-kubernetes 3.3's ConfigMap leader (docs/migration.md) on the real
 * control plane. The old replicas run spring-cloud-kubernetes-fabric8-leader 3.3.0 itself in
 * process ({@link OldProtocolReplica}), each on a client of its own as a ServiceAccount bound to
 * what the old application had (docs/migration.md: it "reads and watches configmaps and pods and
 * writes the ConfigMap"); the new replicas are Spring contexts of the starter in migration mode
 * ({@code leader.election.config-map-migration.enabled=true}) as a ServiceAccount bound to the
 * Roles of docs/operations.md and docs/migration.md. Every replica runs in a Pod the test keeps as
 * a kubelet would (Running and Ready), since both sides judge a holder by its Pod's readiness.
 * Every term of either side is recorded on the JVM's monotonic clock, and who leads is sampled
 * every 10 ms besides.
 */
class ConfigMapMigrationTests {

	private static final String CONFIG_MAP = "leaders";

	/** spring-cloud-kubernetes' key for its default role, {@code leader}: what both sides write. */
	private static final String KEY = "leader.id.leader";

	private static final String LEASE = "orders-leader";

	/** The old replicas' periodic check, scaled down from spring-cloud-kubernetes' 60 s. */
	private static final Duration UPDATE_PERIOD = Duration.ofSeconds(1);

	/**
	 * For an old replica that joins beside a new leader: every check of it comes from a watch event
	 * (the ConfigMap, its own Pod, the leader's Pod), none from its timer, which could come while
	 * the leader's Pod changes readiness and deadlock it (spring-cloud-kubernetes 3.3).
	 */
	private static final Duration QUIET_UPDATE_PERIOD = Duration.ofSeconds(60);

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/**
	 * What an application on spring-cloud-kubernetes 3.3's fabric8 leader needs, and keeps during the
	 * rollout (docs/migration.md, RBAC): its controller reads ({@code get}), creates and replaces
	 * ({@code update}, with the resourceVersion read) the ConfigMap, and reads its own Pod and the
	 * leader's ({@code get}, {@code isReady()}); its watchers watch the ConfigMap and Pods by name.
	 */
	static final List<PolicyRule> OLD_REPLICAS_RULES = List.of(
			new PolicyRuleBuilder().withApiGroups("")
				.withResources("configmaps")
				.withVerbs("get", "watch", "create", "update")
				.build(),
			new PolicyRuleBuilder().withApiGroups("").withResources("pods").withVerbs("get", "watch").build());

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final LeadershipIntervals intervals = new LeadershipIntervals();

	private final List<OldProtocolReplica> olds = new CopyOnWriteArrayList<>();

	private final List<MigrationRoutingReplica> news = new CopyOnWriteArrayList<>();

	/** Each version of the ConfigMap's key as the API server's watch delivered it (admin's watch). */
	private final List<String> keyVersions = new CopyOnWriteArrayList<>();

	private final List<String> report = new ArrayList<>();

	private TestNamespace namespace;

	private TestNamespace.ServiceAccount oldAccount;

	private TestNamespace.ServiceAccount newAccount;

	private KubeletPods oldPods;

	private KubeletPods newPods;

	private volatile Watch keyWatch;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("migration");
		this.oldAccount = this.namespace.serviceAccount("old-app", OLD_REPLICAS_RULES);
		this.newAccount = this.namespace.serviceAccount("new-app",
				DocumentedRoles.rules(DocumentedRoles.LEASES, DocumentedRoles.MIGRATION));
		this.oldPods = new KubeletPods(this.controlPlane.admin(), this.namespace.name(), "old-app");
		this.newPods = new KubeletPods(this.controlPlane.admin(), this.namespace.name(), "new-app");
		watchKey();
	}

	/**
	 * Watches the ConfigMap as the administrator, recording each version of the key; after the API
	 * server answered 410 (a restart on a compacted etcd) the watch starts again from now.
	 */
	private void watchKey() {
		this.keyWatch = this.controlPlane.admin()
			.configMaps()
			.inNamespace(this.namespace.name())
			.withName(CONFIG_MAP)
			.watch(new Watcher<>() {
				@Override
				public void eventReceived(Action action, ConfigMap configMap) {
					String value = (configMap.getData() != null) ? configMap.getData().get(KEY) : null;
					ConfigMapMigrationTests.this.keyVersions.add(action + " v"
							+ configMap.getMetadata().getResourceVersion() + " " + KEY + "=" + value);
				}

				@Override
				public void onClose(WatcherException cause) {
					if (cause != null) {
						ConfigMapMigrationTests.this.keyVersions.add("(watch ended: " + cause.getMessage() + ")");
						watchKey();
					}
				}
			});
	}

	@AfterEach
	void stop() {
		this.news.forEach(MigrationRoutingReplica::kill);
		this.olds.forEach(OldProtocolReplica::kill);
		this.keyWatch.close();
		System.out.printf("ConfigMap migration on the real control plane (%s):%n  %s%n  terms:%s%n  key versions: %s%n",
				this.namespace.name(), String.join("\n  ", this.report), this.intervals, this.keyVersions);
		this.namespace.close();
	}

	/**
	 * Three old replicas, one leading; then, one Pod at a time, a new replica starts and an old one
	 * stops gracefully, its Pod ended and removed after: a follower first, then the leader twice, so
	 * that the key passes from old to old and, the last old one gone, to a new replica, which waited
	 * a lease duration with the key free. Then the new leader shuts down and another new replica
	 * takes over. Never an old and a new leader at once, nor two new ones; no request refused.
	 */
	@Test
	void aRolloutOnePodAtATimeNeverHasAnOldAndANewLeaderAtOnce() {
		long started = System.nanoTime();
		for (int i = 0; i < 3; i++) {
			startOld("old-" + i);
		}
		String first = awaitOneLeader((leader) -> true);
		assertThat(isOld(first)).as("an old replica leads first").isTrue();

		try (LeaderSamples samples = LeaderSamples.every(Duration.ofMillis(10), () -> leaders().size())) {
			for (int i = 0; i < 3; i++) {
				MigrationRoutingReplica joined = startNew("new-" + i);
				if (i == 0) {
					// a new replica never takes a key naming a Ready Pod, nor leads without it
					await().during(LEASE_DURATION.multipliedBy(2))
						.atMost(TIMEOUT)
						.until(() -> leaders().equals(List.of(first)) && !joined.isLeader());
				}
				boolean leader = i != 0;
				OldProtocolReplica leaving = liveOlds().filter((old) -> old.isLeader() == leader)
					.findFirst()
					.orElseThrow();
				long stoppedAt = System.nanoTime();
				leaving.stop();
				boolean oldsLeft = liveOlds().findAny().isPresent();
				String next = awaitOneLeader((name) -> isOld(name) == oldsLeft && (leader != name.equals(first)));
				// the kubelet reports the container ended and removes the Pod once the next leader leads:
				// a readiness event of the former leader's Pod while an old replica changes its leader
				// can deadlock that replica (spring-cloud-kubernetes 3.3, docs/migration.md)
				this.oldPods.endAndRemove(leaving.name());
				if (leader) {
					long waited = lastTerm(next).from() - stoppedAt;
					this.report.add(String.format("%s (old, leader) stopped; %s leads %.0f ms later", leaving.name(),
							next, millis(waited)));
					if (!oldsLeft) {
						assertThat(Duration.ofNanos(waited))
							.as("how long after the last old leader stopped %s led: it waits a lease duration with "
									+ "the key free", next)
							.isGreaterThanOrEqualTo(LEASE_DURATION);
					}
				}
			}
			String newLeader = awaitOneLeader((name) -> !isOld(name));
			await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(newLeader)));
			assertThat(keyValue()).isEqualTo(newLeader);
			assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(newLeader);

			// the migrated application goes on: its leader shuts down, another new replica takes over,
			// a lease duration after the key was removed at the earliest
			MigrationRoutingReplica leaving = newReplica(newLeader);
			long stoppedAt = System.nanoTime();
			leaving.stop();
			this.newPods.endAndRemove(leaving.name());
			String successor = awaitOneLeader((name) -> !isOld(name) && !name.equals(newLeader));
			long waited = lastTerm(successor).from() - stoppedAt;
			this.report.add(String.format("%s (new, leader) stopped; %s leads %.0f ms later", newLeader, successor,
					millis(waited)));
			assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(LEASE_DURATION);
			samples.close();
			this.report.add(String.format("samples of who leads, every 10 ms: %s", samples));
			assertThat(samples.withTwoLeaders()).as("samples with two leaders").isZero();
		}
		this.report.add(String.format("the whole rollout took %.1f s", millis(System.nanoTime() - started) / 1000));
		assertNoTwoLeadersOfDifferentSides();
		this.namespace.assertNothingRefused();
	}

	/**
	 * Leaders die, each side's in turn, as crashed processes do: nothing is released, the key keeps
	 * naming the dead leader's Pod, and the kubelet reports its container terminated (the Pod Failed,
	 * not Ready) or removes the Pod.
	 * <ol>
	 * <li>the old leader dies, its Pod reported Failed and left: a new replica takes over, a lease
	 * duration after the Pod turned not Ready at the earliest;</li>
	 * <li>an old replica joins (as in a rollback) and follows the new leader;</li>
	 * <li>the new leader dies (its engine stopped without release: the key and the Lease stay), its
	 * Pod reported Failed: the old replica takes the key at once and leads, the other new replica
	 * stays out;</li>
	 * <li>the old replica dies, its Pod removed: the last new replica takes over, a lease duration
	 * later at the earliest, on the Lease the dead new leader never released.</li>
	 * </ol>
	 */
	@Test
	void killsOfEitherSidesLeaderNeverLeaveAnOldAndANewLeaderAtOnce() {
		OldProtocolReplica old0 = startOld("old-0");
		awaitOneLeader(old0.name()::equals);
		startNew("new-0");
		startNew("new-1");
		await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(old0.name())));

		// 1. the old leader dies; the kubelet reports its container terminated
		old0.kill();
		long unready = System.nanoTime();
		this.oldPods.terminated(old0.name(), 137);
		String firstNew = awaitOneLeader((name) -> !isOld(name));
		long waited = lastTerm(firstNew).from() - unready;
		this.report.add(String.format("old-0 (leader) killed, its Pod Failed; %s leads %.0f ms after", firstNew,
				millis(waited)));
		assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(LEASE_DURATION);

		// 2. an old replica joins and follows the new leader
		OldProtocolReplica old1 = startOld("old-1", QUIET_UPDATE_PERIOD);
		await().atMost(TIMEOUT).until(() -> firstNew.equals(old1.leaderSeen()));
		await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(firstNew)));

		// 3. the new leader dies: its key and Lease stay; the kubelet reports its container terminated
		MigrationRoutingReplica dying = newReplica(firstNew);
		dying.kill();
		this.intervals.ended(firstNew);
		assertThat(keyValue()).as("the key of a dead new leader").isEqualTo(firstNew);
		long newUnready = System.nanoTime();
		this.newPods.terminated(firstNew, 137);
		awaitOneLeader(old1.name()::equals);
		this.report.add(String.format("%s (new, leader) killed, its Pod Failed; old-1 leads %.0f ms after", firstNew,
				millis(lastTerm(old1.name()).from() - newUnready)));
		await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(old1.name())));

		// 4. the old replica dies, its Pod removed: the last new replica takes over
		old1.kill();
		long removed = System.nanoTime();
		this.oldPods.endAndRemove(old1.name());
		String secondNew = awaitOneLeader((name) -> !isOld(name) && !name.equals(firstNew));
		waited = lastTerm(secondNew).from() - removed;
		this.report.add(String.format("old-1 (leader) killed, its Pod removed; %s leads %.0f ms after", secondNew,
				millis(waited)));
		assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(LEASE_DURATION);
		assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(secondNew);

		assertNoTwoLeadersOfDifferentSides();
		this.namespace.assertNothingRefused();
	}

	/**
	 * The API server restarts on an etcd compacted past every version the replicas' watches saw,
	 * while a new replica leads and two old ones follow it: after the restart, a watch resumed from
	 * the version it saw last is answered 410 Gone. The new replica leads again (its gate may close
	 * while the server is away), the old ones follow it still, and their watches work again: when
	 * the new leader dies and its Pod is reported Failed, an old replica takes the key at once (its
	 * watch of the leader's Pod; its timer is a minute away), and when that one stops, the other
	 * takes the key at once (its watch of the ConfigMap).
	 */
	@Test
	void afterAnApiServerRestartOnACompactedEtcdBothSidesFollowTheKeyAgain() {
		long started = System.nanoTime();
		MigrationRoutingReplica first = startNew("new-0");
		// no old replica and no ConfigMap: the new replica waits a lease duration, then creates it
		awaitOneLeader(first.name()::equals);
		this.report.add(String.format("new-0 alone created the ConfigMap and led %.0f ms after its start",
				millis(lastTerm(first.name()).from() - started)));
		OldProtocolReplica old0 = startOld("old-0", QUIET_UPDATE_PERIOD);
		OldProtocolReplica old1 = startOld("old-1", QUIET_UPDATE_PERIOD);
		startNew("new-1");
		await().atMost(TIMEOUT)
			.until(() -> first.name().equals(old0.leaderSeen()) && first.name().equals(old1.leaderSeen()));
		await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(first.name())));

		this.controlPlane.admin()
			.configMaps()
			.inNamespace(this.namespace.name())
			.resource(new ConfigMapBuilder().withNewMetadata().withName("written-after-the-key").endMetadata().build())
			.create();
		long revision = this.controlPlane.etcd().compact();
		AuditLog audit = this.controlPlane.apiServer().auditLog();
		long restarting = System.nanoTime();
		long beforeRestart = audit.mark();
		this.controlPlane.apiServer().restart();
		long afterRestart = audit.mark();
		this.report.add(String.format("etcd compacted to revision %d; the API server restarted in %.0f ms", revision,
				millis(System.nanoTime() - restarting)));
		String leader = awaitOneLeader((name) -> !isOld(name));
		await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(leader)));
		this.report.add(String.format("after the restart %s leads (terms of new-0: %d)", leader,
				this.intervals.intervals().stream().filter((term) -> term.holder().equals(first.name())).count()));

		// the old replicas' watch of the leader's Pod: the new leader dies, an old replica takes over
		newReplica(leader).kill();
		this.intervals.ended(leader);
		long unready = System.nanoTime();
		this.newPods.terminated(leader, 137);
		String oldLeader = awaitOneLeader(ConfigMapMigrationTests::isOld);
		long tookOver = lastTerm(oldLeader).from() - unready;
		this.report.add(String.format("%s (new, leader) killed, its Pod Failed; %s leads %.0f ms after", leader,
				oldLeader, millis(tookOver)));
		assertThat(Duration.ofNanos(tookOver)).as("an old replica's takeover, from its watch of the leader's Pod")
			.isLessThan(LEASE_DURATION);

		// the old replicas' watch of the ConfigMap: the old leader stops, the other takes the key
		OldProtocolReplica leaving = oldLeader.equals(old0.name()) ? old0 : old1;
		OldProtocolReplica other = (leaving == old0) ? old1 : old0;
		await().atMost(TIMEOUT).until(() -> oldLeader.equals(other.leaderSeen()));
		long stoppedAt = System.nanoTime();
		leaving.stop();
		awaitOneLeader(other.name()::equals);
		this.oldPods.endAndRemove(leaving.name());
		long handedOver = lastTerm(other.name()).from() - stoppedAt;
		this.report.add(String.format("%s (old, leader) stopped; %s leads %.0f ms after", leaving.name(),
				other.name(), millis(handedOver)));
		assertThat(Duration.ofNanos(handedOver)).as("an old replica's takeover, from its watch of the ConfigMap")
			.isLessThan(LEASE_DURATION);

		assertNoTwoLeadersOfDifferentSides();
		// A restarted API server serves before its RBAC authorizer has read the Roles: for a few hundred
		// milliseconds, until it is ready, it refuses (403) requests its Roles allow, which the replicas
		// resending at once meet. Those are counted; any other refusal fails.
		List<AuditLog.Request> whileRestarting = refused(audit, beforeRestart);
		whileRestarting = whileRestarting.subList(0, whileRestarting.size() - refused(audit, afterRestart).size());
		this.report.add(String.format("refused (403) while the API server restarted, before it was ready: %d, %s",
				whileRestarting.size(), whileRestarting.stream().map((request) -> request.user()
					.substring(request.user().lastIndexOf(':') + 1) + " " + request.verb() + " " + request.resource())
					.distinct()
					.toList()));
		assertThat(whileRestarting).allMatch((request) -> request.code() == 403);
		assertThat(refused(audit, 0)).as("requests refused before the restart")
			.hasSize(refused(audit, beforeRestart).size());
		assertThat(refused(audit, afterRestart)).as("requests refused once the API server was ready again").isEmpty();
	}

	/** The requests of the namespace's ServiceAccounts since the mark that the API server refused. */
	private List<AuditLog.Request> refused(AuditLog audit, long mark) {
		String users = "system:serviceaccount:" + this.namespace.name() + ":";
		return audit.since(mark, (request) -> request.user().startsWith(users) && request.refused());
	}

	// ---- assertions

	/**
	 * No old and new replica, and no two new replicas, led at the same instant; overlaps of two old
	 * replicas, which the old protocol allows among its own (docs/migration.md), are reported.
	 */
	private void assertNoTwoLeadersOfDifferentSides() {
		List<Overlap> overlaps = this.intervals.overlaps();
		List<Overlap> oldAndOld = overlaps.stream()
			.filter((overlap) -> isOld(overlap.first().holder()) && isOld(overlap.second().holder()))
			.toList();
		this.report.add(String.format("overlaps of two old replicas (the old protocol's own): %d %s", oldAndOld.size(),
				oldAndOld.stream().map((overlap) -> millis(overlap.length().toNanos()) + " ms").toList()));
		List<Overlap> others = new ArrayList<>(overlaps);
		others.removeAll(oldAndOld);
		assertThat(others).as("two leaders at once, not both old; terms:%s", this.intervals).isEmpty();
		assertThat(this.intervals.anomalies()).isEmpty();
		this.report.add(String.format("old replicas deadlocked (a flaw of the old protocol): %s",
				this.olds.stream().filter((old) -> old.wasStuck() || old.isStuck()).map(OldProtocolReplica::name).toList()));
	}

	// ---- replicas

	private OldProtocolReplica startOld(String pod) {
		return startOld(pod, UPDATE_PERIOD);
	}

	private OldProtocolReplica startOld(String pod, Duration updatePeriod) {
		this.oldPods.running(pod);
		OldProtocolReplica replica = new OldProtocolReplica(
				OldProtocolReplica.Settings.of(this.namespace.name(), pod).withUpdatePeriod(updatePeriod),
				this.oldAccount.client(), null, this.intervals);
		this.olds.add(replica);
		replica.start();
		return replica;
	}

	private MigrationRoutingReplica startNew(String pod) {
		this.newPods.running(pod);
		MigrationRoutingReplica replica = MigrationRoutingReplica.start(pod, this.namespace.name(),
				this.newAccount.config(this.controlPlane.apiServer()),
				Map.of("spring.application.name", "orders", "leader.election.config-map-migration.enabled", "true"),
				recorder(pod));
		this.news.add(replica);
		return replica;
	}

	/** Tells the terms of a new replica's default election, under its Pod's name, to the intervals. */
	private ElectionListener recorder(String pod) {
		return new ElectionListener() {

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				if ("default".equals(election)) {
					ConfigMapMigrationTests.this.intervals.granted(pod, gateOpenedAt);
				}
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				if ("default".equals(election)) {
					ConfigMapMigrationTests.this.intervals.revoked(pod, gateClosedAt);
				}
			}

		};
	}

	private Stream<OldProtocolReplica> liveOlds() {
		return this.olds.stream().filter((replica) -> !replica.hasEnded());
	}

	private MigrationRoutingReplica newReplica(String name) {
		return this.news.stream().filter((replica) -> replica.name().equals(name)).findFirst().orElseThrow();
	}

	private static boolean isOld(String name) {
		return name.startsWith("old-");
	}

	/** The live replicas that lead, old and new, by Pod name. */
	private List<String> leaders() {
		List<String> leaders = new ArrayList<>();
		liveOlds().filter(OldProtocolReplica::isLeader).forEach((replica) -> leaders.add(replica.name()));
		this.news.stream().filter(MigrationRoutingReplica::isLeader).forEach((replica) -> leaders.add(replica.name()));
		return leaders;
	}

	/**
	 * Waits until exactly one live replica leads, one the predicate accepts, the intervals agree,
	 * and the key names its Pod.
	 */
	private String awaitOneLeader(Predicate<String> expected) {
		AtomicReference<String> found = new AtomicReference<>();
		await().atMost(TIMEOUT).untilAsserted(() -> {
			List<String> leaders = leaders();
			assertThat(leaders).as("leaders; terms:%s", this.intervals).hasSize(1);
			assertThat(leaders.get(0)).as("the one leader; terms:%s", this.intervals).matches(expected);
			assertThat(this.intervals.leaders()).containsExactlyElementsOf(leaders);
			assertThat(keyValue()).isEqualTo(leaders.get(0));
			found.set(leaders.get(0));
		});
		return found.get();
	}

	private Interval lastTerm(String holder) {
		List<Interval> terms = this.intervals.intervals()
			.stream()
			.filter((interval) -> interval.holder().equals(holder))
			.toList();
		assertThat(terms).as("terms of %s", holder).isNotEmpty();
		return terms.get(terms.size() - 1);
	}

	private String keyValue() {
		ConfigMap configMap = this.controlPlane.admin()
			.configMaps()
			.inNamespace(this.namespace.name())
			.withName(CONFIG_MAP)
			.get();
		return (configMap != null && configMap.getData() != null) ? configMap.getData().get(KEY) : null;
	}

	private Lease lease() {
		return this.controlPlane.admin().leases().inNamespace(this.namespace.name()).withName(LEASE).get();
	}

	private static double millis(long nanos) {
		return nanos / 1_000_000.0;
	}

}
