package io.leaderelection.controlplane;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.core.type.TypeReference;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The RBAC rules the docs give for each feature, read from the YAML the pages show, so that the
 * control-plane tests run every replica under exactly what a user would grant after reading them.
 * A rule missing there shows as a request the API server refuses.
 */
public enum DocumentedRoles {

	/** The Role every election on a renewed Lease needs: operations.md, RBAC. */
	LEASES("operations.md", "## RBAC", true),

	/** For-life's Role, which replaces that one: operations.md, RBAC for for-life. */
	FOR_LIFE("operations.md", "### RBAC for for-life", true),

	/** What sharded and balanced elections add: shards.md, Balanced spreading. */
	SHARDS("shards.md", "## Balanced spreading", false),

	/** What a migration from spring-cloud-kubernetes' ConfigMap leader adds: migration.md, RBAC. */
	MIGRATION("migration.md", "## RBAC", false),

	/** What leader-only routing adds: routing.md, RBAC. */
	ROUTING("routing.md", "## RBAC", false);

	private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

	private final String page;

	private final String heading;

	/** Whether the block is a Role (or its rules: part), rather than a list of rules to add. */
	private final boolean role;

	DocumentedRoles(String page, String heading, boolean role) {
		this.page = page;
		this.heading = heading;
		this.role = role;
	}

	/** The rules of the given features together, as one Role binds them. */
	public static List<PolicyRule> rules(DocumentedRoles... features) {
		List<PolicyRule> rules = new ArrayList<>();
		Arrays.stream(features).forEach((feature) -> rules.addAll(feature.rules()));
		return rules;
	}

	/** The rules this feature's section shows, in its first YAML block. */
	public List<PolicyRule> rules() {
		String yaml = firstYamlBlock();
		if (this.role) {
			return SERIALIZATION.unmarshal(yaml, Role.class).getRules();
		}
		return SERIALIZATION.unmarshal(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)),
				new TypeReference<List<PolicyRule>>() {
				});
	}

	private String firstYamlBlock() {
		Path file = ModuleFiles.of("../docs/" + this.page);
		List<String> lines;
		try {
			lines = Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		int level = this.heading.indexOf(' ');
		int at = lines.indexOf(this.heading);
		for (int i = at + 1; at >= 0 && i < lines.size(); i++) {
			String line = lines.get(i);
			if (line.startsWith("#") && line.indexOf(' ') <= level) {
				break;
			}
			if (line.equals("```yaml")) {
				StringBuilder block = new StringBuilder();
				for (int j = i + 1; j < lines.size() && !lines.get(j).equals("```"); j++) {
					block.append(lines.get(j)).append('\n');
				}
				return block.toString();
			}
		}
		throw new IllegalStateException("docs/" + this.page + " has no YAML block under '" + this.heading + "'");
	}

}
