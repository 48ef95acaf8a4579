package io.leaderelection.actuate.health;

import java.util.List;
import java.util.Locale;

import io.leaderelection.LeaderElector;
import io.leaderelection.actuate.health.BootHealthIndicator.ConditionalOnLeaderElectionHealth;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.permissions.LeaderElectionPermissions;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.kubernetes.KubernetesLeaseEvents;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code leaderElection} health contributor and of the
 * {@code leaderElectionLiveness} watchdog for the liveness group. Both are switched off with
 * {@code management.health.leader-election.enabled=false}.
 */
// Boot 4 moved the auto-configuration that registers health contributors; either one comes after.
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class,
		beforeName = { "org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration",
				"org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration" })
@ConditionalOnLeaderElectionHealth
@ConditionalOnBean(LeaderElector.class)
public class LeaderElectionHealthContributorAutoConfiguration {

	/**
	 * Judges the elections' health when the elector is the library's engine; another
	 * {@link LeaderElector} only has its elections shown.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "leaderElectionHealthIndicator")
	LeaderElectionHealthIndicator leaderElectionHealthIndicator(LeaderElector leaderElector,
			ObjectProvider<LeaderElectionProperties> properties, ObjectProvider<KubernetesLeaseEvents> events,
			ObjectProvider<LeaderElectionPermissions> permissions) {
		LeaderElectionProperties configured = properties.getIfAvailable();
		return new LeaderElectionHealthIndicator(leaderElector,
				(leaderElector instanceof ElectionEngine engine) ? engine::health : null,
				(configured != null) ? configured.effectiveMode().name().toLowerCase(Locale.ROOT).replace('_', '-') : null, () -> {
					KubernetesLeaseEvents recorder = events.getIfAvailable();
					return (recorder != null) ? recorder.problem() : null;
				}, () -> {
					LeaderElectionPermissions check = permissions.getIfAvailable();
					return (check != null) ? check.missing() : List.of();
				});
	}

	@Bean
	@ConditionalOnMissingBean(name = "leaderElectionLivenessHealthIndicator")
	@ConditionalOnBean(ElectionEngine.class)
	LeaderElectionLivenessHealthIndicator leaderElectionLivenessHealthIndicator(ElectionEngine leaderElector) {
		return new LeaderElectionLivenessHealthIndicator(leaderElector, leaderElector::health);
	}

}
