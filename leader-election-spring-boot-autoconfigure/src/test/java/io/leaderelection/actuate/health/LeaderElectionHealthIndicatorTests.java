package io.leaderelection.actuate.health;

import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.engine.ElectionHealth;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderElectionHealthIndicator} at the limits of its rules, on elections in
 * a given state; {@code LeaderElectionHealthApiFailureIntegrationTests} and
 * {@code LeaderElectionLivenessHealthIndicatorTests} run it on the real engine.
 */
class LeaderElectionHealthIndicatorTests {

	private static final Duration LEASE_DURATION = Duration.ofSeconds(15);

	private static final Duration RETRY_PERIOD = Duration.ofSeconds(2);

	private static final String FORBIDDEN = "get Lease team-a/orders-billing-leader: 403 Forbidden";

	private final StaticLeaderElector elector = new StaticLeaderElector();

	@Test
	void leaderAndFollowerAreUpWithTheirDetails() {
		Health health = healthWithBilling(healthy("billing"));

		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("identity", "me").doesNotContainKey("reason");
		assertThat(election(health, "default")).containsEntry("role", "leader")
			.containsEntry("lease", "team-a/orders-leader")
			.containsEntry("holder", "me")
			.containsEntry("acquireTime", StaticLeaderElector.ACQUIRED)
			.containsEntry("renewTime", StaticLeaderElector.ACQUIRED.plusSeconds(30))
			.containsEntry("transitions", 3)
			.containsEntry("fencingToken", 3L)
			.doesNotContainKeys("lastError", "failingFor");
		assertThat(election(health, "billing")).containsEntry("role", "follower")
			.containsEntry("holder", "other")
			.doesNotContainKey("fencingToken");
	}

	@Test
	void failingForALeaseDurationIsStillUp() {
		Health health = healthWithBilling(failing(LEASE_DURATION));

		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(election(health, "billing")).containsEntry("failingFor", "15s");
	}

	@Test
	void failingForLongerThanALeaseDurationIsDownNamingTheElectionTheVerbAndTheLease() {
		Health health = healthWithBilling(failing(LEASE_DURATION.plusMillis(1)));

		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("reason", "election 'billing': " + FORBIDDEN
				+ " (failing for 15.001s, longer than the lease duration of 15s)");
		assertThat(election(health, "billing")).containsEntry("failingFor", "15.001s");
	}

	@Test
	void aLoopThatStoppedIsDown() {
		Duration longestWait = LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2));
		assertThat(healthWithBilling(sinceLastAttempt(longestWait)).getStatus()).isEqualTo(Status.UP);

		Health health = healthWithBilling(sinceLastAttempt(longestWait.plusMillis(1)));

		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("reason",
				"election 'billing': its loop has not run for 19.001s");
	}

	@Test
	void anElectorThatDoesNotTellItsHealthIsUp() {
		Health health = new LeaderElectionHealthIndicator(this.elector, null).health();

		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(election(health, "default")).containsEntry("role", "leader").doesNotContainKey("failingFor");
	}

	private Health healthWithBilling(ElectionHealth billing) {
		Function<String, ElectionHealth> electionHealth = (election) -> "billing".equals(election) ? billing
				: healthy(election);
		return new LeaderElectionHealthIndicator(this.elector, electionHealth).health();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> election(Health health, String election) {
		return ((Map<String, Map<String, Object>>) health.getDetails().get("elections")).get(election);
	}

	private static ElectionHealth healthy(String election) {
		return new ElectionHealth(election, Duration.ZERO, Duration.ZERO, null, Duration.ofSeconds(1),
				LEASE_DURATION, RETRY_PERIOD, null, null, null);
	}

	private static ElectionHealth failing(Duration failingFor) {
		return new ElectionHealth("billing", Duration.ZERO, failingFor, FORBIDDEN, Duration.ofSeconds(1),
				LEASE_DURATION, RETRY_PERIOD, null, null, null);
	}

	private static ElectionHealth sinceLastAttempt(Duration sinceLastAttempt) {
		return new ElectionHealth("billing", Duration.ZERO, Duration.ZERO, null, sinceLastAttempt,
				LEASE_DURATION, RETRY_PERIOD, null, null, null);
	}

}
