package io.leaderelection.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leader endpoint, the health contributors, the metrics and the info contribution over
 * HTTP, on a leader and a follower that elect through fabric8's mock API server in CRUD mode.
 */
class LeaderActuatorIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	/** Where the replicas' Leases live, created released so that the first replica leads at once. */
	private static final String NAMESPACE = "actuator";

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private WebReplica a;

	private WebReplica b;

	@AfterEach
	void stopReplicas() {
		if (this.b != null) {
			this.b.close();
		}
		if (this.a != null) {
			this.a.close();
		}
	}

	@Test
	void leaderAndFollowerShowTheirRolesAndBothAreHealthy() {
		startLeaderAndFollower("roles", Map.of());

		JsonNode onLeader = this.a.getJson("/actuator/leader");
		assertThat(onLeader.at("/identity").asText()).isEqualTo("a");
		assertThat(onLeader.at("/elections/default/leader").asBoolean()).isTrue();
		assertThat(onLeader.at("/elections/default/holderIdentity").asText()).isEqualTo("a");
		assertThat(onLeader.at("/elections/default/leaseName").asText()).isEqualTo("roles-leader");
		// the fencing token is the resourceVersion of the write that acquired the Lease
		assertThat(onLeader.at("/elections/default/fencingToken").asLong()).isPositive()
			.isLessThanOrEqualTo(Long.parseLong(server.lease(NAMESPACE, "roles-leader")
				.getMetadata()
				.getResourceVersion()));
		assertThat(onLeader.at("/elections/default/fencingTokenSource").asText()).isEqualTo("resourceVersion");
		JsonNode onFollower = this.b.getJson("/actuator/leader");
		assertThat(onFollower.at("/identity").asText()).isEqualTo("b");
		assertThat(onFollower.at("/elections/default/leader").asBoolean()).isFalse();
		assertThat(onFollower.at("/elections/default/holderIdentity").asText()).isEqualTo("a");
		assertThat(onFollower.at("/elections/default").has("fencingToken")).isFalse();

		ResponseEntity<String> one = this.b.get("/actuator/leader/default");
		assertThat(one.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(WebReplica.parse(one.getBody()).at("/election").asText()).isEqualTo("default");
		assertThat(this.b.get("/actuator/leader/nope").getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);

		assertHealth(this.a, "leader", "a");
		assertHealth(this.b, "follower", "a");

		assertThat(this.a.get("/actuator/prometheus").getBody())
			.contains("leader_election_leader{election=\"default\"} 1.0")
			.contains("leader_election_transitions_total{election=\"default\",event=\"granted\"} 1.0")
			.contains("leader_election_transitions_total{election=\"default\",event=\"revoked\"} 0.0")
			.contains("leader_election_last_transition_timestamp_seconds{election=\"default\"}")
			.contains("leader_only_invocations_total{election=\"default\",outcome=\"executed\"} 0.0")
			.contains("leader_only_invocations_total{election=\"default\",outcome=\"skipped\"} 0.0");
		assertThat(this.b.get("/actuator/prometheus").getBody())
			.contains("leader_election_leader{election=\"default\"} 0.0")
			.contains("leader_election_transitions_total{election=\"default\",event=\"granted\"} 0.0")
			.doesNotContain("leader_election_last_transition_timestamp_seconds");
		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(this.a.get("/actuator/prometheus").getBody()).containsPattern(
					"leader_election_renewals_seconds_count\\{election=\"default\",outcome=\"success\"} [1-9]"));

		JsonNode info = this.b.getJson("/actuator/info");
		assertThat(info.at("/leader/identity").asText()).isEqualTo("b");
		assertThat(info.at("/leader/elections/default/leader").asBoolean()).isFalse();
		assertThat(info.at("/leader/elections/default/holderIdentity").asText()).isEqualTo("a");
	}

	@Test
	void aWatchingFollowerStaysHealthyWhileTheLeaderRenews() {
		startLeaderAndFollower("steady", Map.of());

		// Longer than a lease duration and two retry periods, after which a loop that has not
		// run counts as stalled: the follower's loop runs on the leader's renewals, not on polls.
		await().during(Duration.ofSeconds(6))
			.atMost(Duration.ofSeconds(10))
			.until(() -> this.b.get("/actuator/health/leaderElection").getStatusCode().equals(HttpStatus.OK));
		assertHealth(this.b, "follower", "a");
	}

	@Test
	void deleteOnTheLeaderHandsLeadershipToTheFollower() {
		startLeaderAndFollower("handover", Map.of("management.endpoint.leader.access", "unrestricted"));

		ResponseEntity<String> stepDown = this.a.delete("/actuator/leader/default");

		assertThat(stepDown.getStatusCode()).isEqualTo(HttpStatus.OK);
		JsonNode answer = WebReplica.parse(stepDown.getBody());
		assertThat(answer.at("/election").asText()).isEqualTo("default");
		assertThat(answer.at("/leader").asBoolean()).isFalse();
		// no leader-only call was running: the release was written before the answer
		assertThat(answer.at("/release").asText()).isEqualTo("WRITTEN");
		assertThat(answer.at("/callsUnderWay").isEmpty()).isTrue();
		assertThat(answer.has("detail")).isFalse();
		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(this.b.getJson("/actuator/leader/default").at("/leader").asBoolean())
				.isTrue());
		assertThat(server.lease(NAMESPACE, "handover-leader")
			.getSpec()
			.getHolderIdentity()).isEqualTo("b");
		await().atMost(TIMEOUT).until(() -> "b".equals(this.a.elector().status("default").holderIdentity()));
		assertThat(this.a.getJson("/actuator/leader/default").at("/leader").asBoolean()).isFalse();
		assertThat(this.a.get("/actuator/prometheus").getBody())
			.contains("leader_election_leader{election=\"default\"} 0.0")
			.contains("leader_election_transitions_total{election=\"default\",event=\"revoked\"} 1.0");
		assertThat(this.b.get("/actuator/prometheus").getBody())
			.contains("leader_election_leader{election=\"default\"} 1.0")
			.contains("leader_election_transitions_total{election=\"default\",event=\"granted\"} 1.0");
		assertHealth(this.a, "follower", "b");
		assertHealth(this.b, "leader", "b");
		assertThat(this.a.delete("/actuator/leader/nope").getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
	}

	@Test
	void jobsRunOncePerWindowAreListedOnEveryReplicaAndTheirLocksCounted() {
		startLeaderAndFollower("windows", Map.of());
		LockProvider onLeader = this.a.bean(LockProvider.class);
		onLeader.lock(new LockConfiguration(ClockProvider.now(), "nightly-report", Duration.ofMinutes(1),
				Duration.ofSeconds(30)))
			.orElseThrow()
			.unlock();
		assertThat(this.b.bean(LockProvider.class)
			.lock(new LockConfiguration(ClockProvider.now(), "nightly-report", Duration.ofMinutes(1),
					Duration.ofSeconds(30)))).isEmpty();

		long token = this.a.elector().status("default").fencingToken();
		for (WebReplica replica : new WebReplica[] { this.a, this.b }) {
			// the follower sees the job once it has read the leader's write of its end
			await().atMost(TIMEOUT)
				.untilAsserted(() -> assertThat(replica.getJson("/actuator/leader").at("/windows/default/0/ended")
					.isTextual()).isTrue());
			JsonNode job = replica.getJson("/actuator/leader").at("/windows/default/0");
			assertThat(job.at("/election").asText()).isEqualTo("default");
			assertThat(job.at("/job").asText()).isEqualTo("nightly-report");
			assertThat(job.at("/startedBy").asText()).isEqualTo("a");
			assertThat(job.at("/fencingToken").asLong()).isEqualTo(token);
			Instant lastStart = Instant.parse(job.at("/lastStart").asText());
			assertThat(Duration.between(lastStart, Instant.parse(job.at("/nextStartAllowed").asText())))
				.as("the lock's lockAtLeastFor, on %s", replica.identity())
				.isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
		}
		assertThat(this.a.get("/actuator/prometheus").getBody())
			.contains("leader_election_shedlock_locks_total{election=\"default\",outcome=\"granted\"} 1.0")
			.contains("leader_election_shedlock_locks_total{election=\"default\",outcome=\"skipped-window\"} 0.0")
			.contains("leader_only_invocations_total{election=\"default\",outcome=\"skipped-window\"} 0.0");
		assertThat(this.b.get("/actuator/prometheus").getBody())
			.contains("leader_election_shedlock_locks_total{election=\"default\",outcome=\"skipped\"} 1.0");
	}

	@Test
	void deleteOnALeaderHoldingALockWaitsForItsReleaseAndHandsOverWithItsEnd() {
		startLeaderAndFollower("lockheld", Map.of("management.endpoint.leader.access", "unrestricted"));
		SimpleLock lock = this.a.bean(LockProvider.class)
			.lock(new LockConfiguration(ClockProvider.now(), "nightly-report", Duration.ofMinutes(1),
					Duration.ZERO))
			.orElseThrow();

		JsonNode answer = WebReplica.parse(this.a.delete("/actuator/leader/default").getBody());

		assertThat(answer.at("/leader").asBoolean()).isFalse();
		assertThat(answer.at("/release").asText()).isEqualTo("WAITING_FOR_CALLS");
		assertThat(answer.at("/callsUnderWay/0").asText()).startsWith("ShedLock lock 'nightly-report'");
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(2))
			.until(() -> !this.b.elector().isLeader());
		lock.unlock();
		await().atMost(TIMEOUT).until(() -> this.b.elector().isLeader());
		assertThat(this.b.elector().windows("default")).singleElement().satisfies((job) -> {
			assertThat(job.startedBy()).isEqualTo("a");
			assertThat(job.ended()).as("the release carried the lock's end").isNotNull();
		});
	}

	@Test
	void stepDownIsNotGrantedByDefault() {
		startLeaderAndFollower("readonly", Map.of());

		ResponseEntity<String> stepDown = this.a.delete("/actuator/leader/default");

		// Only the read operations are mapped: the path allows GET alone.
		assertThat(stepDown.getStatusCode()).isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		assertThat(this.a.elector().isLeader()).isTrue();
		assertThat(this.a.getJson("/actuator/leader/default").at("/leader").asBoolean()).isTrue();
	}

	private void startLeaderAndFollower(String application, Map<String, Object> properties) {
		Map<String, Object> all = new HashMap<>(properties);
		all.put("spring.application.name", application);
		all.put("leader.election.namespace", NAMESPACE);
		server.createReleased(NAMESPACE, application + "-leader");
		this.a = WebReplica.start("a", server.newClient(), all);
		await().atMost(TIMEOUT).until(() -> this.a.elector().isLeader());
		this.b = WebReplica.start("b", server.newClient(), all);
		await().atMost(TIMEOUT).until(() -> "a".equals(this.b.elector().status("default").holderIdentity()));
	}

	private static void assertHealth(WebReplica replica, String role, String holder) {
		ResponseEntity<String> response = replica.get("/actuator/health/leaderElection");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		JsonNode health = WebReplica.parse(response.getBody());
		assertThat(health.at("/status").asText()).isEqualTo("UP");
		assertThat(health.at("/details/identity").asText()).isEqualTo(replica.identity());
		assertThat(health.at("/details/elections/default/role").asText()).isEqualTo(role);
		assertThat(health.at("/details/elections/default/holder").asText()).isEqualTo(holder);
		assertThat(replica.getJson("/actuator/health/liveness").at("/status").asText()).isEqualTo("UP");
		assertThat(replica.getJson("/actuator/health/readiness").at("/status").asText()).isEqualTo("UP");
	}

}
