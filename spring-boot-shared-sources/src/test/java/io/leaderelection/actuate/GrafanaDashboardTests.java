package io.leaderelection.actuate;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Grafana dashboard in {@code docs/} queries the series a leader exposes, and every metric
 * of the contract.
 */
class GrafanaDashboardTests {

	private static final Path DASHBOARD = Path.of("..", "docs", "grafana-dashboard.json");

	private static final Pattern METRIC = Pattern.compile("\\bleader_[a-z_]+");

	@Test
	void queriesOnlySeriesThatALeaderExposes() throws IOException {
		Set<String> queried = new TreeSet<>();
		for (JsonNode expr : new ObjectMapper().readTree(DASHBOARD.toFile()).findValues("expr")) {
			Matcher metric = METRIC.matcher(expr.asText());
			while (metric.find()) {
				queried.add(metric.group());
			}
		}
		assertThat(queried).contains("leader_election_leader", "leader_election_transitions_total",
				"leader_election_renewals_seconds_count", "leader_only_invocations_total");

		try (CrudKubernetesServer server = CrudKubernetesServer.start();
				WebReplica leader = WebReplica.start("a", server.newClient(),
						Map.of("spring.application.name", "dashboard"))) {
			// Leading and renewed: every series of the dashboard has a value by then.
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(leader.get("/actuator/prometheus").getBody()).containsPattern(
						"leader_election_renewals_seconds_count\\{election=\"default\",outcome=\"success\"} [1-9]"));
			assertThat(exposedSeries(leader)).containsAll(queried);
		}
	}

	private static Set<String> exposedSeries(WebReplica replica) {
		Set<String> series = new TreeSet<>();
		for (String line : replica.get("/actuator/prometheus").getBody().split("\n")) {
			if (!line.startsWith("#") && !line.isBlank()) {
				series.add(line.split("[{ ]", 2)[0]);
			}
		}
		return series;
	}

}
