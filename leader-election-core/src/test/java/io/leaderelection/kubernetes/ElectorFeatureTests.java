package io.leaderelection.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of {@link ElectorFeature}s and their rules, what {@link Permission#neededBy} makes of
 * it, and the table against the YAML the docs give (the sample's Roles are checked against it in
 * the sample's {@code KubernetesManifestsTests}).
 */
class ElectorFeatureTests {

	private static final Path DOCS = Path.of("..");

	/**
	 * Rules the docs give that the check does not ask about: OpenShift's subresource, which every
	 * other cluster would deny for want of a rule that means nothing there.
	 */
	private static final Set<String> NOT_CHECKED = Set.of("discovery.k8s.io/endpointslices/restricted create");

	/** Features whose docs give their rules in words only; the sample's Role grants them. */
	private static final Set<ElectorFeature> WITHOUT_YAML_IN_THEIR_DOCS = EnumSet.of(ElectorFeature.BALANCE);

	private static final ElectionSettings ORDERS = new ElectionSettings("default", "team-a", "orders-leader",
			Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

	@Test
	void anElectionUsesTheFeaturesItsSettingsName() {
		assertThat(ElectorFeature.of(ORDERS)).containsExactly(ElectorFeature.LEASES);
		assertThat(ElectorFeature.of(ORDERS.balancedIn("orders-leader"))).containsExactly(ElectorFeature.LEASES,
				ElectorFeature.BALANCE);
		assertThat(ElectorFeature.of(ORDERS.forLife(new ElectionSettings.ForLife("orders-0", null))))
			.containsExactly(ElectorFeature.LEASES, ElectorFeature.FOR_LIFE);
		assertThat(ElectorFeature.of(ORDERS.forLife(new ElectionSettings.ForLife("orders-0", Duration.ofMinutes(1)))))
			.containsExactly(ElectorFeature.LEASES, ElectorFeature.FOR_LIFE, ElectorFeature.NOT_READY_NODE_TAKEOVER);
		assertThat(ElectorFeature.of(
				ORDERS.migratingFrom(new ElectionSettings.Migration("leaders", "leader.id.orders", "orders-0"))))
			.containsExactly(ElectorFeature.LEASES, ElectorFeature.CONFIG_MAP_MIGRATION);
	}

	@Test
	void eachVerbIsAskedOncePerNamespaceAndRequiredWhenAnyFeatureNeedsIt() {
		Map<String, Set<ElectorFeature>> features = new LinkedHashMap<>();
		features.put("team-a", EnumSet.of(ElectorFeature.LEASES, ElectorFeature.BALANCE, ElectorFeature.EVENTS));
		features.put("team-b", EnumSet.of(ElectorFeature.LEASES));

		List<Permission> needed = Permission.neededBy(features);

		assertThat(needed).extracting((permission) -> permission.namespace() + " " + permission.resource() + " "
				+ permission.verb() + (permission.optional() ? " (optional)" : ""))
			.containsExactly("team-a leases get", "team-a leases create", "team-a leases update", "team-a leases watch",
					"team-a events create (optional)", "team-a leases list", "team-a leases delete",
					"team-b leases get", "team-b leases create", "team-b leases update", "team-b leases watch (optional)");
		// the label watch of balanced groups cannot do without it, though followers of a Lease can
		assertThat(needed.get(3).neededBy()).containsExactly(ElectorFeature.LEASES, ElectorFeature.BALANCE);
		assertThat(needed.get(3).describe()).isEqualTo("'watch' on 'leases' (API group coordination.k8s.io) in "
				+ "namespace 'team-a', needed by leader election and balanced elections (elections.NAME.shards, "
				+ "leader.election.balance)");
		assertThat(needed.get(10).withoutIt())
			.isEqualTo("followers read the Lease every retry period instead of watching it");
	}

	@Test
	void aResourceThatIsNotNamespacedIsAskedOnceClusterWide() {
		Map<String, Set<ElectorFeature>> features = new LinkedHashMap<>();
		features.put("team-a", EnumSet.of(ElectorFeature.NOT_READY_NODE_TAKEOVER, ElectorFeature.FOR_LIFE,
				ElectorFeature.CONFIG_MAP_MIGRATION));
		features.put("team-b", EnumSet.of(ElectorFeature.NOT_READY_NODE_TAKEOVER));

		List<Permission> needed = Permission.neededBy(features);

		assertThat(needed).filteredOn((permission) -> permission.resource().equals("nodes"))
			.singleElement()
			.satisfies((nodes) -> {
				assertThat(nodes.namespace()).isNull();
				assertThat(nodes.describe()).isEqualTo("'get' on 'nodes' (core API group) cluster-wide, needed by "
						+ "leader.election.for-life.not-ready-node-takeover");
			});
		assertThat(needed).filteredOn((permission) -> permission.resource().equals("pods"))
			.singleElement()
			.satisfies((pods) -> assertThat(pods.neededBy()).containsExactly(ElectorFeature.FOR_LIFE,
					ElectorFeature.CONFIG_MAP_MIGRATION));
	}

	@Test
	void theRulesGrantingMissingPermissionsAreGroupedByNamespaceAndResource() {
		List<Permission> needed = Permission.neededBy(Map.of("team-a",
				EnumSet.of(ElectorFeature.LEASES, ElectorFeature.FOR_LIFE, ElectorFeature.NOT_READY_NODE_TAKEOVER)));
		List<Permission> missing = needed.stream()
			.filter((permission) -> Set.of("update", "delete").contains(permission.verb())
					|| !permission.resource().equals("leases"))
			.toList();

		Map<String, List<PermissionRule>> rules = Permission.rulesGranting(missing);

		assertThat(rules.keySet()).containsExactly("team-a", null);
		assertThat(rules.get("team-a")).extracting(PermissionRule::yaml)
			.containsExactly("- apiGroups: [\"coordination.k8s.io\"]\n  resources: [\"leases\"]\n  verbs: [\"update\", "
					+ "\"delete\"]\n", "- apiGroups: [\"\"]\n  resources: [\"pods\"]\n  verbs: [\"get\"]\n");
		assertThat(rules.get(null)).singleElement().satisfies((nodes) -> {
			assertThat(nodes.clusterWide()).isTrue();
			assertThat(nodes.yamlLine()).isEqualTo("{apiGroups: [\"\"], resources: [\"nodes\"], verbs: [\"get\"]}");
		});
	}

	/**
	 * Each feature's rules are in the YAML of the section of the docs it names, and every rule of
	 * the docs' YAML is in the table, so that neither can change without the other.
	 */
	@Test
	void theTableGrantsWhatTheDocsGive() throws IOException {
		Set<String> documented = new TreeSet<>();
		for (ElectorFeature feature : ElectorFeature.values()) {
			Set<String> section = granted(feature.docs());
			documented.addAll(section);
			if (!WITHOUT_YAML_IN_THEIR_DOCS.contains(feature)) {
				assertThat(section).as("the rules of %s in %s", feature, feature.docs())
					.containsAll(granted(feature.rules()));
			}
		}
		Set<String> table = new TreeSet<>();
		for (ElectorFeature feature : ElectorFeature.values()) {
			table.addAll(granted(feature.rules()));
		}
		documented.removeAll(NOT_CHECKED);
		assertThat(table).containsAll(documented);
	}

	/** Rules as {@code group/resource verb}, {@code (cluster-wide)} appended where a ClusterRole grants them. */
	private static Set<String> granted(List<PermissionRule> rules) {
		Set<String> granted = new TreeSet<>();
		for (PermissionRule rule : rules) {
			rule.verbs()
				.forEach((verb) -> granted.add(rule.apiGroup() + "/" + rule.resource() + " " + verb
						+ (rule.clusterWide() ? " (cluster-wide)" : "")));
		}
		return granted;
	}

	/** The rules the YAML blocks of a section of the docs grant, e.g. {@code docs/operations.md#rbac}. */
	private static Set<String> granted(String docs) throws IOException {
		String[] pageAndAnchor = docs.split("#");
		List<String> lines = Files.readAllLines(DOCS.resolve(pageAndAnchor[0]));
		List<PermissionRule> rules = new ArrayList<>();
		boolean inSection = pageAndAnchor.length == 1;
		boolean inBlock = false;
		boolean inYaml = false;
		StringBuilder yaml = new StringBuilder();
		for (String line : lines) {
			if (line.startsWith("```")) {
				if (inYaml) {
					rules.addAll(rules(yaml.toString()));
					yaml.setLength(0);
				}
				inBlock = !inBlock;
				inYaml = inBlock && inSection && line.equals("```yaml");
			}
			else if (inYaml) {
				yaml.append(line).append('\n');
			}
			else if (!inBlock && line.startsWith("#") && pageAndAnchor.length > 1) {
				inSection = slug(line).equals(pageAndAnchor[1]);
			}
		}
		return granted(rules);
	}

	/** The rules of a Role, of a ClusterRole, or a list of rules, in one YAML block of one or more documents. */
	private static List<PermissionRule> rules(String block) throws IOException {
		ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
		List<PermissionRule> rules = new ArrayList<>();
		for (JsonNode document : mapper.readerFor(JsonNode.class).readValues(block).readAll().stream()
			.map(JsonNode.class::cast)
			.toList()) {
			boolean clusterWide = "ClusterRole".equals(document.path("kind").asText());
			// a block that is a list of rules is read rule by rule
			Iterable<JsonNode> list = document.has("apiGroups") ? List.of(document) : document.path("rules");
			for (JsonNode rule : list) {
				List<String> verbs = new ArrayList<>();
				rule.path("verbs").forEach((verb) -> verbs.add(verb.asText()));
				for (JsonNode group : rule.path("apiGroups")) {
					for (JsonNode resource : rule.path("resources")) {
						rules.add(new PermissionRule(group.asText(), resource.asText(), verbs, clusterWide, null));
					}
				}
			}
		}
		return rules;
	}

	/** A heading's anchor, as GitHub makes it. */
	private static String slug(String heading) {
		return heading.replaceFirst("^#+\\s*", "")
			.toLowerCase(Locale.ROOT)
			.replaceAll("[^a-z0-9 -]", "")
			.replace(' ', '-');
	}

}
