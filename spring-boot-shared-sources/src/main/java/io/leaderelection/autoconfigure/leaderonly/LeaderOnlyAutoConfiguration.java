package io.leaderelection.autoconfigure.leaderonly;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of {@link io.leaderelection.LeaderOnly}: gated methods and lifecycle
 * beans, in-flight tracking and draining, and invocation counts.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnBean(LeaderElector.class)
public class LeaderOnlyAutoConfiguration {

	@Bean
	LeaderOnlyInvocations leaderOnlyInvocations() {
		return new LeaderOnlyInvocations();
	}

	@Bean
	LeaderOnlyRegistry leaderOnlyRegistry(LeaderOnlyInvocations leaderOnlyInvocations) {
		return new LeaderOnlyRegistry(leaderOnlyInvocations);
	}

	@Bean
	static LeaderOnlyPostProcessor leaderOnlyPostProcessor(ObjectProvider<LeaderElector> leaderElector,
			ObjectProvider<LeaderOnlyRegistry> leaderOnlyRegistry,
			ObjectProvider<LeaderOnlyInvocations> leaderOnlyInvocations, Environment environment) {
		LeaderOnlyPostProcessor postProcessor = new LeaderOnlyPostProcessor(leaderElector, leaderOnlyRegistry,
				leaderOnlyInvocations);
		postProcessor.setProxyTargetClass(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
		return postProcessor;
	}

}
