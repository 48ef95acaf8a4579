package io.leaderelection.autoconfigure.leaderonly;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.MonotonicClock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of {@link io.leaderelection.LeaderOnly}: gated methods and lifecycle
 * beans, in-flight tracking and draining, invocation counts, and the once-per-window runs of
 * {@code atMostEvery} methods and ShedLock's locks.
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

	/** Only on the starter's elector, which records the runs in its Leases. */
	@Bean
	@ConditionalOnBean(ElectionEngine.class)
	WindowedStarts windowedStarts(ElectionEngine leaderElector, LeaderOnlyRegistry leaderOnlyRegistry) {
		return new WindowedStarts(leaderElector, leaderOnlyRegistry);
	}

	@Bean
	@ConditionalOnBean(ElectionEngine.class)
	DueStarts dueStarts(WindowedStarts windowedStarts, LeaderOnlyRegistry leaderOnlyRegistry) {
		return new DueStarts(windowedStarts, leaderOnlyRegistry, MonotonicClock.system());
	}

	@Bean
	static LeaderOnlyPostProcessor leaderOnlyPostProcessor(ObjectProvider<LeaderElector> leaderElector,
			ObjectProvider<LeaderOnlyRegistry> leaderOnlyRegistry,
			ObjectProvider<LeaderOnlyInvocations> leaderOnlyInvocations,
			ObjectProvider<WindowedStarts> windowedStarts, ObjectProvider<DueStarts> dueStarts,
			Environment environment) {
		LeaderOnlyPostProcessor postProcessor = new LeaderOnlyPostProcessor(leaderElector, leaderOnlyRegistry,
				leaderOnlyInvocations, windowedStarts, dueStarts);
		postProcessor.setProxyTargetClass(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
		return postProcessor;
	}

}
