package io.leaderelection.test;

import java.util.List;
import java.util.Map;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/** The properties with which the test support elects in a context, whatever the application sets. */
final class TestElectionProperties {

	/**
	 * Above every property of the application: elect, in memory, even where the application
	 * switches election off, and never exit the test's JVM on a lost election.
	 */
	private static final Map<String, Object> ELECTING = Map.of("leader.election.enabled", "true",
			"leader.election.mode", "lease", "leader.election.on-lost", "rejoin");

	private static final String NAMESPACE = "leader.election.namespace";

	private static final List<String> TIMINGS = List.of("leader.election.lease-duration",
			"leader.election.renew-deadline", "leader.election.retry-period");

	private TestElectionProperties() {
	}

	/**
	 * Makes the context elect, with the given timings where the application sets none of its
	 * own: timings are valid only together, so some set by the application and some by the test
	 * support could make an impossible combination.
	 */
	static void apply(ConfigurableEnvironment environment, Map<String, Object> timings) {
		environment.getPropertySources().addFirst(new MapPropertySource("leaderElectionTest", ELECTING));
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
