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
 * Tests for {@link LeaderElectionInfoContributorAutoConfiguration}.
 */
class LeaderElectionInfoContributorAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaderElectionInfoContributorAutoConfiguration.class))
		.withBean(LeaderElector.class, StaticLeaderElector::new);

	@Test
	void contributesByDefault() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(LeaderElectionInfoContributor.class));
	}

	@Test
	void coexistsWithSpringCloudKubernetesLeaderInfoContributor() {
		// spring-cloud-kubernetes' ConfigMap leader, when switched on, defines 'leaderInfoContributor'.
		this.contextRunner.withBean("leaderInfoContributor", InfoContributor.class, () -> (builder) -> {
		}).run((context) -> assertThat(context).hasSingleBean(LeaderElectionInfoContributor.class));
	}

	@Test
	void canBeSwitchedOff() {
		this.contextRunner.withPropertyValues("management.info.leader.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElectionInfoContributor.class));
	}

	@Test
	void backsOffWithoutAnElector() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeaderElectionInfoContributorAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElectionInfoContributor.class));
	}

	@Test
	void backsOffWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(InfoContributor.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElectionInfoContributor.class));
	}

}
