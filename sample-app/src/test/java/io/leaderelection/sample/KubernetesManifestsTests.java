package io.leaderelection.sample;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatusBuilder;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchema;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.PolicyRulesWithSubjects;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.PriorityLevelConfiguration;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.ResourcePolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The manifests of {@code sample-app/k8s} and of its for-life variant {@code sample-app/k8s-for-life}
 * (an overlay of the first), as {@code kubectl apply -k} reads them, parsed with fabric8's model and
 * checked against the sample's configuration, and each Role against the requests the sample sends
 * to an API server when it runs with its Deployment's environment, and against the permission
 * check at the sample's start, which the API server answers as that Role alone would.
 */
class KubernetesManifestsTests {

	private static final String LEASE = "k8s";

	private static final String FOR_LIFE = "k8s-for-life";

	/** The namespace of the sample's local API server, and of the Pods the tests run it in. */
	private static final String NAMESPACE = "default";

	/**
	 * The rules the README documents for the for-life mode without the NotReady opt-in, by API
	 * group and resource ({@code group/resource}).
	 */
	private static final Map<String, Set<String>> FOR_LIFE_RULES = Map.of("coordination.k8s.io/leases",
			Set.of("get", "create", "update", "watch", "list", "delete"), "/events", Set.of("create"), "/pods",
			Set.of("get", "watch", "patch"), "discovery.k8s.io/endpointslices", Set.of("get", "create", "update"), "/services",
			Set.of("get"));

	/** The Service every replica serves, leader or not. */
	private static final String SERVICE = "leader-election-sample";

	/** The leader-only Service, without selector: its EndpointSlice names the default election's leader. */
	private static final String LEADER_SERVICE = "leader-election-sample-leader";

	/** The addresses the Pods the tests run the sample in have, as the downward API's status.podIP tells. */
	private static final Map<String, String> POD_IPS = Map.of("sample-a", "10.244.0.11", "sample-b", "10.244.0.12");

	/**
	 * What the lease variant's Role grants beyond what a test run sends: the member Leases of
	 * replicas gone are deleted only once unchanged for ten minutes (the core's
	 * {@code BalancedShardsCrudServerTests} shows that deletion).
	 */
	private static final Map<String, Set<String>> SENT_ONLY_AFTER_TEN_MINUTES = Map.of("coordination.k8s.io/leases",
			Set.of("delete"));

	/**
	 * What a Role granting {@code endpointslices} grants beside, which no request asks for: on
	 * OpenShift, RestrictedEndpointsAdmission refuses (403) a write of an EndpointSlice naming a
	 * Pod-network address unless the writer may {@code create} this virtual subresource.
	 */
	private static final Map<String, Set<String>> CHECKED_BY_OPENSHIFT_ADMISSION = Map
		.of("discovery.k8s.io/endpointslices/restricted", Set.of("create"));

	/**
	 * An object path or a collection path of a namespaced resource, with an optional query: the
	 * API group ({@code /api/v1} is the core group, ""), the resource, the object's name.
	 */
	private static final Pattern RESOURCE_PATH = Pattern
		.compile("/(?:api/v1|apis/([^/]+)/[^/]+)/namespaces/[^/]+/([^/?]+)(/[^/?]+)?(\\?.*)?");

	/**
	 * The lists a strategic merge patch merges by their elements' {@code name} (their merge key in
	 * the Kubernetes API), as far as the overlay patches them; any other list is replaced whole.
	 */
	private static final Set<String> LISTS_MERGED_BY_NAME = Set.of("containers", "initContainers", "env", "volumes");

	private static final KubernetesSerialization serialization = new KubernetesSerialization();

	/** The objects of each variant, by kind and name ({@code Service/leader-election-sample}). */
	private static Map<String, Map<String, HasMetadata>> variants;

	private static Properties applicationYaml;

	@BeforeAll
	static void parseManifests() throws IOException {
		variants = new LinkedHashMap<>();
		for (String directory : List.of(LEASE, FOR_LIFE)) {
			Map<String, HasMetadata> resources = new LinkedHashMap<>();
			for (Map<String, Object> object : kustomize(Path.of(directory))) {
				HasMetadata resource = serialization.unmarshal(serialization.asJson(object));
				assertThat(resources.put(key(resource), resource)).as("a second %s in %s", key(resource), directory)
					.isNull();
			}
			variants.put(directory, resources);
		}
		YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
		yaml.setResources(new ClassPathResource("application.yml"));
		applicationYaml = yaml.getObject();
	}

	@Test
	void kustomizationListsEveryManifest() throws IOException {
		try (var files = Files.list(Path.of(LEASE))) {
			assertThat(files.map((file) -> file.getFileName().toString()))
				.containsExactlyInAnyOrder("kustomization.yaml", "serviceaccount.yaml", "role.yaml", "rolebinding.yaml",
						"deployment.yaml", "service.yaml", "service-leader.yaml", "flowschema.yaml");
		}
		try (var files = Files.list(Path.of(FOR_LIFE))) {
			assertThat(files.map((file) -> file.getFileName().toString()))
				.containsExactlyInAnyOrder("kustomization.yaml", "deployment-patch.yaml", "role-patch.yaml");
		}
		for (Map<String, HasMetadata> resources : variants.values()) {
			assertThat(resources.values()).extracting(HasMetadata::getClass)
				.containsExactlyInAnyOrder(ServiceAccount.class, Role.class, RoleBinding.class, Deployment.class,
						Service.class, Service.class, FlowSchema.class, PriorityLevelConfiguration.class);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void deploymentRunsThreeReplicasNamedAfterTheirPods(String variant) {
		Deployment deployment = resource(variant, Deployment.class);
		assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
		assertThat(deployment.getSpec().getSelector().getMatchLabels())
			.isEqualTo(deployment.getSpec().getTemplate().getMetadata().getLabels());
		assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName())
			.isEqualTo(resource(variant, ServiceAccount.class).getMetadata().getName());
		Map<String, String> fieldRefs = new HashMap<>();
		for (EnvVar env : container(variant).getEnv()) {
			if (env.getValueFrom() != null) {
				fieldRefs.put(env.getName(), env.getValueFrom().getFieldRef().getFieldPath());
			}
		}
		assertThat(fieldRefs).containsEntry("POD_NAME", "metadata.name")
			.containsEntry("POD_NAMESPACE", "metadata.namespace")
			.containsEntry("POD_IP", "status.podIP");
	}

	@Test
	void bothVariantsRouteTheLeaderOnlyServiceAndOnlyTheForLifeVariantSetsTheMode() {
		assertThat(values(container(LEASE)))
			.containsExactly(Map.entry("LEADER_ELECTION_ROUTING_SERVICE", LEADER_SERVICE));
		assertThat(values(container(FOR_LIFE))).containsOnly(Map.entry("LEADER_ELECTION_MODE", "for-life"),
				Map.entry("LEADER_ELECTION_ROUTING_SERVICE", LEADER_SERVICE));
	}

	@Test
	void forLifeVariantDiffersFromTheLeaseVariantInTheModeAndTheRoleOnly() {
		Deployment forLife = resource(FOR_LIFE, Deployment.class);
		Deployment withoutMode = serialization.clone(forLife);
		withoutMode.getSpec()
			.getTemplate()
			.getSpec()
			.getContainers()
			.get(0)
			.getEnv()
			.removeIf((env) -> env.getName().equals("LEADER_ELECTION_MODE"));
		withoutMode.getSpec()
			.getTemplate()
			.getSpec()
			.getContainers()
			.get(0)
			.getEnv()
			.sort((one, other) -> one.getName().compareTo(other.getName()));
		Deployment lease = serialization.clone(resource(LEASE, Deployment.class));
		lease.getSpec()
			.getTemplate()
			.getSpec()
			.getContainers()
			.get(0)
			.getEnv()
			.sort((one, other) -> one.getName().compareTo(other.getName()));
		assertThat(withoutMode).isEqualTo(lease);
		variants.get(LEASE).forEach((key, resource) -> {
			if (!(resource instanceof Deployment) && !(resource instanceof Role)) {
				assertThat(variants.get(FOR_LIFE).get(key)).as(key).isEqualTo(resource);
			}
		});
		Role forLifeRole = resource(FOR_LIFE, Role.class);
		assertThat(forLifeRole.getMetadata()).isEqualTo(resource(LEASE, Role.class).getMetadata());
		assertThat(granted(forLifeRole)).isEqualTo(withRulesOfAdmission(FOR_LIFE_RULES));
	}

	/**
	 * The test reads the overlay as kustomize does for what it uses (a base and strategic merge
	 * patches); where {@code kubectl} is installed, it checks that reading against
	 * {@code kubectl kustomize}.
	 */
	@Test
	void forLifeVariantReadsAsKubectlKustomizeRendersIt() throws IOException, InterruptedException {
		Process process;
		try {
			process = new ProcessBuilder("kubectl", "kustomize", FOR_LIFE).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			Assumptions.abort("kubectl is not installed: " + ex.getMessage());
			return;
		}
		String rendered = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(rendered).isZero();
		Map<String, HasMetadata> resources = new LinkedHashMap<>();
		for (String document : rendered.split("(?m)^---$")) {
			if (!document.isBlank()) {
				HasMetadata resource = serialization.unmarshal(document);
				resources.put(key(resource), resource);
			}
		}
		assertThat(resources).isEqualTo(variants.get(FOR_LIFE));
	}

	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void probesUseTheActuatorGroupsOnTheApplicationsPort(String variant) {
		Container container = container(variant);
		assertThat(container.getPorts()).singleElement().satisfies((port) -> {
			assertThat(port.getContainerPort()).isEqualTo(8080);
			assertThat(port.getName()).isEqualTo("http");
		});
		assertThat(path(container.getLivenessProbe())).isEqualTo("/actuator/health/liveness");
		assertThat(path(container.getStartupProbe())).isEqualTo("/actuator/health/liveness");
		assertThat(path(container.getReadinessProbe())).isEqualTo("/actuator/health/readiness");
		for (Probe probe : List.of(container.getLivenessProbe(), container.getReadinessProbe(),
				container.getStartupProbe())) {
			assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("http");
		}
		assertThat(applicationYaml.getProperty("management.endpoint.health.probes.enabled")).isEqualTo("true");
		assertThat(applicationYaml.getProperty("management.endpoint.health.group.liveness.include"))
			.contains("leaderElectionLiveness");
	}

	/**
	 * In a cluster the sample runs with the default profile's lease timings, client-go's: the
	 * Deployment activates no profile and sets no timing; of the starter's properties it sets only
	 * the mode (for-life's patch) and the leader-only Service, which exists in a cluster alone.
	 */
	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void deploymentRunsWithTheProductionTimingsOfTheDefaultProfile(String variant) {
		Container container = container(variant);
		assertThat(container.getCommand()).isNullOrEmpty();
		assertThat(container.getArgs()).isNullOrEmpty();
		assertThat(container.getEnv()).extracting(EnvVar::getName)
			.noneMatch((name) -> name.startsWith("SPRING_"))
			.noneMatch((name) -> name.startsWith("LEADER_ELECTION_")
					&& !List.of("LEADER_ELECTION_MODE", "LEADER_ELECTION_ROUTING_SERVICE").contains(name));
		assertThat(applicationYaml.getProperty("spring.profiles.active")).isNull();
		assertThat(timings(applicationYaml)).containsExactly(Duration.ofSeconds(15), Duration.ofSeconds(10),
				Duration.ofSeconds(2));
	}

	/**
	 * The local profile, which {@code spring-boot:run} activates, shortens the timings, keeping their
	 * order (what the starter requires), so that the first leader on an empty local API server, which
	 * claims the Lease it created without holder once that version stayed unchanged for a lease
	 * duration, leads a few seconds after it starts.
	 */
	@Test
	void localProfileShortensTheTimingsInTheirOrder() {
		YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
		yaml.setResources(new ClassPathResource("application-local.yml"));
		List<Duration> timings = timings(yaml.getObject());
		Duration leaseDuration = timings.get(0);
		Duration renewDeadline = timings.get(1);
		Duration retryPeriod = timings.get(2);
		assertThat(renewDeadline).isLessThan(leaseDuration);
		assertThat(retryPeriod).isLessThan(renewDeadline);
		assertThat(leaseDuration).isLessThanOrEqualTo(Duration.ofSeconds(2));
		// a Lease created without holder records its lease duration in whole seconds, rounded up
		assertThat(leaseDuration.toMillisPart()).as("a whole number of seconds").isZero();
	}

	/** Lease duration, renew deadline and retry period. */
	private static List<Duration> timings(Properties properties) {
		return List.of("lease-duration", "renew-deadline", "retry-period")
			.stream()
			.map((timing) -> DurationStyle.detectAndParse(properties.getProperty("leader.election." + timing)))
			.toList();
	}

	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void terminationGracePeriodOutlastsBothShutdownPhases(String variant) {
		Duration phase = DurationStyle
			.detectAndParse(applicationYaml.getProperty("spring.lifecycle.timeout-per-shutdown-phase"));
		long gracePeriod = resource(variant, Deployment.class).getSpec()
			.getTemplate()
			.getSpec()
			.getTerminationGracePeriodSeconds();
		// Draining and releasing the Leases, then the web server's graceful shutdown.
		assertThat(Duration.ofSeconds(gracePeriod)).isGreaterThan(phase.multipliedBy(2));
	}

	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void serviceSendsTrafficToEveryPod(String variant) {
		Service service = service(variant, SERVICE);
		assertThat(service.getSpec().getSelector())
			.isEqualTo(resource(variant, Deployment.class).getSpec().getTemplate().getMetadata().getLabels());
		assertThat(service.getSpec().getPorts()).singleElement()
			.satisfies((port) -> assertThat(port.getTargetPort().getStrVal()).isEqualTo("http"));
	}

	/**
	 * The leader-only Service has no selector, so that its endpoints are the EndpointSlice the
	 * leader writes, and its one port is named as the leader's endpoint port: the container's port
	 * named http, the web server's, which the endpoint's port defaults to.
	 */
	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void theLeaderOnlyServiceHasNoSelectorAndThePortOfTheLeadersEndpoint(String variant) {
		Service service = service(variant, LEADER_SERVICE);
		assertThat(service.getSpec().getSelector()).isNullOrEmpty();
		assertThat(service.getSpec().getType()).isNull();
		assertThat(service.getSpec().getPorts()).singleElement()
			.satisfies((port) -> assertThat(port.getName()).isEqualTo(container(variant).getPorts().get(0).getName()));
		assertThat(applicationYaml.getProperty("leader.election.routing.ports.http")).isNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void roleBindingGivesTheRoleToTheServiceAccount(String variant) {
		RoleBinding binding = resource(variant, RoleBinding.class);
		assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
		assertThat(binding.getRoleRef().getName()).isEqualTo(resource(variant, Role.class).getMetadata().getName());
		assertThat(binding.getSubjects()).singleElement().satisfies((subject) -> {
			assertThat(subject.getKind()).isEqualTo("ServiceAccount");
			assertThat(subject.getName()).isEqualTo(resource(variant, ServiceAccount.class).getMetadata().getName());
		});
	}

	/**
	 * The FlowSchema takes exactly the Lease calls of the sample's ServiceAccount, the verbs its
	 * Role grants on Leases in the Role's namespace, to a Limited priority level of their own in
	 * the same kustomization, ahead of the default schema for service accounts.
	 */
	@ParameterizedTest
	@ValueSource(strings = { LEASE, FOR_LIFE })
	void flowSchemaGivesTheLeaseCallsOfTheServiceAccountAPriorityLevelOfTheirOwn(String variant) {
		FlowSchema flowSchema = resource(variant, FlowSchema.class);
		PriorityLevelConfiguration priorityLevel = resource(variant, PriorityLevelConfiguration.class);
		// cluster-scoped
		assertThat(flowSchema.getMetadata().getNamespace()).isNull();
		assertThat(priorityLevel.getMetadata().getNamespace()).isNull();
		assertThat(flowSchema.getApiVersion()).isEqualTo("flowcontrol.apiserver.k8s.io/v1");
		assertThat(priorityLevel.getApiVersion()).isEqualTo("flowcontrol.apiserver.k8s.io/v1");

		assertThat(flowSchema.getSpec().getPriorityLevelConfiguration().getName())
			.isEqualTo(priorityLevel.getMetadata().getName());
		// before service-accounts (9000), which puts a ServiceAccount's requests in workload-low
		assertThat(flowSchema.getSpec().getMatchingPrecedence()).isBetween(2, 8999);
		assertThat(priorityLevel.getSpec().getType()).isEqualTo("Limited");
		assertThat(priorityLevel.getSpec().getLimited().getNominalConcurrencyShares()).isBetween(1, 10);
		assertThat(priorityLevel.getSpec().getLimited().getLimitResponse().getType()).isEqualTo("Queue");

		PolicyRulesWithSubjects rules = flowSchema.getSpec().getRules().get(0);
		assertThat(flowSchema.getSpec().getRules()).hasSize(1);
		assertThat(rules.getNonResourceRules()).isNullOrEmpty();
		String serviceAccountNamespace = rules.getSubjects().get(0).getServiceAccount().getNamespace();
		assertThat(rules.getSubjects()).singleElement().satisfies((subject) -> {
			assertThat(subject.getKind()).isEqualTo("ServiceAccount");
			assertThat(subject.getServiceAccount().getName())
				.isEqualTo(resource(variant, ServiceAccount.class).getMetadata().getName());
			assertThat(subject.getServiceAccount().getNamespace()).isEqualTo(NAMESPACE);
		});
		ResourcePolicyRule leases = rules.getResourceRules().get(0);
		assertThat(rules.getResourceRules()).hasSize(1);
		assertThat(leases.getApiGroups()).containsExactly("coordination.k8s.io");
		assertThat(leases.getResources()).containsExactly("leases");
		assertThat(leases.getClusterScope()).isNotEqualTo(Boolean.TRUE);
		// the Role's namespace: the ServiceAccount's, where the RoleBinding binds it
		assertThat(leases.getNamespaces()).containsExactly(serviceAccountNamespace);
		assertThat(new TreeSet<>(leases.getVerbs())).hasSameSizeAs(leases.getVerbs())
			.isEqualTo(granted(resource(variant, Role.class)).get("coordination.k8s.io/leases"));
	}

	@Test
	void roleGrantsExactlyTheVerbsTheSampleSends() throws InterruptedException {
		Map<String, Set<String>> sent = verbsSentByTheSample();

		assertThat(sent).containsKeys("coordination.k8s.io/leases", "/events");
		SENT_ONLY_AFTER_TEN_MINUTES.forEach((resource, verbs) -> {
			assertThat(sent.get(resource)).doesNotContainAnyElementsOf(verbs);
			sent.get(resource).addAll(verbs);
		});
		assertThat(granted(resource(LEASE, Role.class))).isEqualTo(withRulesOfAdmission(sent));
	}

	@Test
	void forLifeRoleGrantsExactlyTheVerbsTheSampleSendsForLife() throws InterruptedException {
		Map<String, Set<String>> sent = verbsSentByTheSampleForLife();

		assertThat(sent).isEqualTo(FOR_LIFE_RULES);
		assertThat(granted(resource(FOR_LIFE, Role.class))).isEqualTo(withRulesOfAdmission(sent));
	}

	/**
	 * Runs a leader and a follower of the sample, with the environment of the lease variant's
	 * Deployment, in two Pods of a CRUD API server, then stops them so that the leader withdraws
	 * its route and releases its Leases, and names the RBAC verb of every request they sent, by
	 * API group and resource ({@code group/resource}).
	 */
	private static Map<String, Set<String>> verbsSentByTheSample() throws InterruptedException {
		RoleAuthorizer authorizer = new RoleAuthorizer(granted(resource(LEASE, Role.class)));
		KubernetesMockServer server = startApiServer(LEASE, authorizer);
		Map<String, Set<String>> verbs = new TreeMap<>();
		try {
			try (KubernetesClient client = server.createClient()) {
				for (String pod : List.of("sample-a", "sample-b")) {
					client.pods()
						.inNamespace(NAMESPACE)
						.resource(new PodBuilder().withNewMetadata()
							.withName(pod)
							.endMetadata()
							.withNewStatus()
							.withPhase("Running")
							.withPodIP(POD_IPS.get(pod))
							.endStatus()
							.build())
						.create();
				}
			}
			takeRequests(server, new TreeMap<>()); // the test's own
			try (ConfigurableApplicationContext leader = startInPod(LEASE, server, "sample-a");
					ConfigurableApplicationContext follower = startInPod(LEASE, server, "sample-b")) {
				authorizer.assertNothingDenied();
				LeaderElector leaderElector = leader.getBean(LeaderElector.class);
				LeaderElector followerElector = follower.getBean(LeaderElector.class);
				// until the leader leads, the follower knows it, the shards are spread over both, the
				// Events of the grants were written, and the leader-only Service routes to the leader
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					leadsAll(server, verbs, leaderElector);
					follows(server, verbs, followerElector, leaderElector);
					// each read once: AssertJ refuses an empty set to compare with, which the follower's is
					// while it has yet to take its shards
					Set<Integer> leaderShards = leaderElector.ownedShards("orders");
					Set<Integer> followerShards = followerElector.ownedShards("orders");
					assertThat(followerShards).hasSize(4);
					assertThat(leaderShards).hasSize(4).doesNotContainAnyElementsOf(followerShards);
					assertThat(verbs).containsKey("/events");
					routesToTheLeader(verbs);
				});
			}
			takeRequests(server, verbs);
			return verbs;
		}
		finally {
			server.destroy();
		}
	}

	/**
	 * Runs the sample with the environment of the for-life variant's Deployment, in two Pods of a
	 * CRUD API server, through what a for-life deployment goes through, and names the RBAC verb
	 * of every request sent: the replica in Pod sample-a takes the locks, the one in sample-b
	 * follows; sample-a's container stops without releasing (as a crashed container would) and a
	 * new one in the same Pod continues its locks; that one stops and releases (deletes) them,
	 * sample-b takes them, and stops and releases them too.
	 */
	private static Map<String, Set<String>> verbsSentByTheSampleForLife() throws InterruptedException {
		RoleAuthorizer authorizer = new RoleAuthorizer(granted(resource(FOR_LIFE, Role.class)));
		KubernetesMockServer server = startApiServer(FOR_LIFE, authorizer);
		Map<String, Set<String>> verbs = new TreeMap<>();
		List<ConfigurableApplicationContext> started = new ArrayList<>();
		try {
			try (KubernetesClient client = server.createClient()) {
				for (String pod : List.of("sample-a", "sample-b")) {
					client.pods()
						.inNamespace(NAMESPACE)
						.resource(new PodBuilder().withNewMetadata()
							.withName(pod)
							.withUid(UUID.randomUUID().toString())
							.endMetadata()
							.withNewSpec()
							.addNewContainer()
							.withName("app")
							.withImage("leader-election-sample-app:0.1.0-SNAPSHOT")
							.endContainer()
							.endSpec()
							.withNewStatus()
							.withPhase("Running")
							.endStatus()
							.build())
						.create();
				}
			}
			takeRequests(server, new TreeMap<>()); // the test's own
			ConfigurableApplicationContext first = startInPod(FOR_LIFE, server, "sample-a",
					"--leader.election.release-on-shutdown=false");
			started.add(first);
			LeaderElector firstElector = first.getBean(LeaderElector.class);
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				leadsAll(server, verbs, firstElector);
				routesToTheLeader(verbs);
			});
			ConfigurableApplicationContext follower = startInPod(FOR_LIFE, server, "sample-b");
			started.add(follower);
			authorizer.assertNothingDenied();
			LeaderElector followerElector = follower.getBean(LeaderElector.class);
			// until the follower knows the leader and watches the locks, and the Events of the grants were written
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				follows(server, verbs, followerElector, firstElector);
				assertThat(verbs).containsKeys("/events", "/pods");
				assertThat(verbs.get("coordination.k8s.io/leases")).contains("watch");
			});
			assertThat(unsharded(followerElector).values()).allSatisfy((status) -> {
				assertThat(status.mode()).isEqualTo(LeaderStatus.FOR_LIFE_MODE);
				assertThat(status.ownerPod()).startsWith("sample-a ");
			});
			first.close();
			ConfigurableApplicationContext restarted = startInPod(FOR_LIFE, server, "sample-a");
			started.add(restarted);
			LeaderElector restartedElector = restarted.getBean(LeaderElector.class);
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> leadsAll(server, verbs, restartedElector));
			assertThat(unsharded(followerElector).values()).noneMatch(LeaderStatus::leader);
			restarted.close();
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> leadsAll(server, verbs, followerElector));
			follower.close();
			takeRequests(server, verbs);
			return verbs;
		}
		finally {
			started.forEach(ConfigurableApplicationContext::close);
			server.destroy();
		}
	}

	/**
	 * A CRUD API server holding the variant's leader-only Service, as {@code kubectl apply -k}
	 * leaves it, whose SelfSubjectAccessReviews the given authorizer answers.
	 */
	private static KubernetesMockServer startApiServer(String variant, RoleAuthorizer authorizer) {
		KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				authorizer, false);
		server.init(InetAddress.getLoopbackAddress(), 0);
		try (KubernetesClient client = server.createClient()) {
			client.services().inNamespace(NAMESPACE).resource(serialization.clone(service(variant, LEADER_SERVICE))).create();
		}
		return server;
	}

	/**
	 * Asserts that the leader has written the leader-only Service's EndpointSlice: it created it,
	 * which only the leader does (a read by the test would count as one of the sample's).
	 */
	private static void routesToTheLeader(Map<String, Set<String>> verbs) {
		assertThat(verbs).containsKey("discovery.k8s.io/endpointslices");
		assertThat(verbs.get("discovery.k8s.io/endpointslices")).contains("create");
	}

	/**
	 * Takes the requests received so far, and asserts that the elector leads every election that
	 * is not a shard: the shards of {@code orders} are spread over the replicas.
	 */
	private static void leadsAll(KubernetesMockServer server, Map<String, Set<String>> verbs, LeaderElector elector)
			throws InterruptedException {
		takeRequests(server, verbs);
		assertThat(unsharded(elector).values()).as("the elections of %s", elector.identity())
			.allMatch(LeaderStatus::leader, "led");
	}

	private static Map<String, LeaderStatus> unsharded(LeaderElector elector) {
		Map<String, LeaderStatus> unsharded = new TreeMap<>(elector.statuses());
		unsharded.values().removeIf((status) -> status.shard() != null);
		return unsharded;
	}

	/**
	 * Takes the requests received so far, and asserts that the follower sees the holder the leader
	 * sees in every election (for-life, the holder is the Pod name, not the elector's identity).
	 */
	private static void follows(KubernetesMockServer server, Map<String, Set<String>> verbs, LeaderElector follower,
			LeaderElector leader) throws InterruptedException {
		takeRequests(server, verbs);
		Map<String, LeaderStatus> led = unsharded(leader);
		assertThat(led.values()).allSatisfy((status) -> assertThat(status.holderIdentity()).isNotNull());
		assertThat(unsharded(follower)).as("the elections of %s", follower.identity())
			.allSatisfy((election, status) -> assertThat(status.holderIdentity())
				.isEqualTo(led.get(election).holderIdentity()));
	}

	/**
	 * Adds the RBAC verb of every request received so far, by API group and resource; a request
	 * that is not to a namespaced resource is added as such, under its path, for the comparison
	 * with the Role to fail on.
	 */
	private static void takeRequests(KubernetesMockServer server, Map<String, Set<String>> verbs)
			throws InterruptedException {
		RecordedRequest request;
		while ((request = server.takeRequest(0, TimeUnit.MILLISECONDS)) != null) {
			if (request.getPath().equals(RoleAuthorizer.ACCESS_REVIEWS)) {
				// every authenticated user may create one: it needs no rule
				continue;
			}
			Matcher path = RESOURCE_PATH.matcher(request.getPath());
			if (!path.matches()) {
				verbs.computeIfAbsent("not a namespaced resource: " + request.getPath(), (key) -> new TreeSet<>())
					.add(request.getMethod());
				continue;
			}
			String resource = ((path.group(1) != null) ? path.group(1) : "") + "/" + path.group(2);
			verbs.computeIfAbsent(resource, (key) -> new TreeSet<>()).add(verb(request.getMethod(), path));
		}
	}

	/**
	 * Starts the sample against the local API server with the environment variables the variant's
	 * Deployment gives its container in the named Pod (a {@code fieldRef} resolved as the
	 * downward API does), as the environment of the process, where Spring Boot reads
	 * {@code LEADER_ELECTION_MODE} as {@code leader.election.mode}.
	 */
	private static ConfigurableApplicationContext startInPod(String variant, KubernetesMockServer server,
			String podName, String... args) {
		Map<String, Object> podEnvironment = new LinkedHashMap<>();
		for (EnvVar env : container(variant).getEnv()) {
			podEnvironment.put(env.getName(), (env.getValueFrom() == null) ? env.getValue()
					: switch (env.getValueFrom().getFieldRef().getFieldPath()) {
						case "metadata.name" -> podName;
						case "metadata.namespace" -> NAMESPACE;
						case "status.podIP" -> POD_IPS.get(podName);
						default -> throw new AssertionError("Unexpected fieldRef in " + env);
					});
		}
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addBefore(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
					"pod-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, podEnvironment));
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--sample.local-api-server.enabled=true",
				"--sample.local-api-server.port=" + server.getPort()));
		arguments.addAll(List.of(args));
		return new SpringApplicationBuilder(SampleApplication.class).environment(environment)
			.run(arguments.toArray(String[]::new));
	}

	/** The RBAC verb the API server authorizes a request as. */
	private static String verb(String method, Matcher path) {
		boolean collection = path.group(3) == null;
		String query = (path.group(4) != null) ? path.group(4) : "";
		return switch (method) {
			case "GET" -> collection ? ((query.contains("watch=true")) ? "watch" : "list") : "get";
			case "POST" -> "create";
			case "PUT" -> "update";
			case "PATCH" -> "patch";
			case "DELETE" -> collection ? "deletecollection" : "delete";
			default -> "unexpected method " + method;
		};
	}

	/**
	 * The rules, and those an admission plugin checks on the requests they allow: a Role that
	 * grants {@code endpointslices} grants {@link #CHECKED_BY_OPENSHIFT_ADMISSION} too.
	 */
	private static Map<String, Set<String>> withRulesOfAdmission(Map<String, Set<String>> rules) {
		Map<String, Set<String>> withAdmission = new TreeMap<>(rules);
		if (rules.containsKey("discovery.k8s.io/endpointslices")) {
			CHECKED_BY_OPENSHIFT_ADMISSION.forEach((resource, verbs) -> assertThat(withAdmission.put(resource, verbs))
				.as("%s, which no request asks for", resource)
				.isNull());
		}
		return withAdmission;
	}

	/**
	 * fabric8's CRUD dispatcher that answers SelfSubjectAccessReviews as an API server's RBAC would
	 * with the variant's Role bound to the sample's ServiceAccount in {@value #NAMESPACE} and
	 * nothing else, so that the sample, whose {@code leader.election.permission-check} fails its
	 * start on a missing permission, starts only if its Role grants what its configuration needs.
	 */
	private static final class RoleAuthorizer extends KubernetesCrudDispatcher {

		static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

		private final Map<String, Set<String>> granted;

		private final Set<String> asked = ConcurrentHashMap.newKeySet();

		private final Set<String> denied = ConcurrentHashMap.newKeySet();

		RoleAuthorizer(Map<String, Set<String>> granted) {
			this.granted = granted;
		}

		@Override
		public MockResponse handleCreate(RecordedRequest request) {
			if (!request.getPath().equals(ACCESS_REVIEWS)) {
				return super.handleCreate(request);
			}
			SelfSubjectAccessReview review = serialization.unmarshal(request.getUtf8Body(),
					SelfSubjectAccessReview.class);
			ResourceAttributes attributes = review.getSpec().getResourceAttributes();
			String asked = attributes.getGroup() + "/" + attributes.getResource() + " " + attributes.getVerb() + " in "
					+ attributes.getNamespace();
			boolean allowed = NAMESPACE.equals(attributes.getNamespace()) && this.granted
				.getOrDefault(attributes.getGroup() + "/" + attributes.getResource(), Set.of())
				.contains(attributes.getVerb());
			this.asked.add(asked);
			if (!allowed) {
				this.denied.add(asked);
			}
			review.setStatus(new SubjectAccessReviewStatusBuilder().withAllowed(allowed).build());
			return new MockResponse().setResponseCode(201).setBody(serialization.asJson(review));
		}

		/**
		 * Asserts that the sample asked for its permissions and was denied none, not even one it
		 * could do without.
		 */
		void assertNothingDenied() {
			assertThat(this.asked).as("the permissions the sample asked for").contains("coordination.k8s.io/leases "
					+ "update in " + NAMESPACE);
			assertThat(this.denied).as("the permissions the sample was denied").isEmpty();
		}

	}

	/** The verbs a Role grants, by API group and resource ({@code group/resource}). */
	private static Map<String, Set<String>> granted(Role role) {
		Map<String, Set<String>> granted = new TreeMap<>();
		for (PolicyRule rule : role.getRules()) {
			assertThat(rule.getApiGroups()).hasSize(1);
			assertThat(rule.getResources()).hasSize(1);
			assertThat(rule.getResourceNames()).isNullOrEmpty();
			granted.put(rule.getApiGroups().get(0) + "/" + rule.getResources().get(0), new TreeSet<>(rule.getVerbs()));
		}
		return granted;
	}

	/** The environment variables with a literal value. */
	private static Map<String, String> values(Container container) {
		Map<String, String> values = new LinkedHashMap<>();
		container.getEnv()
			.stream()
			.filter((env) -> env.getValueFrom() == null)
			.forEach((env) -> values.put(env.getName(), env.getValue()));
		return values;
	}

	// ---- kustomize, as far as the sample's kustomizations use it

	/**
	 * The objects {@code kubectl kustomize} renders from the directory, for what the sample's
	 * kustomizations use: {@code resources} (files, or directories with a kustomization of their
	 * own) and {@code patches} given by {@code path} (strategic merge patches, matched to an object
	 * by kind and name). Anything else in a kustomization fails the test rather than be ignored.
	 */
	private static List<Map<String, Object>> kustomize(Path directory) throws IOException {
		Map<String, Object> kustomization = read(directory.resolve("kustomization.yaml"));
		assertThat(kustomization.keySet()).as("what %s/kustomization.yaml uses", directory)
			.isSubsetOf("apiVersion", "kind", "resources", "patches");
		assertThat(kustomization).containsEntry("apiVersion", "kustomize.config.k8s.io/v1beta1")
			.containsEntry("kind", "Kustomization");
		List<Map<String, Object>> objects = new ArrayList<>();
		for (Object resource : list(kustomization.get("resources"))) {
			Path path = directory.resolve((String) resource).normalize();
			if (Files.isDirectory(path)) {
				assertThat(directory.toAbsolutePath().normalize().startsWith(path.toAbsolutePath()))
					.as("%s contains %s: kustomize refuses such a base", path, directory)
					.isFalse();
				objects.addAll(kustomize(path));
			}
			else {
				objects.addAll(readAll(path));
			}
		}
		for (Object entry : list(kustomization.get("patches"))) {
			Map<?, ?> patchEntry = (Map<?, ?>) entry;
			assertThat(patchEntry.keySet()).as("a patch of %s", directory).isEqualTo(Set.of("path"));
			Map<String, Object> patch = read(directory.resolve((String) patchEntry.get("path")));
			List<Integer> targets = new ArrayList<>();
			for (int i = 0; i < objects.size(); i++) {
				if (Objects.equals(objects.get(i).get("kind"), patch.get("kind"))
						&& Objects.equals(name(objects.get(i)), name(patch))) {
					targets.add(i);
				}
			}
			assertThat(targets).as("the objects %s patches", patchEntry.get("path")).hasSize(1);
			objects.set(targets.get(0), merge(objects.get(targets.get(0)), patch));
		}
		return objects;
	}

	/** A strategic merge of a patch into an object, for the lists in {@link #LISTS_MERGED_BY_NAME}. */
	@SuppressWarnings("unchecked")
	private static Map<String, Object> merge(Map<String, Object> object, Map<String, Object> patch) {
		Map<String, Object> merged = new LinkedHashMap<>(object);
		patch.forEach((key, value) -> {
			Object current = object.get(key);
			if (value instanceof Map<?, ?> map && current instanceof Map<?, ?> currentMap) {
				merged.put(key, merge((Map<String, Object>) currentMap, (Map<String, Object>) map));
			}
			else if (value instanceof List<?> list && current instanceof List<?> currentList
					&& LISTS_MERGED_BY_NAME.contains(key)) {
				merged.put(key, mergeByName((List<Map<String, Object>>) currentList, (List<Map<String, Object>>) list));
			}
			else {
				merged.put(key, value);
			}
		});
		return merged;
	}

	/** The patch's elements first, merged into the object's of the same name, then the object's others. */
	private static List<Map<String, Object>> mergeByName(List<Map<String, Object>> elements,
			List<Map<String, Object>> patch) {
		List<Map<String, Object>> merged = new ArrayList<>();
		for (Map<String, Object> patched : patch) {
			Map<String, Object> element = elements.stream()
				.filter((candidate) -> Objects.equals(candidate.get("name"), patched.get("name")))
				.findFirst()
				.orElse(null);
			merged.add((element != null) ? merge(element, patched) : patched);
		}
		elements.stream()
			.filter((element) -> patch.stream().noneMatch((patched) -> Objects.equals(patched.get("name"),
					element.get("name"))))
			.forEach(merged::add);
		return merged;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> read(Path file) throws IOException {
		try (InputStream in = Files.newInputStream(file)) {
			return serialization.unmarshal(in, Map.class);
		}
	}

	/** Every object of a file of one or more YAML documents. */
	private static List<Map<String, Object>> readAll(Path file) throws IOException {
		List<Map<String, Object>> objects = new ArrayList<>();
		for (String document : Files.readString(file).split("(?m)^---\\s*$")) {
			if (!document.lines().allMatch((line) -> line.isBlank() || line.stripLeading().startsWith("#"))) {
				@SuppressWarnings("unchecked")
				Map<String, Object> object = serialization.unmarshal(document, Map.class);
				objects.add(object);
			}
		}
		return objects;
	}

	private static List<?> list(Object value) {
		return (value != null) ? (List<?>) value : List.of();
	}

	private static Object name(Map<String, Object> object) {
		return ((Map<?, ?>) object.get("metadata")).get("name");
	}

	/** The one object of the type in the variant. */
	private static <T extends HasMetadata> T resource(String variant, Class<T> type) {
		List<HasMetadata> ofType = variants.get(variant).values().stream().filter(type::isInstance).toList();
		assertThat(ofType).as("the %s of %s", type.getSimpleName(), variant).hasSize(1);
		return type.cast(ofType.get(0));
	}

	private static Service service(String variant, String name) {
		HasMetadata service = variants.get(variant).get("Service/" + name);
		assertThat(service).as("Service %s of %s", name, variant).isInstanceOf(Service.class);
		return (Service) service;
	}

	private static String key(HasMetadata resource) {
		return resource.getKind() + "/" + resource.getMetadata().getName();
	}

	private static Container container(String variant) {
		return resource(variant, Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
	}

	private static String path(Probe probe) {
		return probe.getHttpGet().getPath();
	}

}
