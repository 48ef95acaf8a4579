package io.leaderelection.autoconfigure.permissions;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.leaderelection.autoconfigure.LeaderElectionConfigurationException;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.kubernetes.ElectorFeature;
import io.leaderelection.kubernetes.Permission;
import io.leaderelection.kubernetes.PermissionRule;

/**
 * The API server said, at start, that this application's service account may not do what its
 * configured features need; reported with the Role rules to add.
 */
public class MissingLeaderElectionPermissionsException extends LeaderElectionConfigurationException {

	private final List<Permission> missing;

	/**
	 * @param missing the permissions denied, none of them optional
	 */
	public MissingLeaderElectionPermissionsException(List<Permission> missing) {
		super("Leader election lacks permissions: "
				+ missing.stream().map(Permission::describe).collect(Collectors.joining("; ")));
		this.missing = List.copyOf(missing);
	}

	/** The permissions denied. */
	public List<Permission> getMissing() {
		return this.missing;
	}

	@Override
	public String description() {
		return "Leader election cannot start: the Kubernetes API server says this application's service account may "
				+ "not do what the configured features need:\n" + this.missing.stream()
					.map((permission) -> "    - " + permission.describe())
					.collect(Collectors.joining("\n"));
	}

	@Override
	public String action() {
		StringBuilder action = new StringBuilder();
		Map<String, List<PermissionRule>> rules = Permission.rulesGranting(this.missing);
		rules.forEach((namespace, granting) -> {
			action.append((namespace != null)
					? "Add these rules to the Role bound to the application's ServiceAccount in namespace '" + namespace
							+ "':\n"
					: "Grant these cluster-wide, in a ClusterRole bound to the application's ServiceAccount by a "
							+ "ClusterRoleBinding:\n");
			action.append("\nrules:\n");
			granting.forEach((rule) -> action.append(rule.yaml().indent(2)));
			action.append('\n');
		});
		Set<String> docs = new LinkedHashSet<>();
		this.missing.forEach((permission) -> permission.neededBy().stream().map(ElectorFeature::docs).forEach(docs::add));
		action.append("See ")
			.append(String.join(", ", docs))
			.append(". Or set '")
			.append(LeaderElectionProperties.PREFIX)
			.append(".permission-check' to 'warn' to start without them, the health contributor DOWN.");
		return action.toString();
	}

}
