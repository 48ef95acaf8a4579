package io.leaderelection.autoconfigure;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata generated from {@link LeaderElectionProperties}, which IDEs show
 * to users: every property of DESIGN's table, each with a one-line description.
 */
class ConfigurationMetadataTests {

	@Test
	void theValuesOfEveryEnumPropertyAreHintedWithADescription() throws Exception {
		Map<String, List<String>> hinted = new LinkedHashMap<>();
		for (JsonNode hint : metadata().get("hints")) {
			List<String> values = new ArrayList<>();
			for (JsonNode value : hint.get("values")) {
				assertThat(value.path("description").asText()).as("description of %s", value).isNotBlank();
				values.add(value.get("value").asText());
			}
			hinted.put(hint.get("name").asText(), values);
		}
		assertThat(hinted).containsEntry("leader.election.on-lost", List.of("rejoin", "exit"))
			.containsEntry("leader.election.mode", List.of("lease", "for-life", "standalone"))
			.containsEntry("leader.election.elections.values.mode", List.of("lease", "for-life"))
			.containsEntry("leader.election.elections.values.shards", List.of("1"))
			.containsEntry("leader.election.elections.values.balance", List.of("true", "false"))
			.containsEntry("leader.election.balance", List.of("false", "true"));
	}

	@Test
	void balanceIsOffByDefault() throws Exception {
		JsonNode balance = null;
		for (JsonNode property : metadata().get("properties")) {
			if (property.get("name").asText().equals("leader.election.balance")) {
				balance = property;
			}
		}
		assertThat(balance).as("leader.election.balance").isNotNull();
		assertThat(balance.get("defaultValue").asBoolean(true)).isFalse();
		assertThat(balance.get("description").asText()).contains("unsharded");
	}

	@Test
	void theTopLevelMigrationSaysItIsTheDefaultElectionsAndWhatANamedElectionInherits() throws Exception {
		Map<String, String> descriptions = new LinkedHashMap<>();
		for (JsonNode property : metadata().get("properties")) {
			descriptions.put(property.get("name").asText(), property.path("description").asText());
		}
		assertThat(descriptions.get("leader.election.config-map-migration.enabled")).contains(
				"for the default election only", "leader.election.elections.NAME.config-map-migration.enabled");
		assertThat(descriptions.get("leader.election.config-map-migration.role"))
			.contains("spring.cloud.kubernetes.leader.role", "to the election's name for a named one");
		assertThat(descriptions.get("leader.election.config-map-migration.config-map-name"))
			.contains("a named election's defaults to leader.election.config-map-migration.config-map-name");
	}

	@Test
	void everyLeaderElectionPropertyHasADefaultOrSaysWhatItDefaultsTo() throws Exception {
		for (JsonNode property : metadata().get("properties")) {
			String name = property.get("name").asText();
			if (name.startsWith("leader.election.") && !name.equals("leader.election.elections")) {
				assertThat(property.has("defaultValue") || property.path("description").asText().contains("Defaults to"))
					.as("default of %s", name)
					.isTrue();
			}
		}
	}

	@Test
	void theTimingDefaultsAreTheEnginesDefaults() throws Exception {
		Map<String, String> defaults = new LinkedHashMap<>();
		for (JsonNode property : metadata().get("properties")) {
			defaults.put(property.get("name").asText(), property.path("defaultValue").asText(null));
		}
		assertThat(defaults)
			.containsEntry("leader.election.lease-duration",
					InvalidLeaderElectionPropertyException.format(ElectionSettings.DEFAULT_LEASE_DURATION))
			.containsEntry("leader.election.renew-deadline",
					InvalidLeaderElectionPropertyException.format(ElectionSettings.DEFAULT_RENEW_DEADLINE))
			.containsEntry("leader.election.retry-period",
					InvalidLeaderElectionPropertyException.format(ElectionSettings.DEFAULT_RETRY_PERIOD));
	}

	private JsonNode metadata() throws Exception {
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata").isNotNull();
			return new ObjectMapper().readTree(in);
		}
	}

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
		assertThat(names).contains("leader.election.enabled", "leader.election.mode",
				"leader.election.for-life.not-ready-node-takeover", "leader.election.lease-name",
				"leader.election.namespace", "leader.election.identity", "leader.election.lease-duration",
				"leader.election.renew-deadline", "leader.election.retry-period",
				"leader.election.release-on-shutdown", "leader.election.on-lost", "leader.election.elections",
				"leader.election.balance", "leader.election.shedlock.election");
	}

}
