package io.leaderelection.actuate.metrics;

import java.time.Clock;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations;
import io.leaderelection.autoconfigure.shedlock.ElectionLockCounts;
import io.leaderelection.autoconfigure.shedlock.ShedLockAutoConfiguration;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.MonotonicClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of leader election metrics, tagged by election.
 */
// After the meter registry's auto-configuration, which Boot 4 moved to spring-boot-micrometer-metrics.
@AutoConfiguration(after = { LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
		ShedLockAutoConfiguration.class }, afterName = {
		"org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
		"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean({ MeterRegistry.class, LeaderElector.class })
public class LeaderElectionMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeadershipMetrics leadershipMetrics(LeaderElector leaderElector) {
		return new LeadershipMetrics(leaderElector);
	}

	/**
	 * A listener of the engine, so it takes the election names from the settings: the engine
	 * itself is created with its listeners and cannot be injected here.
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ElectionEngine.class)
	ElectionEventMetrics electionEventMetrics(LeaderElectionSettings leaderElectionSettings) {
		// The engine runs on the system's monotonic clock (LeaderElectionThreads).
		return new ElectionEventMetrics(leaderElectionSettings.electionNames(), MonotonicClock.system(),
				Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LeaderOnlyInvocations.class)
	LeaderOnlyMetrics leaderOnlyMetrics(LeaderElector leaderElector, LeaderOnlyInvocations leaderOnlyInvocations) {
		return new LeaderOnlyMetrics(leaderElector, leaderOnlyInvocations);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ElectionLockCounts.class)
	ShedLockMetrics shedLockMetrics(ElectionLockCounts electionLockCounts) {
		return new ShedLockMetrics(electionLockCounts);
	}

}
