package io.leaderelection.autoconfigure;

import java.util.Map;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.engine.ElectionEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.DefaultPropertiesPropertySource;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.kubernetes.commons.leader.LeaderInitiator;
import org.springframework.cloud.kubernetes.fabric8.leader.Fabric8LeaderAutoConfiguration;
import org.springframework.cloud.kubernetes.fabric8.leader.Fabric8LeadershipController;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.integration.leader.Candidate;

import static io.leaderelection.autoconfigure.SpringCloudDefaultsTests.application;
import static io.leaderelection.autoconfigure.SpringCloudDefaultsTests.postProcess;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Boot 3.5 line depends on spring-cloud-kubernetes 3.3 for the fabric8 client and Spring
 * Integration: its ConfigMap leader must not start beside ours unless a user turns it on.
 * {@link SpringCloudDefaultsTests}, which both lines run, checks the property.
 */
class SpringCloudKubernetesLeaderTests {

	private static final String ENABLED = "spring.cloud.kubernetes.leader.enabled";

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(
				AutoConfigurations.of(LeaderElectionAutoConfiguration.class, Fabric8LeaderAutoConfiguration.class))
		.withBean(KubernetesClient.class, () -> server.newClient());

	private final ApplicationContextRunner withStarterDefaults = this.contextRunner
		.withInitializer((context) -> postProcess(context.getEnvironment()));

	@Test
	void theConfigMapLeaderIsNotCreatedWithTheStartersDefaults() {
		this.withStarterDefaults.run((context) -> assertThat(context).hasSingleBean(ElectionEngine.class)
			.doesNotHaveBean(LeaderInitiator.class)
			.doesNotHaveBean(Fabric8LeaderAutoConfiguration.class));
	}

	@Test
	void theConfigMapLeaderIsCreatedWithoutTheStartersDefaults() {
		// The counterpart of the test above: without the starter's defaults, the ConfigMap
		// leader would come up beside ours (kept from starting here).
		this.contextRunner.withPropertyValues("spring.cloud.kubernetes.leader.auto-startup=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(LeaderInitiator.class);
				assertThat(context.getBean(LeaderInitiator.class).isRunning()).isFalse();
			});
	}

	@Test
	void theConfigMapLeaderIsCreatedWhenAUserTurnsItOn() {
		this.withStarterDefaults
			.withPropertyValues(ENABLED + "=true", "spring.cloud.kubernetes.leader.auto-startup=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(LeaderInitiator.class);
				assertThat(context.getBean(LeaderInitiator.class).isRunning()).isFalse();
			});
	}

	@Test
	void explicitValueInDefaultPropertiesWins() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addLast(new DefaultPropertiesPropertySource(Map.of(ENABLED, "true")));
		postProcess(environment);
		// as SpringApplication does once every post-processor has run
		DefaultPropertiesPropertySource.moveToEnd(environment);
		assertThat(environment.getProperty(ENABLED, Boolean.class)).isTrue();
	}

	// ---- in an application with every auto-configuration on the starter's class path

	@Test
	void configMapLeaderIsOffByDefault() {
		try (ConfigurableApplicationContext context = application("scl-default", server).run()) {
			assertThat(context.getBeansOfType(LeaderInitiator.class)).isEmpty();
			assertThat(context.getBeansOfType(Fabric8LeadershipController.class)).isEmpty();
			assertThat(context.getBeansOfType(Candidate.class)).isEmpty();
			assertThat(context.getBeansOfType(Fabric8LeaderAutoConfiguration.class)).isEmpty();
			assertThat(context.getBeansOfType(ElectionEngine.class)).hasSize(1);
		}
	}

	@Test
	void theUnusedHealthContributorsOfSpringCloudAreOffByDefault() {
		try (ConfigurableApplicationContext context = application("scl-health", server).run()) {
			HealthContributorRegistry health = context.getBean(HealthContributorRegistry.class);
			assertThat(health.getContributor("leaderElection")).isNotNull();
			assertThat(health.getContributor("discoveryComposite")).isNull();
			assertThat(health.getContributor("refreshScope")).isNull();
		}
	}

	@Test
	void aUserTurnsTheHealthContributorsOfSpringCloudBackOn() {
		try (ConfigurableApplicationContext context = application("scl-health-on", server).run(
				"--spring.cloud.discovery.client.composite-indicator.enabled=true",
				"--management.health.refresh.enabled=true")) {
			HealthContributorRegistry health = context.getBean(HealthContributorRegistry.class);
			assertThat(health.getContributor("discoveryComposite")).isNotNull();
			assertThat(health.getContributor("refreshScope")).isNotNull();
		}
	}

	@Test
	void explicitTrueOnTheCommandLineCreatesIt() {
		try (ConfigurableApplicationContext context = application("scl-command-line", server)
			.run("--" + ENABLED + "=true", "--spring.cloud.kubernetes.leader.auto-startup=false")) {
			assertThat(context.getBeansOfType(LeaderInitiator.class)).hasSize(1);
			assertThat(context.getBean(LeaderInitiator.class).isRunning()).isFalse();
		}
	}

}
