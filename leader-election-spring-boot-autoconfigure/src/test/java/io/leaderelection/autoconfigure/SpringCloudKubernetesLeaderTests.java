package io.leaderelection.autoconfigure;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.engine.ElectionEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.kubernetes.commons.leader.LeaderInitiator;
import org.springframework.cloud.kubernetes.fabric8.leader.Fabric8LeaderAutoConfiguration;
import org.springframework.cloud.kubernetes.fabric8.leader.Fabric8LeadershipController;
import org.springframework.integration.leader.Candidate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Boot 3.5 line depends on spring-cloud-kubernetes 3.3 for the fabric8 client and Spring
 * Integration: its ConfigMap leader must not start beside ours unless a user turns it on.
 */
class SpringCloudKubernetesLeaderTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(LeaderElectionAutoConfiguration.class, Fabric8LeaderAutoConfiguration.class))
		.withBean(KubernetesClient.class, () -> server.newClient());

	@Test
	void theConfigMapLeaderIsNotCreatedWithTheStartersDefaults() {
		this.contextRunner.withInitializer((context) -> new SpringCloudKubernetesLeaderDefaults()
			.postProcessEnvironment(context.getEnvironment(), new SpringApplication()))
			.run((context) -> assertThat(context).hasSingleBean(ElectionEngine.class)
				.doesNotHaveBean(LeaderInitiator.class)
				.doesNotHaveBean(Fabric8LeadershipController.class)
				.doesNotHaveBean(Candidate.class)
				.doesNotHaveBean(Fabric8LeaderAutoConfiguration.class));
	}

	@Test
	void theConfigMapLeaderIsCreatedWhenAUserTurnsItOn() {
		// Also the counterpart of the test above: without the starter's defaults, the ConfigMap
		// leader would come up beside ours (kept from starting here).
		this.contextRunner.withInitializer((context) -> new SpringCloudKubernetesLeaderDefaults()
			.postProcessEnvironment(context.getEnvironment(), new SpringApplication()))
			.withPropertyValues("spring.cloud.kubernetes.leader.enabled=true",
					"spring.cloud.kubernetes.leader.auto-startup=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(LeaderInitiator.class);
				assertThat(context.getBean(LeaderInitiator.class).isRunning()).isFalse();
			});
	}

}
