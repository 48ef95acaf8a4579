package io.leaderelection.actuate.health;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.BootLine;
import io.leaderelection.LeaderElector;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderElectionHealthContributorAutoConfiguration}.
 */
class LeaderElectionHealthContributorAutoConfigurationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
			.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START).withConfiguration(
			AutoConfigurations.of(LeaderElectionHealthContributorAutoConfiguration.class))
		.withConfiguration(BootLine.HEALTH);

	@Test
	void theEngineGetsTheHealthContributorAndTheLivenessWatchdog() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
			.withBean(KubernetesClient.class, () -> server.newClient())
			.withPropertyValues("spring.application.name=health-auto-configuration")
			.run((context) -> {
				assertThat(context).hasSingleBean(LeaderElectionHealthIndicator.class)
					.hasSingleBean(LeaderElectionLivenessHealthIndicator.class);
				assertThat(BootLine.healthContributor(context, "leaderElection"))
					.isSameAs(context.getBean(LeaderElectionHealthIndicator.class));
				assertThat(BootLine.healthContributor(context, "leaderElectionLiveness"))
					.isSameAs(context.getBean(LeaderElectionLivenessHealthIndicator.class));
			});
	}

	@Test
	void anotherElectorGetsTheHealthContributorOnly() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new).run((context) -> {
			assertThat(context).hasSingleBean(LeaderElectionHealthIndicator.class)
				.doesNotHaveBean(LeaderElectionLivenessHealthIndicator.class);
			assertThat(context.getBean(LeaderElectionHealthIndicator.class).health().getStatus().getCode())
				.isEqualTo("UP");
		});
	}

	@Test
	void canBeSwitchedOff() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new)
			.withPropertyValues("management.health.leader-election.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElectionHealthIndicator.class));
	}

	@Test
	void backsOffWithoutAnElector() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LeaderElectionHealthIndicator.class));
	}

	@Test
	void backsOffWithoutActuator() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new)
			.withClassLoader(new FilteredClassLoader(BootLine.HEALTH_INDICATOR))
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElectionHealthIndicator.class));
	}

	/**
	 * Without actuator a class literal in the composed condition could not be loaded, and Spring
	 * would drop that meta-annotation silently: the condition must name the class.
	 */
	@Test
	void theActuatorConditionNamesItsClassSoThatItHoldsWithoutActuator() {
		ConditionalOnClass onClass = BootHealthIndicator.ConditionalOnLeaderElectionHealth.class
			.getAnnotation(ConditionalOnClass.class);
		assertThat(onClass.value()).isEmpty();
		assertThat(onClass.name()).containsExactly(BootLine.HEALTH_INDICATOR.getName());
	}

	@Test
	void backsOffFromAUserDefinedContributor() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new)
			.withBean("leaderElectionHealthIndicator", Object.class, BootLine::userHealthIndicator)
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElectionHealthIndicator.class));
	}

}
