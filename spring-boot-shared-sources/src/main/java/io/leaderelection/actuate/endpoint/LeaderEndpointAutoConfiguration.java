package io.leaderelection.actuate.endpoint;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link LeaderEndpoint}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(LeaderElector.class)
public class LeaderEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	LeaderEndpoint leaderEndpoint(LeaderElector leaderElector) {
		return new LeaderEndpoint(leaderElector);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LeaderEndpoint.class)
	LeaderEndpointWebExtension leaderEndpointWebExtension(LeaderEndpoint leaderEndpoint) {
		return new LeaderEndpointWebExtension(leaderEndpoint);
	}

}
