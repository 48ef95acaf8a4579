package io.leaderelection.actuate;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code leaderElection} health contributor when the API server refuses the elector: 403
 * and a missing namespace, served by fabric8's mock server in expectations mode. Health turns
 * DOWN only once the calls have failed for longer than a lease duration, names the Lease and
 * the verb, and the application keeps serving, ready and live.
 */
class LeaderElectionHealthApiFailureIntegrationTests {

	private static final Duration LEASE_DURATION = Duration.ofSeconds(3);

	private static final Map<String, Object> PROPERTIES = Map.of("spring.application.name", "refused",
			"leader.election.lease-duration", "3s", "leader.election.renew-deadline", "2s",
			"leader.election.retry-period", "250ms");

	private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases";

	private KubernetesMockServer server;

	private WebReplica replica;

	@BeforeEach
	void startServer() {
		this.server = new KubernetesMockServer(false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
	}

	@AfterEach
	void stop() {
		if (this.replica != null) {
			this.replica.close();
		}
		this.server.destroy();
	}

	@Test
	void forbiddenReadsTurnHealthDownAfterALeaseDuration() {
		this.server.expect()
			.get()
			.withPath(LEASES.formatted("team-a") + "/refused-leader")
			.andReturn(403, failure(403, "Forbidden", "leases.coordination.k8s.io \"refused-leader\" is forbidden: "
					+ "User \"system:serviceaccount:team-a:default\" cannot get resource \"leases\" in API group "
					+ "\"coordination.k8s.io\" in the namespace \"team-a\""))
			.always();

		startReplicaIn("team-a");

		assertDownAfterALeaseDuration("get Lease team-a/refused-leader: 403", "cannot get resource \"leases\"");
	}

	@Test
	void aMissingNamespaceTurnsHealthDownAfterALeaseDuration() {
		this.server.expect()
			.get()
			.withPath(LEASES.formatted("missing") + "/refused-leader")
			.andReturn(404, failure(404, "NotFound", "leases.coordination.k8s.io \"refused-leader\" not found"))
			.always();
		this.server.expect()
			.post()
			.withPath(LEASES.formatted("missing"))
			.andReturn(404, failure(404, "NotFound", "namespaces \"missing\" not found"))
			.always();

		startReplicaIn("missing");

		assertDownAfterALeaseDuration("create Lease missing/refused-leader: 404", "does namespace 'missing' exist?");
	}

	private void startReplicaIn(String namespace) {
		Map<String, Object> properties = new HashMap<>(PROPERTIES);
		properties.put("leader.election.namespace", namespace);
		this.replica = WebReplica.start("refused", this.server.createClient(), properties);
	}

	/**
	 * @param error how the failed call is reported: verb, Lease and status
	 * @param detail what the API server or the elector said about it
	 */
	private void assertDownAfterALeaseDuration(String error, String detail) {
		// The first failing call comes at once (a refused read), or a lease duration after the
		// start (the create of a Lease read as missing): health stays UP meanwhile.
		await().atMost(LEASE_DURATION.multipliedBy(2))
			.until(() -> this.replica.elector().status("default").lastError() != null);
		JsonNode failingBriefly = this.replica.getJson("/actuator/health/leaderElection");
		assertThat(failingBriefly.at("/status").asText()).isEqualTo("UP");
		assertThat(failingBriefly.at("/details/elections/default/lastError").asText()).startsWith(error)
			.contains(detail);

		await().atMost(LEASE_DURATION.multipliedBy(3)).untilAsserted(() -> {
			ResponseEntity<String> health = this.replica.get("/actuator/health/leaderElection");
			assertThat(health.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
			assertThat(WebReplica.parse(health.getBody()).at("/status").asText()).isEqualTo("DOWN");
		});
		JsonNode down = this.replica.getJson("/actuator/health/leaderElection");
		assertThat(down.at("/details/reason").asText()).startsWith("election 'default': " + error)
			.contains(detail)
			.endsWith("longer than the lease duration of 3s)");
		assertThat(down.at("/details/elections/default/role").asText()).isEqualTo("follower");

		// Still serving, ready for traffic and live: a restart would not fix the API server.
		ResponseEntity<String> leader = this.replica.get("/actuator/leader/default");
		assertThat(leader.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(WebReplica.parse(leader.getBody()).at("/lastError").asText()).startsWith(error);
		assertThat(this.replica.get("/actuator/health/readiness").getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(this.replica.get("/actuator/health/liveness").getStatusCode()).isEqualTo(HttpStatus.OK);
	}

	private static Status failure(int code, String reason, String message) {
		return new StatusBuilder().withStatus("Failure").withCode(code).withReason(reason).withMessage(message).build();
	}

}
