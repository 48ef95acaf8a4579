package io.leaderelection.actuate.health;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.engine.ElectionHealth;
import io.leaderelection.kubernetes.ElectorFeature;
import io.leaderelection.kubernetes.Permission;
import org.junit.jupiter.api.Test;

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
		HealthVerdict health = healthWithBilling(healthy("billing"));

		assertThat(health.up()).isTrue();
		assertThat(health.details()).containsEntry("identity", "me").doesNotContainKey("reason");
		assertThat(election(health, "default")).containsEntry("role", "leader")
			.containsEntry("lease", "team-a/orders-leader")
			.containsEntry("holder", "me")
			.containsEntry("acquireTime", StaticLeaderElector.ACQUIRED)
			.containsEntry("renewTime", StaticLeaderElector.ACQUIRED.plusSeconds(30))
			.containsEntry("transitions", 3)
			.containsEntry("fencingToken", 3L)
			.containsEntry("mode", "lease")
			.doesNotContainKeys("lastError", "failingFor", "ownerPod");
		assertThat(election(health, "billing")).containsEntry("role", "follower")
			.containsEntry("holder", "other")
			.containsEntry("mode", "for-life")
			.containsEntry("ownerPod", StaticLeaderElector.OTHER_POD)
			.doesNotContainKey("fencingToken");
	}

	@Test
	void failingForALeaseDurationIsStillUp() {
		HealthVerdict health = healthWithBilling(failing(LEASE_DURATION));

		assertThat(health.up()).isTrue();
		assertThat(election(health, "billing")).containsEntry("failingFor", "15s");
	}

	@Test
	void failingForLongerThanALeaseDurationIsDownNamingTheElectionTheVerbAndTheLease() {
		HealthVerdict health = healthWithBilling(failing(LEASE_DURATION.plusMillis(1)));

		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("reason", "election 'billing': " + FORBIDDEN
				+ " (failing for 15.001s, longer than the lease duration of 15s)");
		assertThat(election(health, "billing")).containsEntry("failingFor", "15.001s");
	}

	@Test
	void aLoopThatStoppedIsDown() {
		Duration longestWait = LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2));
		assertThat(healthWithBilling(sinceLastAttempt(longestWait)).up()).isTrue();

		HealthVerdict health = healthWithBilling(sinceLastAttempt(longestWait.plusMillis(1)));

		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("reason",
				"election 'billing': its loop has not run for 19.001s");
	}

	@Test
	void anElectorThatDoesNotTellItsHealthIsUp() {
		HealthVerdict health = new LeaderElectionHealthIndicator(this.elector, null, null, () -> null, List::of).check();

		assertThat(health.up()).isTrue();
		assertThat(election(health, "default")).containsEntry("role", "leader").doesNotContainKey("failingFor");
	}

	@Test
	void eventsThatCannotBeRecordedAreShownWhileHealthStaysUp() {
		HealthVerdict health = new LeaderElectionHealthIndicator(this.elector, null, "lease",
				() -> "Cannot record Kubernetes Events on Lease team-a/orders-leader: 403 Forbidden", List::of).check();

		assertThat(health.up()).isTrue();
		assertThat(health.details()).containsEntry("events",
				"Cannot record Kubernetes Events on Lease team-a/orders-leader: 403 Forbidden");
	}

	@Test
	void aMissingPermissionTurnsHealthDownAndAMissingOptionalOneIsOnlyShown() {
		Permission update = new Permission("coordination.k8s.io", "leases", "update", "team-a",
				Set.of(ElectorFeature.LEASES), null);
		Permission watch = new Permission("coordination.k8s.io", "leases", "watch", "team-a",
				Set.of(ElectorFeature.LEASES), "followers read the Lease every retry period instead of watching it");
		HealthVerdict optionalOnly = new LeaderElectionHealthIndicator(this.elector, null, "lease", () -> null,
				() -> List.of(watch)).check();
		HealthVerdict health = new LeaderElectionHealthIndicator(this.elector, null, "lease", () -> null,
				() -> List.of(update, watch)).check();

		assertThat(optionalOnly.up()).isTrue();
		assertThat(optionalOnly.details()).containsEntry("missingPermissions", List.of("'watch' on 'leases' (API group "
				+ "coordination.k8s.io) in namespace 'team-a', needed by leader election (optional: followers read the "
				+ "Lease every retry period instead of watching it)"));
		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("reason", "missing permission: 'update' on 'leases' (API group "
				+ "coordination.k8s.io) in namespace 'team-a', needed by leader election");
		assertThat(health.details().get("missingPermissions")).asList().hasSize(2);
	}

	private HealthVerdict healthWithBilling(ElectionHealth billing) {
		Function<String, ElectionHealth> electionHealth = (election) -> "billing".equals(election) ? billing
				: healthy(election);
		return new LeaderElectionHealthIndicator(this.elector, electionHealth, "lease", () -> null, List::of).check();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> election(HealthVerdict health, String election) {
		return ((Map<String, Map<String, Object>>) health.details().get("elections")).get(election);
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
