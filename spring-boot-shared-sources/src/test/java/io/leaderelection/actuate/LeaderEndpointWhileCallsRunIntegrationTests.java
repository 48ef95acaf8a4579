package io.leaderelection.actuate;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code DELETE /actuator/leader/{election}} while a {@code @LeaderOnly} call is under way (here a
 * web request the test holds open): the answer says the release waits for that call and names it,
 * {@code /actuator/health/leaderElection} shows the pending release while it waits, the Lease
 * stays this replica's and is renewed meanwhile, and once the call has ended the Lease is released.
 */
class LeaderEndpointWhileCallsRunIntegrationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private static final String NAMESPACE = "endpoint-calls";

	private static final String LEASE_NAME = "endpoint-calls-leader";

	private static final Duration LEASE_DURATION = Duration.ofSeconds(2);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static volatile CountDownLatch reportEntered;

	private static volatile CountDownLatch reportRelease;

	private final ExecutorService requests = Executors.newSingleThreadExecutor();

	private WebReplica replica;

	@BeforeEach
	void resetReport() {
		reportEntered = new CountDownLatch(1);
		reportRelease = new CountDownLatch(1);
	}

	@AfterEach
	void stopReplica() {
		reportRelease.countDown();
		this.requests.shutdownNow();
		if (this.replica != null) {
			this.replica.close();
		}
	}

	@Test
	void aStepDownWhileACallRunsAnswersWaitingForCallsShowsThePendingReleaseAndReleasesOnceTheCallEnded()
			throws InterruptedException {
		server.createReleased(NAMESPACE, LEASE_NAME);
		Map<String, Object> properties = new HashMap<>();
		properties.put("leader.election.namespace", NAMESPACE);
		properties.put("leader.election.lease-name", LEASE_NAME);
		properties.put("leader.election.lease-duration", LEASE_DURATION.toMillis() + "ms");
		properties.put("leader.election.renew-deadline", "1s");
		properties.put("leader.election.retry-period", "250ms");
		properties.put("management.endpoint.leader.access", "unrestricted");
		// WebReplica runs its own application class; the controller joins it as another source
		properties.put("spring.main.sources", ReportController.class.getName());
		this.replica = WebReplica.start("calls-leader", server.newClient(), properties);
		await().atMost(WAIT).until(() -> this.replica.elector().isLeader());
		CompletableFuture<ResponseEntity<String>> report = CompletableFuture
			.supplyAsync(() -> this.replica.get("/report"), this.requests);
		try {
			assertThat(reportEntered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the report started").isTrue();

			ResponseEntity<String> stepDown = this.replica.delete("/actuator/leader/default");

			assertThat(stepDown.getStatusCode()).isEqualTo(HttpStatus.OK);
			JsonNode answer = WebReplica.parse(stepDown.getBody());
			assertThat(answer.at("/leader").asBoolean()).as("leader, in %s", answer).isFalse();
			assertThat(answer.at("/release").asText()).as("release, in %s", answer).isEqualTo("WAITING_FOR_CALLS");
			assertThat(answer.at("/callsUnderWay")).as("calls under way, in %s", answer).hasSize(1);
			assertThat(answer.at("/callsUnderWay/0").asText()).startsWith("ReportController.report() on thread http-");
			assertThat(answer.has("detail")).as("detail, in %s", answer).isFalse();

			JsonNode health = this.replica.getJson("/actuator/health/leaderElection");
			assertThat(health.at("/status").asText()).as("status, in %s", health).isEqualTo("UP");
			assertThat(health.at("/details/elections/default/role").asText()).isEqualTo("follower");
			assertThat(health.at("/details/elections/default/lastRelease").asText()).as("lastRelease, in %s", health)
				.startsWith("WAITING_FOR_CALLS")
				.contains("ReportController.report() on thread http-");

			// held, and renewed, for longer than a lease duration while the call runs
			Lease held = lease();
			await("the Lease held by the replica while the call runs").during(LEASE_DURATION.plusMillis(500))
				.atMost(LEASE_DURATION.plusSeconds(2))
				.until(() -> lease().getSpec().getHolderIdentity(), "calls-leader"::equals);
			assertThat(lease().getSpec().getRenewTime()).as("renewTime while the call runs")
				.isAfter(held.getSpec().getRenewTime());
			assertThat(report).isNotDone();
		}
		finally {
			reportRelease.countDown();
		}
		assertThat(report.join().getBody()).isEqualTo("report done");
		await("the Lease released").atMost(WAIT).until(() -> lease().getSpec().getHolderIdentity(), String::isEmpty);
		assertThat(lease().getSpec().getLeaseDurationSeconds()).as("leaseDurationSeconds of the release").isOne();
		JsonNode healthAfter = this.replica.getJson("/actuator/health/leaderElection");
		assertThat(healthAfter.at("/details/elections/default").has("lastRelease"))
			.as("lastRelease once written, in %s", healthAfter)
			.isFalse();
	}

	private static Lease lease() {
		return server.lease(NAMESPACE, LEASE_NAME);
	}

	/** A report only the leader writes; the test holds it open. */
	@RestController
	static class ReportController {

		@LeaderOnly
		@GetMapping("/report")
		public String report() throws InterruptedException {
			reportEntered.countDown();
			return reportRelease.await(30, TimeUnit.SECONDS) ? "report done" : "report timed out";
		}

	}

}
