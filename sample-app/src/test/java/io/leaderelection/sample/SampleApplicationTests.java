package io.leaderelection.sample;

import java.time.Duration;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leaderelection.sample.LocalApiServerConfiguration.LocalApiServerEndpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.client.TestRestTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as the README runs it: its own configuration, on a random port, against a local API
 * server of its own (on a random port, so as not to join one that runs on this machine), read over
 * HTTP. The local API server is asked for explicitly so that a developer's kubeconfig does not
 * point the test at a real cluster, and metrics export, which Spring Boot's tests switch off, is
 * switched back on for {@code /actuator/prometheus}. The lease timings are scaled down, with a
 * renew deadline that leaves a loaded machine room: the test expects one term per election.
 */
@AutoConfigureObservability(tracing = false)
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.local-api-server.enabled=true", "sample.local-api-server.port=0",
				"sample.jobs.interval=200ms", "leader.election.lease-duration=5s",
				"leader.election.renew-deadline=4s", "leader.election.retry-period=500ms" })
class SampleApplicationTests {

	/** The local API server starts empty: the first leader creates the Leases a lease duration (5s) later. */
	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private static final ObjectMapper json = new ObjectMapper();

	@Autowired
	private TestRestTemplate http;

	@Autowired
	private LocalApiServerEndpoint localApiServer;

	@Test
	void logsTheKubectlCommandThatListsTheLeasesOfItsLocalApiServer(CapturedOutput output) {
		assertThat(this.localApiServer.served()).as("served by this replica").isNotNull();
		assertThat(output).contains("started a local API server on http://127.0.0.1:" + this.localApiServer.port()
				+ ", which stops with this replica. See its Leases with: kubectl --server http://127.0.0.1:"
				+ this.localApiServer.port() + " get leases");
	}

	@Test
	void leadsBothElectionsAndShowsItOverHttp(CapturedOutput output) {
		await().atMost(TIMEOUT).untilAsserted(() -> {
			JsonNode leader = getJson("/actuator/leader");
			assertThat(leader.at("/elections/default/leader").asBoolean()).isTrue();
			assertThat(leader.at("/elections/reports/leader").asBoolean()).isTrue();
		});
		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(output).contains("This replica became leader of election 'default'")
				.contains("This replica became leader of election 'reports'"));
		JsonNode leader = getJson("/actuator/leader");
		String identity = leader.at("/identity").asText();
		assertThat(leader.at("/elections/default/leaseName").asText()).isEqualTo("sample-leader");
		assertThat(leader.at("/elections/reports/leaseName").asText()).isEqualTo("sample-reports-leader");
		assertThat(leader.at("/elections/default/holderIdentity").asText()).isEqualTo(identity);
		assertThat(leader.at("/elections/default/fencingToken").asLong()).isPositive();
		assertThat(leader.at("/elections/default/fencingTokenSource").asText()).isEqualTo("resourceVersion");
		assertThat(getJson("/actuator/leader/reports").at("/holderIdentity").asText()).isEqualTo(identity);

		ResponseEntity<String> health = this.http.getForEntity("/actuator/health/leaderElection", String.class);
		assertThat(health.getStatusCode()).isEqualTo(HttpStatus.OK);
		JsonNode leaderElection = parse(health.getBody());
		assertThat(leaderElection.at("/status").asText()).isEqualTo("UP");
		assertThat(leaderElection.at("/details/elections/default/role").asText()).isEqualTo("leader");
		assertThat(leaderElection.at("/details/elections/reports/role").asText()).isEqualTo("leader");
		JsonNode liveness = getJson("/actuator/health/liveness");
		assertThat(liveness.at("/status").asText()).isEqualTo("UP");
		assertThat(liveness.at("/components/leaderElectionLiveness/status").asText()).isEqualTo("UP");
		assertThat(getJson("/actuator/health/readiness").at("/status").asText()).isEqualTo("UP");

		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(this.http.getForObject("/actuator/prometheus", String.class))
				.contains("leader_election_leader{election=\"default\"} 1.0")
				.contains("leader_election_leader{election=\"reports\"} 1.0")
				.contains("leader_election_transitions_total{election=\"reports\",event=\"granted\"} 1.0")
				.containsPattern("leader_only_invocations_total\\{election=\"default\",outcome=\"executed\"} [1-9]")
				.containsPattern("leader_only_invocations_total\\{election=\"reports\",outcome=\"executed\"} [1-9]")
				.containsPattern(
						"leader_election_renewals_seconds_count\\{election=\"default\",outcome=\"success\"} [1-9]"));

		JsonNode info = getJson("/actuator/info");
		assertThat(info.at("/leader/identity").asText()).isEqualTo(identity);
		assertThat(info.at("/leader/elections/reports/leader").asBoolean()).isTrue();

		JsonNode work = getJson("/work");
		assertThat(work.at("/replica").asText()).isEqualTo(identity);
		assertThat(work.at("/leads/default").asBoolean()).isTrue();
		assertThat(work.at("/consumingReportRequests").asBoolean()).isTrue();
		assertThat(work.at("/journal").findValuesAsText("what")).contains("reconciled the orders",
				"published the sales report");
		// alone, it leads every shard of orders and ships every order
		await().atMost(TIMEOUT).untilAsserted(() -> {
			JsonNode shipped = getJson("/work");
			assertThat(shipped.at("/ownedOrderShards").toString()).isEqualTo("[0,1,2,3,4,5,6,7]");
			assertThat(shipped.at("/journal").findValuesAsText("what")).anyMatch((what) -> what.startsWith("shipped order-"));
		});
		// each piece of work carries its election's (or shard's) fencing token: one term each, so one token each
		JsonNode journal = getJson("/work").at("/journal");
		JsonNode elections = getJson("/actuator/leader").at("/elections");
		journal.forEach((entry) -> assertThat(entry.at("/fencingToken").asLong())
			.isEqualTo(elections.at("/" + entry.at("/election").asText() + "/fencingToken").asLong()));

		ResponseEntity<String> stepDown = this.http.exchange("/actuator/leader/default", HttpMethod.DELETE, null,
				String.class);
		assertThat(stepDown.getStatusCode()).as("the sample grants read access only")
			.isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
	}

	private JsonNode getJson(String path) {
		return parse(this.http.getForObject(path, String.class));
	}

	private static JsonNode parse(String body) {
		try {
			return json.readTree(body);
		}
		catch (JsonProcessingException ex) {
			throw new IllegalStateException("Not JSON: " + body, ex);
		}
	}

}
