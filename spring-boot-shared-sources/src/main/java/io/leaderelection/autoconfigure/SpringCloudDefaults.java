package io.leaderelection.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Turns off, by default, what the starter's dependency on spring-cloud-kubernetes brings that it
 * does not use: spring-cloud-kubernetes' ConfigMap leader (two electors must not campaign at
 * once), spring-cloud-commons' {@code discoveryComposite} health contributor (UNKNOWN, "Discovery
 * Client not initialized", in an application that does not use discovery) and
 * spring-cloud-context's {@code refreshScope} health contributor. The starter depends on it for
 * the fabric8 client and Spring Integration only. A user who sets any of these properties
 * anywhere, including {@link SpringApplication#setDefaultProperties default properties}, still
 * wins.
 */
class SpringCloudDefaults implements EnvironmentPostProcessor, Ordered {

	static final String PROPERTY_SOURCE_NAME = "leaderElectionDefaults";

	/** Each property and the value it takes unless the user sets it. */
	static final Map<String, Object> DEFAULTS = Map.of("spring.cloud.kubernetes.leader.enabled", "false",
			"spring.cloud.discovery.client.composite-indicator.enabled", "false", "management.health.refresh.enabled",
			"false");

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		// Only what the user did not set: adding ours anyway would shadow a value in
		// SpringApplication's default properties, which it moves behind every other source.
		Map<String, Object> unset = new LinkedHashMap<>();
		DEFAULTS.forEach((name, value) -> {
			if (!environment.containsProperty(name)) {
				unset.put(name, value);
			}
		});
		if (!unset.isEmpty()) {
			environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, unset));
		}
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
