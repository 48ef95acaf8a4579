package io.leaderelection.actuate.info;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;

import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link LeaderElectionInfoContributor}, switched off with
 * {@code management.info.leader.enabled=false}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnClass(InfoContributor.class)
@ConditionalOnBean(LeaderElector.class)
@ConditionalOnEnabledInfoContributor("leader")
public class LeaderElectionInfoContributorAutoConfiguration {

	/** Not named leaderInfoContributor: spring-cloud-kubernetes' ConfigMap leader defines that. */
	@Bean
	@ConditionalOnMissingBean
	LeaderElectionInfoContributor leaderElectionInfoContributor(LeaderElector leaderElector) {
		return new LeaderElectionInfoContributor(leaderElector);
	}

}
