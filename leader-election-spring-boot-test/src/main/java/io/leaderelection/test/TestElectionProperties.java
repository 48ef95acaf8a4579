package io.leaderelection.test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/** The properties with which the test support elects in a context, whatever the application sets. */
final class TestElectionProperties {

	/**
	 * Above every property of the application: elect, in memory, even where the application
	 * switches election off or runs an election for-life, and never exit the test's JVM on a lost
	 * election.
	 */
	private static final Map<String, Object> ELECTING = Map.of("leader.election.enabled", "true",
			"leader.election.mode", "lease", "leader.election.on-lost", "rejoin");

	private static final String NAMESPACE = "leader.election.namespace";

	private static final List<String> TIMINGS = List.of("leader.election.lease-duration",
			"leader.election.renew-deadline", "leader.election.retry-period", "leader.election.renew-period");

	private static final ConfigurationPropertyName ELECTIONS = ConfigurationPropertyName.of("leader.election.elections");

	private TestElectionProperties() {
	}

	/** The {@code leader.election.elections.NAME.mode} properties the application sets, in any spelling. */
	private static Set<String> electionModes(ConfigurableEnvironment environment) {
		Set<String> modes = new TreeSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream()
					.filter((name) -> ELECTIONS.isAncestorOf(name) && name.getNumberOfElements() == 5
							&& "mode".equals(name.getLastElement(ConfigurationPropertyName.Form.UNIFORM)))
					.forEach((name) -> modes.add(name.toString()));
			}
		}
		return modes;
	}

	/**
	 * Makes the context elect, with the given timings where the application sets none of its
	 * own: timings are valid only together, so some set by the application and some by the test
	 * support could make an impossible combination.
	 */
	static void apply(ConfigurableEnvironment environment, Map<String, Object> timings) {
		Map<String, Object> electing = new HashMap<>(ELECTING);
		electionModes(environment).forEach((mode) -> electing.put(mode, "lease"));
		environment.getPropertySources().addFirst(new MapPropertySource("leaderElectionTest", electing));
		if (TIMINGS.stream().noneMatch(environment::containsProperty)) {
			environment.getPropertySources().addLast(new MapPropertySource("leaderElectionTestTimings", timings));
		}
		if (!environment.containsProperty(NAMESPACE)) {
			// named, so that no Kubernetes client is built only to read a namespace from its configuration
			environment.getPropertySources().addLast(new MapPropertySource("leaderElectionTestNamespace",
					Map.of(NAMESPACE, "default")));
		}
	}

}
