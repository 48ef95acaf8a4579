package io.leaderelection.autoconfigure.routing;

import java.time.Duration;
import java.util.Map;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionFailureAnalysis;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderRoutingAutoConfiguration}: the EndpointSlice and the Pod label follow
 * the term on the CRUD mock server, and every value that cannot route fails the start naming its
 * property.
 */
class LeaderRoutingAutoConfigurationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START, "leader.election.lease-duration=3s",
				"leader.election.renew-deadline=2s", "leader.election.retry-period=250ms", "POD_NAME=pod-a",
				"POD_IP=10.0.0.1", "leader.election.identity=a")
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class, LeaderRoutingAutoConfiguration.class))
		.withBean(KubernetesClient.class, server::newClient);

	@Test
	void theSliceNamesTheLeaderOnceItsTermBeganAndIsEmptiedBeforeItsRelease() {
		String namespace = "routed";
		withService(namespace, "orders-leader", Map.of(), "http");
		withPod(namespace, "pod-a");
		server.createReleased(namespace, "orders-lease");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=" + namespace, "leader.election.lease-name=orders-lease",
					"leader.election.routing.service=orders-leader", "leader.election.routing.ports.http=8080")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(LeaderRoutes.class);
				LeaderElector elector = context.getBean(LeaderElector.class);
				await().atMost(TIMEOUT).until(elector::isLeader);
				long token = elector.status(LeaderElector.DEFAULT_ELECTION).fencingToken();
				await().atMost(TIMEOUT).untilAsserted(() -> {
					EndpointSlice slice = slice(namespace, "orders-leader");
					assertThat(slice).isNotNull();
					assertThat(slice.getEndpoints()).singleElement()
						.satisfies((endpoint) -> assertThat(endpoint.getAddresses()).containsExactly("10.0.0.1"));
					assertThat(slice.getPorts()).singleElement().satisfies((port) -> {
						assertThat(port.getName()).isEqualTo("http");
						assertThat(port.getPort()).isEqualTo(8080);
					});
					assertThat(slice.getMetadata().getAnnotations())
						.containsEntry("leaderelection.io/fencing-token", Long.toString(token))
						.containsEntry("leaderelection.io/holder", "a");
					assertThat(slice.getMetadata().getOwnerReferences()).singleElement()
						.satisfies((owner) -> assertThat(owner.getKind()).isEqualTo("Service"));
					assertThat(podLabel(namespace, "pod-a")).isEqualTo("leader");
				});

				elector.stepDown(LeaderElector.DEFAULT_ELECTION);

				await().atMost(TIMEOUT).untilAsserted(() -> {
					Lease lease = server.lease(namespace, "orders-lease");
					assertThat(lease.getSpec().getHolderIdentity()).isEmpty();
					EndpointSlice slice = slice(namespace, "orders-leader");
					assertThat(slice.getEndpoints()).isNullOrEmpty();
					// the server's resourceVersions count every write: the slice was emptied first
					assertThat(Long.parseLong(slice.getMetadata().getResourceVersion()))
						.isLessThan(Long.parseLong(lease.getMetadata().getResourceVersion()));
					assertThat(podLabel(namespace, "pod-a")).isEqualTo("follower");
				});
			});
	}

	@Test
	void aFollowerLabelsItsPodFollowerAndLeavesTheSliceAlone() {
		String namespace = "followed";
		withService(namespace, "orders-leader", Map.of(), "http");
		withPod(namespace, "pod-a");
		server.createHeld(namespace, "orders-lease", "someone-else", 60);
		this.contextRunner
			.withPropertyValues("leader.election.namespace=" + namespace, "leader.election.lease-name=orders-lease",
					"leader.election.routing.service=orders-leader", "leader.election.routing.ports.http=8080")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				await().atMost(TIMEOUT).until(() -> "follower".equals(podLabel(namespace, "pod-a")));
				assertThat(slice(namespace, "orders-leader")).isNull();
			});
	}

	@Test
	void theEndpointDefaultsToTheWebServersPortNamedHttp() {
		String namespace = "web-port";
		withService(namespace, "orders-leader", Map.of(), "http");
		server.createReleased(namespace, "orders-lease");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=" + namespace, "leader.election.lease-name=orders-lease",
					"leader.election.routing.service=orders-leader", "leader.election.routing.pod-label=false",
					"local.server.port=8123")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				await().atMost(TIMEOUT).untilAsserted(() -> assertThat(slice(namespace, "orders-leader")).isNotNull()
					.satisfies((slice) -> assertThat(slice.getPorts()).singleElement()
						.satisfies((port) -> assertThat(port.getName() + "=" + port.getPort()).isEqualTo("http=8123"))));
			});
	}

	/** Nothing routes without a Service or pod-label=true: neither address nor Pod name is needed. */
	@Test
	void withoutRoutingPropertiesNothingIsNeeded() {
		this.contextRunner.withPropertyValues("leader.election.namespace=unrouted", "POD_IP=", "POD_NAME=", "HOSTNAME=")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderRoutes.class));
	}

	/** A blank Service, as an empty environment variable gives it, is no Service. */
	@Test
	void aBlankServiceIsUnset() {
		this.contextRunner
			.withPropertyValues("leader.election.namespace=unrouted", "leader.election.routing.service= ", "POD_IP=",
					"POD_NAME=", "HOSTNAME=")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderRoutes.class));
	}

	/** The Pod label switched on for one election alone routes it. */
	@Test
	void aPodLabelOfOneElectionRoutes() {
		withPod("labelled", "pod-a");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=labelled", "leader.election.elections.orders.lease-name=orders",
					"leader.election.elections.orders.routing.pod-label=true")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(LeaderRoutes.class));
	}

	@Test
	void standaloneThereIsNoRoute() {
		this.contextRunner
			.withPropertyValues("leader.election.mode=standalone", "leader.election.routing.service=orders-leader")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderRoutes.class));
	}

	@Test
	void aMissingAddressFailsTheStartNamingTheProperty() {
		this.contextRunner.withPropertyValues("POD_IP=", "leader.election.routing.service=orders-leader",
				"leader.election.routing.ports.http=8080")
			.run(failsNaming("leader.election.routing.address", "POD_IP", "status.podIP"));
	}

	@Test
	void anAddressThatIsNoIpAddressFailsTheStartNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("leader.election.routing.service=orders-leader",
					"leader.election.routing.address=leader.example.com", "leader.election.routing.ports.http=8080")
			.run(failsNaming("leader.election.routing.address", "must be an IPv4 or IPv6 address"));
	}

	/**
	 * A loopback address parses, but the API server refuses it in an EndpointSlice (422): the start
	 * fails, rather than every term's first write.
	 */
	@Test
	void anAddressTheApiServerRefusesFailsTheStartNamingThePropertyAndWhy() {
		this.contextRunner
			.withPropertyValues("POD_IP=127.0.0.1", "leader.election.routing.service=orders-leader",
					"leader.election.routing.ports.http=8080")
			.run(failsNaming("leader.election.routing.address", "(from the environment variable POD_IP)",
					"127.0.0.1 is in the loopback range (127.0.0.0/8, ::1), which it refuses (422 Unprocessable "
							+ "Entity)",
					"status.podIP"));
	}

	@Test
	void anAddressInAnotherFormThanTheCanonicalOneFailsTheStartNamingThatForm() {
		this.contextRunner
			.withPropertyValues("leader.election.elections.orders.routing.service=orders-leader",
					"leader.election.elections.orders.routing.address=2001:DB8:0:0::1",
					"leader.election.elections.orders.routing.ports.http=8080")
			.run(failsNaming("leader.election.elections.orders.routing.address", "must be written 2001:db8::1",
					"2001:DB8:0:0::1 is not in the canonical form of RFC 5952"));
	}

	@Test
	void aPortThatDoesNotParseFailsTheStartNamingIt() {
		this.contextRunner
			.withPropertyValues("leader.election.routing.service=orders-leader",
					"leader.election.routing.ports.http=eighty")
			.run(failsNaming("leader.election.routing.ports.http", "must be a port number from 1 to 65535"));
	}

	@Test
	void aPortNameThatIsNoneFailsTheStartNamingIt() {
		this.contextRunner
			.withPropertyValues("leader.election.routing.service=orders-leader",
					"leader.election.routing.ports.http-port-of-the-app=8080")
			.run(failsNaming("leader.election.routing.ports.http-port-of-the-app", "not a port name"));
	}

	@Test
	void aServiceNameThatIsNoneFailsTheStartNamingIt() {
		this.contextRunner.withPropertyValues("leader.election.routing.service=Orders_Leader")
			.run(failsNaming("leader.election.routing.service", "DNS-1035 label"));
	}

	@Test
	void aServiceWithASelectorFailsTheStartNamingTheProperty() {
		String namespace = "selecting";
		withService(namespace, "orders", Map.of("app", "orders"), "http");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=" + namespace, "leader.election.routing.service=orders",
					"leader.election.routing.ports.http=8080")
			.run(failsNaming("leader.election.routing.service", "a Service with a selector ({app=orders})",
					"must have no selector"));
	}

	@Test
	void aMissingServiceFailsTheStartNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("leader.election.namespace=no-service", "leader.election.routing.service=orders-leader",
					"leader.election.routing.ports.http=8080")
			.run(failsNaming("leader.election.routing.service", "names no Service in namespace 'no-service'"));
	}

	@Test
	void aServicePortWithoutAPortOfItsNameFailsTheStartNamingThePorts() {
		String namespace = "port-names";
		withService(namespace, "orders-leader", Map.of(), "grpc");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=" + namespace,
					"leader.election.routing.service=orders-leader", "leader.election.routing.ports.http=8080")
			.run(failsNaming("leader.election.routing.ports", "port(s) [grpc]", "ports here: [http]"));
	}

	@Test
	void aShardedElectionCannotBeRouted() {
		this.contextRunner
			.withPropertyValues("leader.election.elections.orders.shards=2",
					"leader.election.elections.orders.routing.service=orders-leader")
			.run(failsNaming("leader.election.elections.orders.routing.service", "split into 2 shards"));
	}

	@Test
	void twoElectionsCannotRouteOneService() {
		this.contextRunner
			.withPropertyValues("leader.election.routing.service=orders-leader",
					"leader.election.routing.ports.http=8080",
					"leader.election.elections.reports.routing.service=orders-leader")
			.run(failsNaming("leader.election.elections.reports.routing.service",
					"names the Service of election 'default' too"));
	}

	@Test
	void aPodLabelWithoutPodNameFailsTheStartNamingTheProperty() {
		this.contextRunner.withPropertyValues("POD_NAME=", "HOSTNAME=", "leader.election.routing.pod-label=true")
			.run(failsNaming("leader.election.routing.pod-label", "POD_NAME"));
	}

	private static ContextConsumer<AssertableApplicationContext> failsNaming(String property, String... reasons) {
		return (context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
			assertThat(analysis).as("%s", context.getStartupFailure()).isNotNull();
			assertThat(analysis.getAction()).startsWith("Update '" + property + "' in your configuration:");
			assertThat(analysis.getDescription()).contains(reasons);
		};
	}

	private static void withService(String namespace, String name, Map<String, String> selector, String portName) {
		try (KubernetesClient client = server.newClient()) {
			client.services()
				.inNamespace(namespace)
				.resource(new ServiceBuilder().withNewMetadata()
					.withName(name)
					.endMetadata()
					.withNewSpec()
					.withSelector(selector.isEmpty() ? null : selector)
					.addNewPort()
					.withName(portName)
					.withPort(80)
					.endPort()
					.endSpec()
					.build())
				.create();
		}
	}

	private static void withPod(String namespace, String name) {
		try (KubernetesClient client = server.newClient()) {
			client.pods()
				.inNamespace(namespace)
				.resource(new PodBuilder().withNewMetadata().withName(name).endMetadata().build())
				.create();
		}
	}

	private static EndpointSlice slice(String namespace, String name) {
		try (KubernetesClient client = server.newClient()) {
			return client.discovery().v1().endpointSlices().inNamespace(namespace).withName(name).get();
		}
	}

	private static String podLabel(String namespace, String name) {
		try (KubernetesClient client = server.newClient()) {
			Map<String, String> labels = client.pods().inNamespace(namespace).withName(name).get().getMetadata()
				.getLabels();
			return (labels != null) ? labels.get("leaderelection.io/default") : null;
		}
	}

}
