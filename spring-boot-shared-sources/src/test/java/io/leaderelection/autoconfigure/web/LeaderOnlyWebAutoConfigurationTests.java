package io.leaderelection.autoconfigure.web;

import java.util.List;

import io.leaderelection.LeaderElector;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderOnlyWebAutoConfiguration}: the web layer's part in the stack the
 * application runs, and none without a web application or without leader-only work.
 */
class LeaderOnlyWebAutoConfigurationTests {

	@Test
	void withoutAWebApplicationThereIsNoWebLayer() {
		withLeaderOnlyWork(new ApplicationContextRunner())
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LeaderOnlyHandlerInterceptor.class)
				.doesNotHaveBean(LeaderOnlyHandlerAdapter.class)
				.doesNotHaveBean(LeaderOnlyWebFilter.class));
	}

	@Test
	void aServletApplicationGetsTheInterceptorOnly() {
		withLeaderOnlyWork(new WebApplicationContextRunner())
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(LeaderOnlyHandlerInterceptor.class)
				.doesNotHaveBean(LeaderOnlyHandlerAdapter.class)
				.doesNotHaveBean(LeaderOnlyWebFilter.class));
	}

	@Test
	void aReactiveApplicationGetsTheAdapterAndTheFilterOnly() {
		withLeaderOnlyWork(new ReactiveWebApplicationContextRunner())
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(LeaderOnlyHandlerAdapter.class)
				.hasSingleBean(LeaderOnlyWebFilter.class)
				.doesNotHaveBean(LeaderOnlyHandlerInterceptor.class));
	}

	@Test
	void withoutLeaderOnlyWorkThereIsNoWebLayer() {
		new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeaderOnlyWebAutoConfiguration.class))
			.withBean(LeaderElector.class, StaticLeaderElector::new)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaderOnlyHandlerInterceptor.class));
	}

	private static <R extends AbstractApplicationContextRunner<R, ?, ?>> R withLeaderOnlyWork(R runner) {
		return runner.withConfiguration(AutoConfigurations.of(LeaderOnlyWebAutoConfiguration.class))
			.withBean(LeaderElector.class, StaticLeaderElector::new)
			.withBean(LeaderOnlyRegistry.class, () -> new LeaderOnlyRegistry(new LeaderOnlyInvocations()))
			.withBean(LeaderElectionSettings.class, () -> new LeaderElectionSettings("a", List.of(), true, null));
	}

}
