package io.leaderelection.integration;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.StepDown;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * The contract's scenarios on the cluster {@code KUBECONFIG} points at (DESIGN.md, section 6):
 * exactly one leader among three replicas, a graceful handover that writes the release, a
 * step-down, named elections on Leases of their own, and a fencing token that rises with every
 * term, also across a deletion of the Lease. Every replica is a Spring context of its own with
 * its own fabric8 client built from the kubeconfig and its own identity; every gate of every
 * replica is recorded ({@link GateHistory}) and no two may overlap.
 * <p>
 * Runs in a namespace {@code leader-election-it-<random>} it creates first and deletes at the
 * end, failed or not (labelled {@value #CREATED_BY_LABEL}={@value #CREATED_BY}, so that the
 * namespaces of a run that was killed can be found). Skipped, saying why, when {@code KUBECONFIG}
 * is not set or its cluster cannot be reached, as the contract asks; a cluster that answers but
 * refuses to create the namespace fails it, naming the permissions the test needs. fabric8's own
 * system property {@code kubeconfig}, which it reads before {@code KUBECONFIG}, names the cluster
 * as well: the control-plane suite sets it to run this test against its control plane.
 * <p>
 * Timings are lease 4s, renew deadline 2s, retry 500ms: longer than the mock server tests', for
 * the latency of a real API server, still short enough for the whole class to take about a
 * minute.
 * <p>
 * The one test class not named {@code *Tests}: users run it by this name, the design's, against
 * their own cluster.
 */
@ExtendWith(RealClusterIntegrationTest.RunsWhenKubeconfigIsSet.class)
class RealClusterIntegrationTest {

	static final String SKIPPED = "KUBECONFIG is not set, so the real-cluster test is skipped. To run it, point "
			+ "KUBECONFIG at a cluster where you may create and delete namespaces, e.g. `kind create cluster "
			+ "--name leader-election-it && kind get kubeconfig --name leader-election-it > /tmp/kind.kubeconfig && "
			+ "KUBECONFIG=/tmp/kind.kubeconfig ./mvnw -B verify -pl leader-election-spring-boot-autoconfigure -am "
			+ "-Dtest=RealClusterIntegrationTest -Dsurefire.failIfNoSpecifiedTests=false`";

	static final String CREATED_BY_LABEL = "app.kubernetes.io/created-by";

	static final String CREATED_BY = "leader-election-it";

	private static final Duration LEASE_DURATION = Duration.ofSeconds(4);

	private static final Duration RENEW_DEADLINE = Duration.ofSeconds(2);

	private static final Duration RETRY_PERIOD = Duration.ofMillis(500);

	private static final Map<String, Object> TIMINGS = Map.of("leader.election.lease-duration",
			LEASE_DURATION.toMillis() + "ms", "leader.election.renew-deadline", RENEW_DEADLINE.toMillis() + "ms",
			"leader.election.retry-period", RETRY_PERIOD.toMillis() + "ms");

	/**
	 * How long a first leader may take: it waits a lease duration after it saw the Lease missing,
	 * plus the start of three contexts and the round trips of a real API server.
	 */
	private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The bound on a handover by release (from the old gate closing to the new one opening):
	 * without the release a follower would wait out the lease, at least a lease duration less a
	 * retry period (3.5s) after the last renewal; with it, a watch event and one write.
	 */
	private static final Duration RELEASE_HANDOVER_BOUND = LEASE_DURATION.dividedBy(2);

	private static KubernetesClient kubectl;

	private static String namespace;

	private final GateHistory history = new GateHistory();

	private final List<ClusterReplica> replicas = new ArrayList<>();

	private final List<LeaseVersions> watches = new ArrayList<>();

	@BeforeAll
	static void createNamespace() {
		String kubeconfig = kubeconfig();
		for (String file : kubeconfig.substring(kubeconfig.indexOf('=') + 1).split(File.pathSeparator)) {
			if (!file.isBlank() && !new File(file).isFile()) {
				skip(String.format("%s: %s is not a file, so there is no cluster to run the real-cluster "
						+ "test against.", kubeconfig, file));
			}
		}
		Config config = Config.autoConfigure(null);
		config.setConnectionTimeout(5_000);
		config.setRequestTimeout(15_000);
		config.setRequestRetryBackoffLimit(1);
		kubectl = new KubernetesClientBuilder().withConfig(config).build();
		String name = "leader-election-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
		String context = (config.getCurrentContext() != null) ? config.getCurrentContext().getName() : "(none)";
		try {
			kubectl.namespaces()
				.resource(new NamespaceBuilder().withNewMetadata()
					.withName(name)
					.addToLabels(CREATED_BY_LABEL, CREATED_BY)
					.endMetadata()
					.build())
				.create();
		}
		catch (KubernetesClientException ex) {
			kubectl.close();
			kubectl = null;
			String where = String.format("%s (context %s, server %s) is set, so the real-cluster test runs, "
					+ "but creating its namespace %s failed: ", kubeconfig, context, config.getMasterUrl(), name);
			if (ex.getCode() > 0) {
				fail(where + "the server answered HTTP " + ex.getCode() + " (" + ex.getMessage() + "). The test's user "
						+ "needs to create and delete namespaces, and in them to get, create, update, watch, delete "
						+ "and list Leases and create and list Events (cluster-admin on kind or k3d has all of it). "
						+ "Fix the kubeconfig or unset KUBECONFIG to skip this test.", ex);
			}
			Throwable cause = ex;
			while (cause.getCause() != null && cause.getCause() != cause) {
				cause = cause.getCause();
			}
			skip(where + "the server could not be reached (" + cause + "), so the test is skipped. Start the cluster "
					+ "or fix the kubeconfig to run it.");
		}
		namespace = name;
		System.out.printf("Real-cluster test: context %s, server %s, namespace %s%n", context, config.getMasterUrl(),
				namespace);
	}

	/**
	 * Skips the class, saying why on the console as well: the contract runs this test only
	 * against a cluster that can be reached. A cluster that answers but refuses fails it.
	 */
	private static void skip(String why) {
		System.out.println("SKIPPED RealClusterIntegrationTest: " + why);
		Assumptions.abort(why);
	}

	@AfterAll
	static void deleteNamespace() {
		if (kubectl == null) {
			return;
		}
		try {
			if (namespace != null) {
				kubectl.namespaces().withName(namespace).delete();
				System.out.printf("Real-cluster test: deleted namespace %s (the cluster removes what it holds in the "
						+ "background)%n", namespace);
			}
		}
		catch (KubernetesClientException ex) {
			System.err.printf("Real-cluster test: could not delete namespace %s, delete it with `kubectl delete "
					+ "namespace -l %s=%s`: %s%n", namespace, CREATED_BY_LABEL, CREATED_BY, ex);
			throw ex;
		}
		finally {
			kubectl.close();
		}
	}

	@AfterEach
	void stopReplicas() {
		this.replicas.forEach(ClusterReplica::close);
		this.watches.forEach(LeaseVersions::close);
	}

	@Test
	void exactlyOneOfThreeReplicasLeads() {
		LeaseVersions versions = watchLease("one-leader-leader");
		startReplicas("one-leader", Map.of(), 3);
		ClusterReplica leader = awaitLeader(LeaderElector.DEFAULT_ELECTION);
		// several renewals later it still leads alone, and the others follow it
		await().during(LEASE_DURATION.multipliedBy(2))
			.atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> leaders(LeaderElector.DEFAULT_ELECTION).equals(List.of(leader)));
		await().atMost(LEASE_DURATION)
			.until(() -> this.replicas.stream()
				.map((replica) -> replica.status(LeaderElector.DEFAULT_ELECTION).holderIdentity())
				.allMatch(leader.name()::equals));
		Lease lease = lease("one-leader-leader");
		assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(leader.name());
		assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo((int) LEASE_DURATION.toSeconds());
		LeaderStatus status = leader.status(LeaderElector.DEFAULT_ELECTION);
		assertThat(status.namespace()).isEqualTo(namespace);
		assertThat(status.leaseName()).isEqualTo("one-leader-leader");
		assertThat(status.fencingToken()).isNotNull();
		assertThat(status.lastError()).isNull();
		// one write per renewal: the Lease went on changing while the gate stayed open
		assertThat(versions.heldBy(leader.name())).as("versions of the Lease %s wrote", leader).hasSizeGreaterThan(4);
		// the elector records an Event on the Lease
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> kubectl.v1()
				.events()
				.inNamespace(namespace)
				.list()
				.getItems()
				.stream()
				.anyMatch((event) -> isLeaderEvent(event, "one-leader-leader", leader.name() + " became leader")));
		closeAllAndAssertNoOverlap(LeaderElector.DEFAULT_ELECTION);
	}

	@Test
	void aGracefulShutdownOfTheLeaderWritesTheReleaseAndAnotherReplicaTakesOver() {
		LeaseVersions versions = watchLease("handover-leader");
		startReplicas("handover", Map.of(), 3);
		for (int handover = 0; handover < 2; handover++) {
			ClusterReplica leader = awaitLeader(LeaderElector.DEFAULT_ELECTION);
			long token = leader.status(LeaderElector.DEFAULT_ELECTION).fencingToken();
			leader.context().close();
			ClusterReplica successor = awaitLeader(LeaderElector.DEFAULT_ELECTION);
			leader.close();
			this.replicas.remove(leader);
			GateHistory.Interval released = interval(leader, token);
			GateHistory.Interval taken = this.history.last();
			assertThat(taken.replica).isEqualTo(successor.name());
			Duration handoverTime = Duration.ofNanos(taken.openedAt - released.closedAt);
			System.out.printf("real cluster, graceful handover %s -> %s: %d ms%n", leader, successor,
					handoverTime.toMillis());
			assertThat(handoverTime).as("from %s's gate closing to %s's opening", leader, successor)
				.isLessThan(RELEASE_HANDOVER_BOUND);
			assertThat(taken.fencingToken).isGreaterThan(token);
			versions.assertReleasedBetween(leader, successor);
		}
		// the last one stops too: nobody to hand over to, the Lease stays released
		ClusterReplica last = awaitLeader(LeaderElector.DEFAULT_ELECTION);
		closeAllAndAssertNoOverlap(LeaderElector.DEFAULT_ELECTION);
		Lease lease = lease("handover-leader");
		assertThat(lease.getSpec().getHolderIdentity()).as("holder after %s stopped", last).isNullOrEmpty();
		assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
	}

	@Test
	void aLeaderThatStepsDownReleasesTheLeaseAndAnotherReplicaLeads() {
		LeaseVersions versions = watchLease("step-down-leader");
		startReplicas("step-down", Map.of(), 3);
		ClusterReplica leader = awaitLeader(LeaderElector.DEFAULT_ELECTION);
		long token = leader.status(LeaderElector.DEFAULT_ELECTION).fencingToken();
		StepDown stepDown = leader.elector().stepDown(LeaderElector.DEFAULT_ELECTION, Duration.ofSeconds(10));
		assertThat(stepDown.release()).as("%s", stepDown).isEqualTo(StepDown.Release.WRITTEN);
		assertThat(leader.elector().isLeader()).isFalse();
		ClusterReplica successor = awaitLeader(LeaderElector.DEFAULT_ELECTION);
		assertThat(successor).isNotSameAs(leader);
		GateHistory.Interval taken = this.history.last();
		assertThat(taken.replica).isEqualTo(successor.name());
		Duration handoverTime = Duration.ofNanos(taken.openedAt - interval(leader, token).closedAt);
		System.out.printf("real cluster, step-down %s -> %s: %d ms%n", leader, successor, handoverTime.toMillis());
		assertThat(handoverTime).isLessThan(RELEASE_HANDOVER_BOUND);
		assertThat(taken.fencingToken).isGreaterThan(token);
		versions.assertReleasedBetween(leader, successor);
		// the successor keeps it; the replica that stepped down follows it
		await().during(LEASE_DURATION.multipliedBy(2))
			.atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> leaders(LeaderElector.DEFAULT_ELECTION).equals(List.of(successor)));
		assertThat(leader.status(LeaderElector.DEFAULT_ELECTION).holderIdentity()).isEqualTo(successor.name());
		closeAllAndAssertNoOverlap(LeaderElector.DEFAULT_ELECTION);
	}

	@Test
	void namedElectionsEachHaveOneLeaderOnALeaseOfTheirOwn() {
		Map<String, String> leaseNames = new LinkedHashMap<>();
		leaseNames.put(LeaderElector.DEFAULT_ELECTION, "named-leader");
		leaseNames.put("billing", "named-billing");
		leaseNames.put("reports", "named-reports-leader");
		startReplicas("named", Map.of("leader.election.elections.billing.lease-name", "named-billing",
				"leader.election.elections.reports.retry-period", RETRY_PERIOD.toMillis() + "ms"), 3);
		Map<String, ClusterReplica> leaders = new LinkedHashMap<>();
		leaseNames.keySet().forEach((election) -> leaders.put(election, awaitLeader(election)));
		await().during(LEASE_DURATION)
			.atMost(LEASE_DURATION.multipliedBy(2))
			.until(() -> leaseNames.keySet()
				.stream()
				.allMatch((election) -> leaders(election).equals(List.of(leaders.get(election)))));
		List<String> uids = new ArrayList<>();
		leaseNames.forEach((election, leaseName) -> {
			ClusterReplica leader = leaders.get(election);
			LeaderStatus status = leader.status(election);
			assertThat(status.leaseName()).isEqualTo(leaseName);
			assertThat(status.namespace()).isEqualTo(namespace);
			Lease lease = lease(leaseName);
			assertThat(lease.getSpec().getHolderIdentity()).as("holder of %s", leaseName).isEqualTo(leader.name());
			uids.add(lease.getMetadata().getUid());
		});
		assertThat(uids).doesNotHaveDuplicates();
		System.out.printf("real cluster, named elections: %s%n", leaders);

		// billing changes hands; the other elections keep their leaders and terms
		ClusterReplica billingLeader = leaders.get("billing");
		Map<String, Long> tokens = new LinkedHashMap<>();
		leaders.forEach((election, leader) -> tokens.put(election, leader.status(election).fencingToken()));
		assertThat(billingLeader.elector().stepDown("billing", Duration.ofSeconds(10)).release())
			.isEqualTo(StepDown.Release.WRITTEN);
		ClusterReplica billingSuccessor = awaitLeader("billing");
		assertThat(billingSuccessor).isNotSameAs(billingLeader);
		assertThat(billingSuccessor.status("billing").fencingToken()).isGreaterThan(tokens.get("billing"));
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> billingSuccessor.name().equals(lease("named-billing").getSpec().getHolderIdentity()));
		for (String election : List.of(LeaderElector.DEFAULT_ELECTION, "reports")) {
			assertThat(leaders(election)).as("leaders of %s", election).containsExactly(leaders.get(election));
			assertThat(leaders.get(election).status(election).fencingToken()).as("token of %s", election)
				.isEqualTo(tokens.get(election));
		}
		closeAllAndAssertNoOverlap(leaseNames.keySet().toArray(String[]::new));
	}

	@Test
	void theFencingTokenRisesWithEveryTermAlsoAcrossADeletionOfTheLease() {
		startReplicas("fencing", Map.of(), 3);
		List<Long> tokens = new ArrayList<>();
		ClusterReplica leader = awaitLeader(LeaderElector.DEFAULT_ELECTION);
		tokens.add(token(leader));
		System.out.printf("real cluster, fencing token source: %s%n",
				leader.status(LeaderElector.DEFAULT_ELECTION).fencingTokenSource());

		// a step-down
		assertThat(leader.elector().stepDown(LeaderElector.DEFAULT_ELECTION, Duration.ofSeconds(10)).release())
			.isEqualTo(StepDown.Release.WRITTEN);
		leader = awaitLeaderOtherThan(leader);
		tokens.add(token(leader));

		// `kubectl delete lease` under the leader: it stops leading, and the Lease is created again
		// (a lease duration later), with a higher token although the server starts a new object
		ClusterReplica deletedUnder = leader;
		kubectl.leases().inNamespace(namespace).withName("fencing-leader").delete();
		await().atMost(ELECTION_TIMEOUT).until(() -> !deletedUnder.elector().isLeader());
		leader = awaitLeader(LeaderElector.DEFAULT_ELECTION);
		tokens.add(token(leader));

		// a graceful shutdown
		ClusterReplica stopped = leader;
		stopped.close();
		this.replicas.remove(stopped);
		leader = awaitLeader(LeaderElector.DEFAULT_ELECTION);
		tokens.add(token(leader));

		System.out.printf("real cluster, fencing tokens: %s%n", tokens);
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		// and every term the gates saw, not only the ones sampled above
		closeAllAndAssertNoOverlap(LeaderElector.DEFAULT_ELECTION);
	}

	// ---- helpers

	private void startReplicas(String application, Map<String, Object> properties, int count) {
		for (int i = 1; i <= count; i++) {
			this.replicas.add(ClusterReplica.start(application + "-" + i, application, this.history, properties));
		}
	}

	private ClusterReplica awaitLeader(String election) {
		await().atMost(ELECTION_TIMEOUT).until(() -> leaders(election).size() == 1);
		return leaders(election).get(0);
	}

	private ClusterReplica awaitLeaderOtherThan(ClusterReplica previous) {
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> leaders(LeaderElector.DEFAULT_ELECTION).size() == 1
					&& leaders(LeaderElector.DEFAULT_ELECTION).get(0) != previous);
		return leaders(LeaderElector.DEFAULT_ELECTION).get(0);
	}

	/** The replicas whose gate of the election is open, asserting there is at most one. */
	private List<ClusterReplica> leaders(String election) {
		List<ClusterReplica> leaders = this.replicas.stream().filter((replica) -> replica.isLeader(election)).toList();
		assertThat(leaders).as("replicas whose gate of %s is open", election).hasSizeLessThanOrEqualTo(1);
		return leaders;
	}

	private static long token(ClusterReplica leader) {
		Long token = leader.status(LeaderElector.DEFAULT_ELECTION).fencingToken();
		assertThat(token).as("fencing token of %s", leader).isNotNull();
		return token;
	}

	private GateHistory.Interval interval(ClusterReplica replica, long token) {
		return this.history.intervals()
			.stream()
			.filter((interval) -> interval.replica.equals(replica.name()) && interval.fencingToken == token)
			.findFirst()
			.orElseThrow();
	}

	/** Stops every replica (each releasing what it holds), then checks the whole test's gates. */
	private void closeAllAndAssertNoOverlap(String... elections) {
		this.replicas.forEach(ClusterReplica::close);
		this.replicas.clear();
		for (String election : elections) {
			this.history.assertNoOverlap(election);
		}
	}

	private LeaseVersions watchLease(String leaseName) {
		LeaseVersions versions = new LeaseVersions();
		versions.watch = kubectl.leases().inNamespace(namespace).withName(leaseName).watch(versions);
		this.watches.add(versions);
		return versions;
	}

	private static Lease lease(String name) {
		return kubectl.leases().inNamespace(namespace).withName(name).get();
	}

	private static boolean isLeaderEvent(Event event, String leaseName, String message) {
		return event.getInvolvedObject() != null && leaseName.equals(event.getInvolvedObject().getName())
				&& "Lease".equals(event.getInvolvedObject().getKind()) && message.equals(event.getMessage());
	}

	/**
	 * The kubeconfig fabric8 reads, where it looks for one first, as {@code NAME=files}: its
	 * system property {@code kubeconfig}, else {@code KUBECONFIG}; {@code null} when neither is set.
	 */
	static String kubeconfig() {
		String property = System.getProperty("kubeconfig");
		if (property != null && !property.isBlank()) {
			return "kubeconfig=" + property;
		}
		String variable = System.getenv("KUBECONFIG");
		return (variable != null && !variable.isBlank()) ? "KUBECONFIG=" + variable : null;
	}

	/**
	 * Enables the class when {@code KUBECONFIG} (or fabric8's system property {@code kubeconfig})
	 * is set, and otherwise disables it and prints why: surefire shows a disabled reason only in
	 * its XML report, not on the console.
	 */
	static final class RunsWhenKubeconfigIsSet implements ExecutionCondition {

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			String kubeconfig = kubeconfig();
			if (kubeconfig != null) {
				return ConditionEvaluationResult.enabled(kubeconfig);
			}
			if (context.getTestMethod().isEmpty()) {
				System.out.println("SKIPPED " + context.getDisplayName() + ": " + SKIPPED);
			}
			return ConditionEvaluationResult.disabled(SKIPPED);
		}

	}

	/** Every version of one Lease, in the order the API server's watch delivered them. */
	static final class LeaseVersions implements Watcher<Lease>, AutoCloseable {

		final List<Version> versions = new CopyOnWriteArrayList<>();

		Watch watch;

		@Override
		public void eventReceived(Action action, Lease lease) {
			this.versions.add(new Version(action, lease.getMetadata().getResourceVersion(),
					lease.getSpec().getHolderIdentity(), lease.getSpec().getLeaseDurationSeconds()));
		}

		@Override
		public void onClose(WatcherException cause) {
		}

		List<Version> heldBy(String holder) {
			return this.versions.stream()
				.filter((version) -> version.action != Action.DELETED && holder.equals(version.holder))
				.toList();
		}

		/**
		 * Waits until the watch has delivered the successor's first version after the old
		 * leader's last one, then asserts that a release (no holder, lease duration 1s, as
		 * client-go writes it) came in between.
		 */
		void assertReleasedBetween(ClusterReplica old, ClusterReplica successor) {
			await().atMost(ELECTION_TIMEOUT).until(() -> {
				List<Version> seen = List.copyOf(this.versions);
				return firstAfter(seen, lastOf(seen, old), successor) > 0;
			});
			List<Version> all = List.copyOf(this.versions);
			int lastOfOld = lastOf(all, old);
			int firstOfSuccessor = firstAfter(all, lastOfOld, successor);
			assertThat(all.subList(lastOfOld + 1, firstOfSuccessor))
				.as("versions between %s's last and %s's first: %s", old, successor,
						all.subList(lastOfOld, firstOfSuccessor + 1))
				.anyMatch((version) -> version.action == Action.MODIFIED
						&& (version.holder == null || version.holder.isEmpty())
						&& Objects.equals(version.leaseDurationSeconds, 1));
		}

		private static int lastOf(List<Version> versions, ClusterReplica holder) {
			for (int i = versions.size() - 1; i >= 0; i--) {
				if (holder.name().equals(versions.get(i).holder)) {
					return i;
				}
			}
			return -1;
		}

		private static int firstAfter(List<Version> versions, int index, ClusterReplica holder) {
			if (index < 0) {
				return -1;
			}
			for (int i = index + 1; i < versions.size(); i++) {
				if (holder.name().equals(versions.get(i).holder)) {
					return i;
				}
			}
			return -1;
		}

		@Override
		public void close() {
			if (this.watch != null) {
				this.watch.close();
			}
		}

		record Version(Action action, String resourceVersion, String holder, Integer leaseDurationSeconds) {

			@Override
			public String toString() {
				return this.action + " " + this.resourceVersion + " " + this.holder + "/" + this.leaseDurationSeconds
						+ "s";
			}

		}

	}

	/**
	 * One application instance on the cluster: its own Spring context, identity, and fabric8
	 * client configured from {@code KUBECONFIG} as fabric8 configures itself.
	 */
	static final class ClusterReplica implements AutoCloseable {

		private final String name;

		private final KubernetesClient client;

		private final ConfigurableApplicationContext context;

		private ClusterReplica(String name, KubernetesClient client, ConfigurableApplicationContext context) {
			this.name = name;
			this.client = client;
			this.context = context;
		}

		static ClusterReplica start(String name, String application, GateHistory history,
				Map<String, Object> properties) {
			KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.autoConfigure(null)).build();
			Map<String, Object> all = new LinkedHashMap<>();
			all.put("spring.application.name", application);
			all.put("leader.election.identity", name);
			all.put("leader.election.namespace", namespace);
			all.putAll(TIMINGS);
			all.putAll(properties);
			try {
				ConfigurableApplicationContext context = new SpringApplicationBuilder(ClusterReplicaApplication.class)
					.web(WebApplicationType.NONE)
					.properties(all)
					.initializers((applicationContext) -> {
						applicationContext.getBeanFactory().registerSingleton("kubernetesClient", client);
						applicationContext.getBeanFactory()
							.registerSingleton("gateRecorder", history.recorderFor(name));
					})
					.run();
				return new ClusterReplica(name, client, context);
			}
			catch (RuntimeException ex) {
				client.close();
				throw ex;
			}
		}

		String name() {
			return this.name;
		}

		LeaderElector elector() {
			return this.context.getBean(LeaderElector.class);
		}

		LeaderStatus status(String election) {
			return elector().status(election);
		}

		boolean isLeader(String election) {
			return this.context.isActive() && elector().isLeader(election);
		}

		ConfigurableApplicationContext context() {
			return this.context;
		}

		@Override
		public void close() {
			this.context.close();
			this.client.close();
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ClusterReplicaApplication {

	}

}
