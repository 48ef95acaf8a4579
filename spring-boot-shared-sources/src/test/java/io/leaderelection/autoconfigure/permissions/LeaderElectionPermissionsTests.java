package io.leaderelection.autoconfigure.permissions;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.BootLine;
import io.leaderelection.actuate.health.LeaderElectionHealthContributorAutoConfiguration;
import io.leaderelection.actuate.health.LeaderElectionHealthIndicator;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionFailureAnalysis;
import io.leaderelection.autoconfigure.LeaderElectionLifecycle;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.events.LeaderElectionEventsAutoConfiguration;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.kubernetes.ElectorFeature;
import io.leaderelection.kubernetes.Permission;
import io.leaderelection.memory.InMemoryLeaseStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderElectionPermissionsAutoConfiguration}: {@code leader.election.permission-check}
 * against fabric8's mock API server in expectations mode, answering each SelfSubjectAccessReview
 * as an API server whose authorizer grants a given set of permissions does.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaderElectionPermissionsTests {

	private static final String REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

	/** What the lease mode with Events needs, in the namespace of the tests' Leases. */
	private static final Set<String> LEASE_MODE = Set.of("coordination.k8s.io/leases get permissions",
			"coordination.k8s.io/leases create permissions", "coordination.k8s.io/leases update permissions",
			"coordination.k8s.io/leases watch permissions", "/events create permissions");

	private static final KubernetesSerialization serialization = new KubernetesSerialization();

	private KubernetesMockServer server;

	/** The reviews the server answered, as {@code group/resource verb namespace}. */
	private final ConcurrentLinkedQueue<String> asked = new ConcurrentLinkedQueue<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class,
				LeaderElectionEventsAutoConfiguration.class, LeaderElectionPermissionsAutoConfiguration.class))
		.withBean(KubernetesClient.class, () -> this.server.createClient())
		.withPropertyValues("spring.application.name=orders", "leader.election.namespace=permissions");

	@BeforeEach
	void startServer() {
		this.server = new KubernetesMockServer(false) {

			// HTTP/1.1 only, as the Boot 3.5 line's Vert.x client speaks to plain HTTP: the JDK's
			// client (the Boot 4 line's) would ask for an h2c upgrade.
			@Override
			protected Config initConfig() {
				Config config = super.initConfig();
				config.setHttp2Disable(true);
				return config;
			}

		};
		this.server.init(InetAddress.getLoopbackAddress(), 0);
	}

	@AfterEach
	void stopServer() {
		this.server.destroy();
	}

	@Test
	void whatTheFeaturesNeedIsAskedForOnceAtStart() {
		grant(LEASE_MODE);
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(this.asked).containsExactlyInAnyOrderElementsOf(LEASE_MODE);
			assertThat(context.getBean(LeaderElectionPermissions.class).missing()).isEmpty();
		});
	}

	@Test
	void aMissingPermissionFailsTheStartNamingVerbResourceFeatureAndTheRuleToAdd() {
		grant(Set.of("coordination.k8s.io/leases get permissions", "coordination.k8s.io/leases watch permissions",
				"/events create permissions"));
		this.contextRunner.run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
			assertThat(analysis.getDescription()).isEqualTo("Leader election cannot start: the Kubernetes API server "
					+ "says this application's service account may not do what the configured features need:\n"
					+ "    - 'create' on 'leases' (API group coordination.k8s.io) in namespace 'permissions', needed by "
					+ "leader election\n"
					+ "    - 'update' on 'leases' (API group coordination.k8s.io) in namespace 'permissions', needed by "
					+ "leader election");
			assertThat(analysis.getAction()).isEqualTo("""
					Add these rules to the Role bound to the application's ServiceAccount in namespace 'permissions':

					rules:
					  - apiGroups: ["coordination.k8s.io"]
					    resources: ["leases"]
					    verbs: ["create", "update"]

					See docs/operations.md#rbac. Or set 'leader.election.permission-check' to 'warn' to start \
					without them, the health contributor DOWN.""");
		});
	}

	@Test
	void aMissingOptionalPermissionIsLoggedAndTheStartGoesOn(CapturedOutput output) {
		grant(Set.of("coordination.k8s.io/leases get permissions", "coordination.k8s.io/leases create permissions",
				"coordination.k8s.io/leases update permissions"));
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(LeaderElectionPermissions.class).missing()).extracting(Permission::verb)
				.containsExactly("watch", "create");
			assertThat(output).contains("Leader election may not 'watch' on 'leases' (API group coordination.k8s.io) in "
					+ "namespace 'permissions', needed by leader election: followers read the Lease every retry "
					+ "period instead of watching it; grant it with the Role rule {apiGroups: "
					+ "[\"coordination.k8s.io\"], resources: [\"leases\"], verbs: [\"watch\"]}")
				.contains("Leader election may not 'create' on 'events' (core API group) in namespace 'permissions', "
						+ "needed by Kubernetes Events on the Leases (leader.election.events.enabled): the elector "
						+ "records no Events; grant it with the Role rule {apiGroups: [\"\"], resources: "
						+ "[\"events\"], verbs: [\"create\"]}");
		});
	}

	@Test
	void exitTakeoverInAPodAsksForGetAndWatchOnPodsAndWithoutThemOnlyWarns(CapturedOutput output) {
		grant(LEASE_MODE);
		this.contextRunner.withPropertyValues("POD_NAME=orders-7d9f-abcde", "POD_NAMESPACE=permissions")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(this.asked).contains("/pods get permissions", "/pods watch permissions");
				assertThat(context.getBean(LeaderElectionPermissions.class).missing()).extracting(Permission::verb)
					.containsExactly("get", "watch");
				assertThat(output).contains("Leader election may not 'watch' on 'pods' (core API group) in namespace "
						+ "'permissions', needed by takeover when a leader's process ends "
						+ "(leader.election.exit-takeover.enabled): followers wait out a crashed leader's Lease for "
						+ "its lease duration");
			});
	}

	@Test
	void exitTakeoverSwitchedOffOrOutsideAPodIsNotAskedFor() {
		grant(LEASE_MODE);
		this.contextRunner
			.withPropertyValues("POD_NAME=orders-7d9f-abcde", "POD_NAMESPACE=permissions",
					"leader.election.exit-takeover.enabled=false")
			.run((context) -> assertThat(this.asked).containsExactlyInAnyOrderElementsOf(LEASE_MODE));
		this.asked.clear();
		this.contextRunner.withPropertyValues("POD_NAME=orders-7d9f-abcde")
			.run((context) -> assertThat(this.asked).containsExactlyInAnyOrderElementsOf(LEASE_MODE));
	}

	@Test
	void warnLogsEachMissingPermissionAndTurnsHealthDownWhileTheElectorRuns(CapturedOutput output) {
		grant(Set.of("coordination.k8s.io/leases get permissions", "coordination.k8s.io/leases watch permissions",
				"/events create permissions"));
		this.contextRunner.withPropertyValues("leader.election.permission-check=warn")
			.withConfiguration(AutoConfigurations.of(LeaderElectionHealthContributorAutoConfiguration.class))
			.withConfiguration(BootLine.HEALTH)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LeaderElectionLifecycle.class).isRunning()).isTrue();
				assertThat(output).contains("Leader election may not 'create' on 'leases' (API group "
						+ "coordination.k8s.io) in namespace 'permissions', needed by leader election: it runs without "
						+ "it, its health DOWN (leader.election.permission-check=warn); grant it with the Role rule "
						+ "{apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], verbs: [\"create\"]}")
					.contains("Leader election may not 'update' on 'leases'");
				var health = context.getBean(LeaderElectionHealthIndicator.class).health();
				assertThat(health.getStatus().getCode()).isEqualTo("DOWN");
				assertThat(health.getDetails()).containsEntry("missingPermissions", List.of(
						"'create' on 'leases' (API group coordination.k8s.io) in namespace 'permissions', needed by "
								+ "leader election",
						"'update' on 'leases' (API group coordination.k8s.io) in namespace 'permissions', needed by "
								+ "leader election"));
				assertThat((String) health.getDetails().get("reason")).contains("missing permission: 'create' on "
						+ "'leases'").contains("missing permission: 'update' on 'leases'");
			});
	}

	@Test
	void offAsksNothing() {
		grant(Set.of());
		this.contextRunner.withPropertyValues("leader.election.permission-check=off").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(this.asked).isEmpty();
		});
	}

	@Test
	void aReviewTheServerRefusesFailsNothingAndIsLoggedOnce(CapturedOutput output) {
		this.server.expect()
			.post()
			.withPath(REVIEWS)
			.andReturn(403, new StatusBuilder().withCode(403)
				.withMessage("selfsubjectaccessreviews.authorization.k8s.io is forbidden")
				.build())
			.always();
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(LeaderElectionPermissions.class).missing()).isEmpty();
			assertThat(output).containsOnlyOnce("Leader election could not check 5 of its 5 permissions at start "
					+ "(create SelfSubjectAccessReview: 403 selfsubjectaccessreviews.authorization.k8s.io is "
					+ "forbidden); it starts without knowing them");
		});
	}

	@Test
	void eventsSwitchedOffAreNotAskedFor() {
		grant(LEASE_MODE);
		this.contextRunner.withPropertyValues("leader.election.events.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(this.asked).hasSize(4).doesNotContain("/events create permissions");
		});
	}

	@Test
	void nothingIsAskedWhereTheElectorDoesNotRunOnKubernetes() {
		grant(Set.of());
		this.contextRunner.withPropertyValues("leader.election.mode=standalone")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderElectionPermissions.class));
		// as the test support gives them
		this.contextRunner.withBean(InMemoryLeaseStores.class, InMemoryLeaseStores::forOneProcess)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderElectionPermissions.class));
		assertThat(this.asked).isEmpty();
	}

	/**
	 * Routing is used per election as its routing properties read: a Service routes the election
	 * and labels the Pod unless pod-label says otherwise; a named election inherits the top-level
	 * pod-label, never the Service.
	 */
	@Test
	void routingIsUsedWhereAnElectionIsRoutedByAServiceOrAPodLabel() {
		LeaderElectionProperties properties = new LeaderElectionProperties();
		properties.getRouting().setService("orders-leader");
		LeaderElectionProperties.Election labelled = new LeaderElectionProperties.Election();
		labelled.getRouting().setPodLabel(true);
		properties.getElections().put("labelled", labelled);
		properties.getElections().put("plain", new LeaderElectionProperties.Election());
		LeaderElectionSettings settings = new LeaderElectionSettings("me",
				List.of(election("default", "team-a"), election("labelled", "team-b"), election("plain", "team-c")),
				true, LeaderElectionProperties.OnLost.REJOIN);

		assertThat(LeaderElectionPermissions.features(settings, properties, true, true, null)).containsExactly(
				Map.entry("team-a", Set.of(ElectorFeature.LEASES, ElectorFeature.EVENTS,
						ElectorFeature.ROUTING_SERVICE, ElectorFeature.ROUTING_POD_LABEL)),
				Map.entry("team-b", Set.of(ElectorFeature.LEASES, ElectorFeature.EVENTS,
						ElectorFeature.ROUTING_POD_LABEL)),
				Map.entry("team-c", Set.of(ElectorFeature.LEASES, ElectorFeature.EVENTS)));
		properties.getRouting().setPodLabel(false);
		assertThat(LeaderElectionPermissions.features(settings, properties, false, true, null)).containsExactly(
				Map.entry("team-a", Set.of(ElectorFeature.LEASES, ElectorFeature.ROUTING_SERVICE)),
				Map.entry("team-b", Set.of(ElectorFeature.LEASES, ElectorFeature.ROUTING_POD_LABEL)),
				Map.entry("team-c", Set.of(ElectorFeature.LEASES)));
		assertThat(LeaderElectionPermissions.features(settings, properties, false, false, null).values())
			.containsOnly(Set.of(ElectorFeature.LEASES));
	}

	private static ElectionSettings election(String name, String namespace) {
		return new ElectionSettings(name, namespace, name + "-leader", Duration.ofSeconds(15), Duration.ofSeconds(10),
				Duration.ofSeconds(2));
	}

	/**
	 * Answers every review as an API server whose authorizer grants the given permissions, each
	 * written {@code group/resource verb namespace}.
	 */
	private void grant(Set<String> granted) {
		this.server.expect().post().withPath(REVIEWS).andReply(201, (request) -> {
			SelfSubjectAccessReview review = serialization.unmarshal(request.getUtf8Body(),
					SelfSubjectAccessReview.class);
			ResourceAttributes attributes = review.getSpec().getResourceAttributes();
			String asked = attributes.getGroup() + "/" + attributes.getResource() + " " + attributes.getVerb() + " "
					+ attributes.getNamespace();
			this.asked.add(asked);
			review.setStatus(new SubjectAccessReviewStatusBuilder().withAllowed(granted.contains(asked)).build());
			return serialization.asJson(review);
		}).always();
	}

}
