package io.leaderelection.autoconfigure;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata generated from {@link LeaderElectionProperties}, which IDEs show
 * to users: every property of DESIGN's table, each with a one-line description.
 */
class ConfigurationMetadataTests {

	@Test
	void everyPropertyIsDescribed() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata").isNotNull();
			metadata = new ObjectMapper().readTree(in);
		}
		List<String> names = new ArrayList<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asText();
			names.add(name);
			assertThat(property.path("description").asText()).as("description of %s", name).isNotBlank();
		}
		assertThat(names).contains("leader.election.enabled", "leader.election.mode", "leader.election.lease-name",
				"leader.election.namespace", "leader.election.identity", "leader.election.lease-duration",
				"leader.election.renew-deadline", "leader.election.retry-period",
				"leader.election.release-on-shutdown", "leader.election.on-lost", "leader.election.elections");
	}

}
