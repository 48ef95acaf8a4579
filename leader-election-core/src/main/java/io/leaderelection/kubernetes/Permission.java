package io.leaderelection.kubernetes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One verb on one resource in one namespace that features of the elector need: what one
 * SelfSubjectAccessReview asks.
 *
 * @param apiGroup the API group, {@code ""} for the core group
 * @param resource the resource, e.g. {@code leases}
 * @param verb the verb, e.g. {@code update}
 * @param namespace the namespace; {@code null} for a resource that is not namespaced
 * @param neededBy the features that need it, in the order of {@link ElectorFeature}'s table
 * @param withoutIt what those features do without it when all of them do without it; {@code null}
 * when one of them cannot
 */
public record Permission(String apiGroup, String resource, String verb, String namespace,
		Set<ElectorFeature> neededBy, String withoutIt) {

	public Permission {
		Objects.requireNonNull(apiGroup, "apiGroup");
		Objects.requireNonNull(resource, "resource");
		Objects.requireNonNull(verb, "verb");
		neededBy = Collections.unmodifiableSet(EnumSet.copyOf(neededBy));
	}

	/**
	 * What the given features need, each verb once per namespace (once in all for a resource that
	 * is not namespaced), in the order of the namespaces, then of {@link ElectorFeature}'s table.
	 * A verb is optional only when every feature that needs it does without it.
	 * @param featuresByNamespace the features used in each namespace
	 */
	public static List<Permission> neededBy(Map<String, ? extends Collection<ElectorFeature>> featuresByNamespace) {
		Map<List<String>, Permission> needed = new LinkedHashMap<>();
		featuresByNamespace.forEach((namespace, features) -> {
			for (ElectorFeature feature : ElectorFeature.values()) {
				if (!features.contains(feature)) {
					continue;
				}
				for (PermissionRule rule : feature.rules()) {
					String where = rule.clusterWide() ? null : namespace;
					for (String verb : rule.verbs()) {
						Permission permission = new Permission(rule.apiGroup(), rule.resource(), verb, where,
								EnumSet.of(feature), rule.withoutIt());
						needed.merge(Arrays.asList(rule.apiGroup(), rule.resource(), verb, where), permission,
								Permission::and);
					}
				}
			}
		});
		return List.copyOf(needed.values());
	}

	/** The rules that grant the given permissions, by namespace ({@code null} for cluster-wide ones). */
	public static Map<String, List<PermissionRule>> rulesGranting(Collection<Permission> permissions) {
		Map<String, Map<List<String>, List<String>>> verbs = new LinkedHashMap<>();
		for (Permission permission : permissions) {
			verbs.computeIfAbsent(permission.namespace(), (namespace) -> new LinkedHashMap<>())
				.computeIfAbsent(List.of(permission.apiGroup(), permission.resource()), (resource) -> new ArrayList<>())
				.add(permission.verb());
		}
		Map<String, List<PermissionRule>> rules = new LinkedHashMap<>();
		verbs.forEach((namespace, byResource) -> rules.put(namespace, byResource.entrySet()
			.stream()
			.map((entry) -> new PermissionRule(entry.getKey().get(0), entry.getKey().get(1), entry.getValue(),
					namespace == null, null))
			.toList()));
		return rules;
	}

	/** Whether every feature that needs it does without it, worse. */
	public boolean optional() {
		return this.withoutIt != null;
	}

	/** The rule that grants it alone. */
	public PermissionRule rule() {
		return new PermissionRule(this.apiGroup, this.resource, List.of(this.verb), this.namespace == null,
				this.withoutIt);
	}

	/**
	 * E.g. {@code 'get' on 'pods' (core API group) in namespace 'team-a', needed by for-life mode}.
	 */
	public String describe() {
		return "'" + this.verb + "' on '" + this.resource + "' ("
				+ (this.apiGroup.isEmpty() ? "core API group" : "API group " + this.apiGroup) + ") "
				+ ((this.namespace != null) ? "in namespace '" + this.namespace + "'" : "cluster-wide")
				+ ", needed by "
				+ this.neededBy.stream().map(ElectorFeature::description).collect(Collectors.joining(" and "));
	}

	private Permission and(Permission other) {
		Set<ElectorFeature> features = EnumSet.copyOf(this.neededBy);
		features.addAll(other.neededBy);
		String withoutBoth = null;
		if (optional() && other.optional()) {
			Set<String> consequences = new LinkedHashSet<>(List.of(this.withoutIt, other.withoutIt));
			withoutBoth = String.join("; ", consequences);
		}
		return new Permission(this.apiGroup, this.resource, this.verb, this.namespace, features, withoutBoth);
	}

}
