package io.leaderelection.actuate.health;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.engine.ElectionEngine;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code leaderElection} health contributor and of the
 * {@code leaderElectionLiveness} watchdog for the liveness group. Both are switched off with
 * {@code management.health.leader-election.enabled=false}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class, before = HealthContributorAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LeaderElector.class)
@ConditionalOnEnabledHealthIndicator("leader-election")
public class LeaderElectionHealthContributorAutoConfiguration {

	/**
	 * Judges the elections' health when the elector is the library's engine; another
	 * {@link LeaderElector} only has its elections shown.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "leaderElectionHealthIndicator")
	LeaderElectionHealthIndicator leaderElectionHealthIndicator(LeaderElector leaderElector) {
		return new LeaderElectionHealthIndicator(leaderElector,
				(leaderElector instanceof ElectionEngine engine) ? engine::health : null);
	}

	@Bean
	@ConditionalOnMissingBean(name = "leaderElectionLivenessHealthIndicator")
	@ConditionalOnBean(ElectionEngine.class)
	LeaderElectionLivenessHealthIndicator leaderElectionLivenessHealthIndicator(ElectionEngine leaderElector) {
		return new LeaderElectionLivenessHealthIndicator(leaderElector, leaderElector::health);
	}

}
