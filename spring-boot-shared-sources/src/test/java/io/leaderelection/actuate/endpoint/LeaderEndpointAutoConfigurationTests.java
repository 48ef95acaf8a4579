package io.leaderelection.actuate.endpoint;

import io.leaderelection.LeaderElector;
import io.leaderelection.actuate.StaticLeaderElector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderEndpointAutoConfiguration}.
 */
class LeaderEndpointAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaderEndpointAutoConfiguration.class))
		.withBean(LeaderElector.class, StaticLeaderElector::new);

	@Test
	void exposedEndpointComesWithItsWebExtension() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=leader")
			.run((context) -> assertThat(context).hasSingleBean(LeaderEndpoint.class)
				.hasSingleBean(LeaderEndpointWebExtension.class));
	}

	@Test
	void endpointThatIsNotExposedIsNotCreated() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LeaderEndpoint.class)
			.doesNotHaveBean(LeaderEndpointWebExtension.class));
	}

	@Test
	void endpointWithoutAccessIsNotCreated() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=leader",
					"management.endpoint.leader.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderEndpoint.class));
	}

	@Test
	void backsOffWithoutALeaderElector() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeaderEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=leader")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderEndpoint.class));
	}

	@Test
	void backsOffWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=leader")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderEndpoint.class));
	}

	@Test
	void backsOffFromAUserDefinedEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=leader")
			.withBean("customLeaderEndpoint", LeaderEndpoint.class, () -> new LeaderEndpoint(new StaticLeaderElector()))
			.run((context) -> assertThat(context).hasSingleBean(LeaderEndpoint.class)
				.hasBean("customLeaderEndpoint")
				.hasSingleBean(LeaderEndpointWebExtension.class));
	}

}
