package io.leaderelection.migration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.FileSystemResource;

/**
 * The sample app's own configuration, read from its source tree beside this module
 * ({@value #FILE}), so that a test runs the sample's elections as they are: a default one,
 * {@code reports}, and {@code orders} in 8 shards.
 */
final class SampleAppConfiguration {

	static final String FILE = "../sample-app/src/main/resources/application.yml";

	/** The one property the migration step of docs/migration.md has a user set. */
	static final String MIGRATION_STEP = "leader.election.config-map-migration.enabled";

	private SampleAppConfiguration() {
	}

	/** The sample's application.yml, as Spring Boot loads it. */
	static List<PropertySource<?>> asIs() {
		try {
			return new YamlPropertySourceLoader().load("sample-app application.yml",
					new FileSystemResource(Path.of(FILE)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The sample app's configuration, " + FILE, ex);
		}
	}

	/** The sample's application.yml with the migration step set above it, as a Deployment sets it. */
	static List<PropertySource<?>> withMigrationStep() {
		List<PropertySource<?>> sources = new ArrayList<>();
		sources.add(new MapPropertySource("migration step", Map.of(MIGRATION_STEP, "true")));
		sources.addAll(asIs());
		return sources;
	}

}
