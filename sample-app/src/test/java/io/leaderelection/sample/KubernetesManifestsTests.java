package io.leaderelection.sample;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.LeaderElector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The manifests of {@code sample-app/k8s}, as {@code kubectl apply -k} reads them, parsed with
 * fabric8's model and checked against the sample's configuration, and the Role against the
 * requests the sample actually sends to an API server.
 */
class KubernetesManifestsTests {

	private static final Path K8S = Path.of("k8s");

	/**
	 * An object path or a collection path of a namespaced resource, with an optional query: the
	 * API group ({@code /api/v1} is the core group, ""), the resource, the object's name.
	 */
	private static final Pattern RESOURCE_PATH = Pattern
		.compile("/(?:api/v1|apis/([^/]+)/[^/]+)/namespaces/[^/]+/([^/?]+)(/[^/?]+)?(\\?.*)?");

	private static final KubernetesSerialization serialization = new KubernetesSerialization();

	private static Map<Class<?>, HasMetadata> resources;

	private static Properties applicationYaml;

	@BeforeAll
	static void parseManifests() throws IOException {
		Map<?, ?> kustomization;
		try (InputStream in = Files.newInputStream(K8S.resolve("kustomization.yaml"))) {
			kustomization = serialization.unmarshal(in, Map.class);
		}
		resources = new LinkedHashMap<>();
		for (Object file : (List<?>) kustomization.get("resources")) {
			try (InputStream in = Files.newInputStream(K8S.resolve((String) file))) {
				HasMetadata resource = serialization.unmarshal(in);
				assertThat(resources.put(resource.getClass(), resource)).as("a second %s", resource.getKind()).isNull();
			}
		}
		YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
		yaml.setResources(new ClassPathResource("application.yml"));
		applicationYaml = yaml.getObject();
	}

	@Test
	void kustomizationListsEveryManifest() throws IOException {
		try (var files = Files.list(K8S)) {
			assertThat(files.map((file) -> file.getFileName().toString()))
				.containsExactlyInAnyOrder("kustomization.yaml", "serviceaccount.yaml", "role.yaml", "rolebinding.yaml",
						"deployment.yaml", "service.yaml");
		}
		assertThat(resources).containsOnlyKeys(ServiceAccount.class, Role.class, RoleBinding.class, Deployment.class,
				Service.class);
	}

	@Test
	void deploymentRunsThreeReplicasNamedAfterTheirPods() {
		Deployment deployment = resource(Deployment.class);
		assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
		assertThat(deployment.getSpec().getSelector().getMatchLabels())
			.isEqualTo(deployment.getSpec().getTemplate().getMetadata().getLabels());
		assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName())
			.isEqualTo(resource(ServiceAccount.class).getMetadata().getName());
		Map<String, String> fieldRefs = new HashMap<>();
		for (EnvVar env : container().getEnv()) {
			fieldRefs.put(env.getName(), env.getValueFrom().getFieldRef().getFieldPath());
		}
		assertThat(fieldRefs).containsEntry("POD_NAME", "metadata.name")
			.containsEntry("POD_NAMESPACE", "metadata.namespace");
	}

	@Test
	void probesUseTheActuatorGroupsOnTheApplicationsPort() {
		Container container = container();
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

	@Test
	void terminationGracePeriodOutlastsBothShutdownPhases() {
		Duration phase = DurationStyle
			.detectAndParse(applicationYaml.getProperty("spring.lifecycle.timeout-per-shutdown-phase"));
		long gracePeriod = resource(Deployment.class).getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
		// Draining and releasing the Leases, then the web server's graceful shutdown.
		assertThat(Duration.ofSeconds(gracePeriod)).isGreaterThan(phase.multipliedBy(2));
	}

	@Test
	void serviceSendsTrafficToEveryPod() {
		Service service = resource(Service.class);
		assertThat(service.getSpec().getSelector())
			.isEqualTo(resource(Deployment.class).getSpec().getTemplate().getMetadata().getLabels());
		assertThat(service.getSpec().getPorts()).singleElement()
			.satisfies((port) -> assertThat(port.getTargetPort().getStrVal()).isEqualTo("http"));
	}

	@Test
	void roleBindingGivesTheRoleToTheServiceAccount() {
		RoleBinding binding = resource(RoleBinding.class);
		assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
		assertThat(binding.getRoleRef().getName()).isEqualTo(resource(Role.class).getMetadata().getName());
		assertThat(binding.getSubjects()).singleElement().satisfies((subject) -> {
			assertThat(subject.getKind()).isEqualTo("ServiceAccount");
			assertThat(subject.getName()).isEqualTo(resource(ServiceAccount.class).getMetadata().getName());
		});
	}

	@Test
	void roleGrantsExactlyTheVerbsTheSampleSends() throws InterruptedException {
		Map<String, Set<String>> sent = verbsSentByTheSample();

		assertThat(sent).containsKeys("coordination.k8s.io/leases", "/events");
		Map<String, Set<String>> granted = new TreeMap<>();
		for (PolicyRule rule : resource(Role.class).getRules()) {
			assertThat(rule.getApiGroups()).hasSize(1);
			assertThat(rule.getResources()).hasSize(1);
			granted.put(rule.getApiGroups().get(0) + "/" + rule.getResources().get(0), new TreeSet<>(rule.getVerbs()));
		}
		assertThat(granted).isEqualTo(sent);
	}

	/**
	 * Runs a leader and a follower of the sample against a CRUD API server, then stops them so
	 * that the leader releases its Leases, and names the RBAC verb of every request they sent, by
	 * API group and resource ({@code group/resource}).
	 */
	private static Map<String, Set<String>> verbsSentByTheSample() throws InterruptedException {
		KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		server.init(InetAddress.getLoopbackAddress(), 0);
		Map<String, Set<String>> verbs = new TreeMap<>();
		try {
			try (ConfigurableApplicationContext leader = startSampleOn(server);
					ConfigurableApplicationContext follower = startSampleOn(server)) {
				LeaderElector leaderElector = leader.getBean(LeaderElector.class);
				LeaderElector followerElector = follower.getBean(LeaderElector.class);
				// until the leader leads, the follower knows it, and the Events of the grants were written
				await().atMost(Duration.ofSeconds(20))
					.until(() -> takeRequests(server, verbs)
							&& leaderElector.statuses().values().stream().allMatch((status) -> status.leader())
							&& followerElector.statuses()
								.values()
								.stream()
								.allMatch((status) -> leaderElector.identity().equals(status.holderIdentity()))
							&& verbs.containsKey("/events"));
			}
			takeRequests(server, verbs);
			return verbs;
		}
		finally {
			server.destroy();
		}
	}

	/** Adds the RBAC verb of every request received so far, by API group and resource; always true. */
	private static boolean takeRequests(KubernetesMockServer server, Map<String, Set<String>> verbs)
			throws InterruptedException {
		RecordedRequest request;
		while ((request = server.takeRequest(0, TimeUnit.MILLISECONDS)) != null) {
			Matcher path = RESOURCE_PATH.matcher(request.getPath());
			assertThat(path.matches()).as("%s %s is a request to a namespaced resource", request.getMethod(),
					request.getPath()).isTrue();
			String resource = ((path.group(1) != null) ? path.group(1) : "") + "/" + path.group(2);
			verbs.computeIfAbsent(resource, (key) -> new TreeSet<>()).add(verb(request.getMethod(), path));
		}
		return true;
	}


	private static ConfigurableApplicationContext startSampleOn(KubernetesMockServer server) {
		return new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
				"--sample.local-api-server.enabled=true", "--sample.local-api-server.port=" + server.getPort());
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
			default -> throw new AssertionError("Unexpected request " + method + " " + path.group());
		};
	}

	private static <T extends HasMetadata> T resource(Class<T> type) {
		return type.cast(resources.get(type));
	}

	private static Container container() {
		return resource(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
	}

	private static String path(Probe probe) {
		return probe.getHttpGet().getPath();
	}

}
