package io.leaderelection.autoconfigure;

import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Turns spring-cloud-kubernetes' ConfigMap leader off by default: the starter depends on it for
 * the fabric8 client and Spring Integration only, and two electors must not campaign at once. A
 * user who sets {@code spring.cloud.kubernetes.leader.enabled} anywhere, including
 * {@link SpringApplication#setDefaultProperties default properties}, still wins.
 */
class SpringCloudKubernetesLeaderDefaults implements EnvironmentPostProcessor, Ordered {

	static final String PROPERTY_SOURCE_NAME = "leaderElectionDefaults";

	private static final String ENABLED = "spring.cloud.kubernetes.leader.enabled";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (environment.containsProperty(ENABLED)) {
			// Set by the user: leave it alone. Adding ours anyway would shadow a value in
			// SpringApplication's default properties, which it moves behind every other source.
			return;
		}
		environment.getPropertySources()
			.addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, Map.of(ENABLED, "false")));
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
