package io.leaderelection.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.engine.ElectionEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for {@link SpringCloudDefaults}: directly, and in applications started
 * with every auto-configuration on the test class path, whose {@code KubernetesClient} points at
 * fabric8's mock server so that nothing reaches out. Whether spring-cloud-kubernetes' leader then
 * starts is tested where it is on the class path (the Boot 3.5 line).
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringCloudDefaultsTests {

	private static final String ENABLED = "spring.cloud.kubernetes.leader.enabled";

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	// ---- the post-processor on its own

	@Test
	void turnsTheConfigMapLeaderOffAtLowestPrecedence() {
		StandardEnvironment environment = new StandardEnvironment();
		postProcess(environment);
		assertThat(environment.getProperty(ENABLED, Boolean.class)).isFalse();
		assertThat(environment.getPropertySources().stream().reduce((first, second) -> second).orElseThrow()
			.getName()).isEqualTo(SpringCloudDefaults.PROPERTY_SOURCE_NAME);
	}

	@Test
	void explicitValueInAnyOtherSourceWins() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addLast(new MapPropertySource("application", Map.of(ENABLED, "true")));
		postProcess(environment);
		assertThat(environment.getProperty(ENABLED, Boolean.class)).isTrue();
	}

	@Test
	void runsAfterConfigurationFilesAreLoaded() {
		assertThat(new SpringCloudDefaults().getOrder())
			.isGreaterThan(ConfigDataEnvironmentPostProcessor.ORDER);
	}

	static void postProcess(ConfigurableEnvironment environment) {
		new SpringCloudDefaults().postProcessEnvironment(environment, new SpringApplication());
	}

	// ---- in an application with the starter's dependencies

	@Test
	void configMapLeaderIsOffByDefault() {
		try (ConfigurableApplicationContext context = application("scl-default").run()) {
			assertThat(context.getEnvironment().getProperty(ENABLED, Boolean.class)).isFalse();
			assertThat(context.getBeansOfType(ElectionEngine.class)).hasSize(1);
		}
	}

	@Test
	void explicitTrueOnTheCommandLineWins() {
		try (ConfigurableApplicationContext context = application("scl-command-line")
			.run("--" + ENABLED + "=true", "--spring.cloud.kubernetes.leader.auto-startup=false")) {
			assertConfigMapLeaderEnabled(context);
		}
	}

	@Test
	void explicitTrueInAConfigurationFileWins(@TempDir Path config) throws IOException {
		Files.writeString(config.resolve("application.properties"),
				ENABLED + "=true\nspring.cloud.kubernetes.leader.auto-startup=false\n");
		try (ConfigurableApplicationContext context = application("scl-config-file")
			.run("--spring.config.additional-location=" + config.toUri())) {
			assertConfigMapLeaderEnabled(context);
		}
	}

	@Test
	void explicitTrueInDefaultPropertiesWins() {
		try (ConfigurableApplicationContext context = application("scl-default-properties")
			.properties(ENABLED + "=true", "spring.cloud.kubernetes.leader.auto-startup=false")
			.run()) {
			assertConfigMapLeaderEnabled(context);
		}
	}

	private static void assertConfigMapLeaderEnabled(ConfigurableApplicationContext context) {
		assertThat(context.getEnvironment().getProperty(ENABLED, Boolean.class)).isTrue();
	}

	// ---- the failure analyzer, registered the same way

	@Test
	void invalidPropertyIsReportedByTheFailureAnalyzer(CapturedOutput output) {
		assertThatException().isThrownBy(
				() -> application("scl-invalid").run("--leader.election.renew-deadline=20s").close());
		assertThat(output.toString()).contains("APPLICATION FAILED TO START")
			.containsPattern("(?s)Description:.*'leader\\.election\\.renew-deadline'.*"
					+ "Action:.*'leader\\.election\\.renew-deadline'");
	}

	private static SpringApplicationBuilder application(String name) {
		return application(name, server);
	}

	/** An application with every auto-configuration on the test class path, on the given server. */
	static SpringApplicationBuilder application(String name, CrudKubernetesServer server) {
		return new SpringApplicationBuilder(StarterApplication.class).web(WebApplicationType.NONE)
			.properties("spring.application.name=" + name, "spring.main.cloud-platform=none")
			// a singleton registered here is not closed with the context: the test class owns it
			.initializers((context) -> context.getBeanFactory().registerSingleton("crudKubernetesServer", server));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class StarterApplication {

		@Bean
		KubernetesClient kubernetesClient(CrudKubernetesServer server) {
			return server.newClient();
		}

	}

}
