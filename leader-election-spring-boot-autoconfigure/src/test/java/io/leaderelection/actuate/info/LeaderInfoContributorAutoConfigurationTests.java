package io.leaderelection.actuate.info;

import io.leaderelection.LeaderElector;
import io.leaderelection.actuate.StaticLeaderElector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderInfoContributorAutoConfiguration}.
 */
class LeaderInfoContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaderInfoContributorAutoConfiguration.class))
		.withBean(LeaderElector.class, StaticLeaderElector::new);

	@Test
	void contributesByDefault() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(LeaderInfoContributor.class));
	}

	@Test
	void canBeSwitchedOff() {
		this.contextRunner.withPropertyValues("management.info.leader.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderInfoContributor.class));
	}

	@Test
	void backsOffWithoutAnElector() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeaderInfoContributorAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderInfoContributor.class));
	}

	@Test
	void backsOffWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(InfoContributor.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderInfoContributor.class));
	}

}
