package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leaderelection.LeaderElector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The elector's Kubernetes Events on the real control plane (docs/operations.md, "Kubernetes
 * Events"): two replicas, each a Spring context with its own client as a ServiceAccount bound to
 * the Role of docs/operations.md; after a leader is elected and steps down, the real kubectl, as
 * an administrator, lists its Events on the Lease (reason {@code LeaderElection}, "... became
 * leader", "... stepped down") with {@code kubectl get events}, and {@code kubectl describe lease}
 * shows them under the Lease. The API server refused nothing.
 */
class EventsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private static final String LEASE = "events-leader";

	private static final ObjectMapper JSON = new ObjectMapper();

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final Terms terms = new Terms(LeaderElector.DEFAULT_ELECTION);

	private final List<SpringReplica> replicas = new ArrayList<>();

	private TestNamespace namespace;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("events");
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(SpringReplica::close);
		this.namespace.close();
	}

	@Test
	void kubectlListsTheEventsOfALeaderElectedAndSteppingDownOnTheLease() throws Exception {
		TestNamespace.ServiceAccount account = this.namespace.serviceAccount("elector",
				DocumentedRoles.rules(DocumentedRoles.LEASES));
		for (int i = 1; i <= 2; i++) {
			this.replicas.add(SpringReplica.start("replica-" + i, account.config(this.controlPlane.apiServer()),
					this.namespace.name(), Map.of("leader.election.lease-name", LEASE),
					List.of(this.terms.recorderFor("replica-" + i))));
		}
		SpringReplica leader = awaitLeader(null);
		leader.elector().stepDown(LeaderElector.DEFAULT_ELECTION);
		SpringReplica successor = awaitLeader(leader);
		String uid = this.controlPlane.admin()
			.leases()
			.inNamespace(this.namespace.name())
			.withName(LEASE)
			.get()
			.getMetadata()
			.getUid();

		List<String> expected = List.of(leader.identity() + " became leader", leader.identity() + " stepped down",
				successor.identity() + " became leader");
		await().atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(500))
			.untilAsserted(() -> assertThat(leaseEvents()).extracting((event) -> event.path("message").asText())
				.containsAll(expected));
		List<JsonNode> events = leaseEvents();
		System.out.printf("kubectl get events on the real control plane: %s%n",
				events.stream().map((event) -> event.path("message").asText()).toList());
		assertThat(events).allSatisfy((event) -> {
			assertThat(event.path("type").asText()).isEqualTo("Normal");
			assertThat(event.path("involvedObject").path("apiVersion").asText()).isEqualTo("coordination.k8s.io/v1");
			assertThat(event.path("involvedObject").path("namespace").asText()).isEqualTo(this.namespace.name());
			assertThat(event.path("involvedObject").path("uid").asText()).isEqualTo(uid);
			assertThat(event.path("message").asText()).startsWith(event.path("source").path("component").asText() + " ");
		});
		// kubectl describe finds them by the Lease's uid and shows them under it
		String described = this.controlPlane.kubectl("describe", "lease", LEASE, "-n", this.namespace.name());
		assertThat(described).contains("LeaderElection").contains(expected);

		this.replicas.forEach(SpringReplica::close);
		this.replicas.clear();
		this.terms.assertSafe();
		this.namespace.assertNothingRefused();
	}

	/** The Events {@code kubectl get events} lists in the namespace about the Lease, reason LeaderElection. */
	private List<JsonNode> leaseEvents() throws Exception {
		JsonNode list = JSON.readTree(this.controlPlane.kubectl("get", "events", "-n", this.namespace.name(), "-o", "json"));
		List<JsonNode> events = new ArrayList<>();
		list.path("items").forEach((event) -> {
			if (event.path("reason").asText().equals("LeaderElection")
					&& event.path("involvedObject").path("kind").asText().equals("Lease")
					&& event.path("involvedObject").path("name").asText().equals(LEASE)) {
				events.add(event);
			}
		});
		return events;
	}

	private SpringReplica awaitLeader(SpringReplica other) {
		await().atMost(TIMEOUT)
			.until(() -> this.replicas.stream()
				.anyMatch((replica) -> replica != other && replica.isLeader(LeaderElector.DEFAULT_ELECTION)));
		return this.replicas.stream()
			.filter((replica) -> replica != other && replica.isLeader(LeaderElector.DEFAULT_ELECTION))
			.findFirst()
			.orElseThrow();
	}

}
