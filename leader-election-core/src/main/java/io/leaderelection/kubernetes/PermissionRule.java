package io.leaderelection.kubernetes;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A rule of a Role (or, for a resource that is not namespaced, of a ClusterRole): verbs on a
 * resource of an API group.
 *
 * @param apiGroup the API group, {@code ""} for the core group
 * @param resource the resource, plural, e.g. {@code leases}
 * @param verbs the verbs, e.g. {@code get}
 * @param clusterWide whether the resource is not namespaced, so that only a ClusterRole grants it
 * @param withoutIt what the feature does without it, for an optional rule; {@code null} when the
 * feature cannot work without it
 */
public record PermissionRule(String apiGroup, String resource, List<String> verbs, boolean clusterWide,
		String withoutIt) {

	public PermissionRule {
		Objects.requireNonNull(apiGroup, "apiGroup");
		Objects.requireNonNull(resource, "resource");
		verbs = List.copyOf(verbs);
	}

	static PermissionRule required(String apiGroup, String resource, String... verbs) {
		return new PermissionRule(apiGroup, resource, List.of(verbs), false, null);
	}

	static PermissionRule optional(String apiGroup, String resource, String withoutIt, String... verbs) {
		return new PermissionRule(apiGroup, resource, List.of(verbs), false, Objects.requireNonNull(withoutIt));
	}

	static PermissionRule clusterWide(String apiGroup, String resource, String... verbs) {
		return new PermissionRule(apiGroup, resource, List.of(verbs), true, null);
	}

	/** Whether the feature works, worse, without it. */
	public boolean optional() {
		return this.withoutIt != null;
	}

	/** The rule as an entry of a Role's {@code rules}, in the block style of the docs. */
	public String yaml() {
		return "- apiGroups: [\"" + this.apiGroup + "\"]\n  resources: [\"" + this.resource + "\"]\n  verbs: "
				+ quoted(this.verbs) + "\n";
	}

	/** The rule as an entry of a Role's {@code rules} on one line. */
	public String yamlLine() {
		return "{apiGroups: [\"" + this.apiGroup + "\"], resources: [\"" + this.resource + "\"], verbs: "
				+ quoted(this.verbs) + "}";
	}

	private static String quoted(List<String> values) {
		return values.stream().map((value) -> "\"" + value + "\"").collect(Collectors.joining(", ", "[", "]"));
	}

}
