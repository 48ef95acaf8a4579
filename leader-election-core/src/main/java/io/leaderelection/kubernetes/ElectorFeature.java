package io.leaderelection.kubernetes;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.leaderelection.engine.ElectionSettings;

/**
 * The features of the elector that call the Kubernetes API, each with the Role rules it needs:
 * the one table of the elector's permissions, as the docs give them (docs/operations.md: RBAC,
 * RBAC for for-life, Kubernetes Events; docs/shards.md; docs/migration.md; docs/routing.md).
 * Once-per-window starts ({@code @LeaderOnly(atMostEvery)}) and ShedLock's locks write only the
 * election's Lease, so they need nothing beyond {@link #LEASES}.
 * <p>
 * An optional rule is one the feature does without, worse: a missing one is a warning, never a
 * failed start. A feature is added here with its rules, and where the application's configuration
 * says it is on.
 */
public enum ElectorFeature {

	/** Every election on Kubernetes, in lease or for-life mode. */
	LEASES("leader election", "docs/operations.md#rbac",
			PermissionRule.required("coordination.k8s.io", "leases", "get", "create", "update"),
			PermissionRule.optional("coordination.k8s.io", "leases",
					"followers read the Lease every retry period instead of watching it", "watch")),

	/**
	 * Takeover on the kubelet's word that a holder's process ended
	 * ({@code leader.election.exit-takeover.enabled}), in the namespace of the replicas' Pods: the
	 * own Pod read once, the holder's Pod watched by followers.
	 */
	EXIT_TAKEOVER("takeover when a leader's process ends (leader.election.exit-takeover.enabled)",
			"docs/operations.md#rbac",
			PermissionRule.optional("", "pods",
					"followers wait out a crashed leader's Lease for its lease duration instead of taking it over "
							+ "once the kubelet reports its process ended",
					"get", "watch")),

	/** Kubernetes Events on the Leases ({@code leader.election.events.enabled}). */
	EVENTS("Kubernetes Events on the Leases (leader.election.events.enabled)", "docs/operations.md#rbac",
			PermissionRule.optional("", "events", "the elector records no Events", "create")),

	/**
	 * Shards and {@code balance}: the member Leases, followed with a label watch (which lists
	 * first), those of replicas gone deleted.
	 */
	BALANCE("balanced elections (elections.NAME.shards, leader.election.balance)", "docs/shards.md",
			PermissionRule.required("coordination.k8s.io", "leases", "list", "watch", "delete")),

	/** for-life mode: its own Pod read at start and the owner's Pod as follower; locks deleted. */
	FOR_LIFE("for-life mode", "docs/operations.md#rbac-for-for-life",
			PermissionRule.required("coordination.k8s.io", "leases", "delete"),
			PermissionRule.required("", "pods", "get")),

	/** for-life's opt-in takeover from a Pod on a NotReady Node: Nodes are not namespaced. */
	NOT_READY_NODE_TAKEOVER("leader.election.for-life.not-ready-node-takeover",
			"docs/operations.md#rbac-for-for-life", PermissionRule.clusterWide("", "nodes", "get")),

	/** Migration from spring-cloud-kubernetes' ConfigMap leader: its key, and its own Pod's readiness. */
	CONFIG_MAP_MIGRATION("config-map-migration", "docs/migration.md#rbac",
			PermissionRule.required("", "configmaps", "get", "create", "update"),
			PermissionRule.required("", "pods", "get")),

	/**
	 * The leader-only Service's EndpointSlice ({@code routing.service}). The Service is read at start
	 * only to check it. OpenShift's {@code endpointslices/restricted} is not checked: every other
	 * cluster would deny it for want of a rule that means nothing there.
	 */
	ROUTING_SERVICE("leader-only Service (routing.service)", "docs/routing.md#rbac",
			PermissionRule.required("discovery.k8s.io", "endpointslices", "get", "create", "update"),
			PermissionRule.optional("", "services", "the Service is not checked at start", "get")),

	/** The label telling whether a replica's own Pod leads ({@code routing.pod-label}). */
	ROUTING_POD_LABEL("Pod label (routing.pod-label)", "docs/routing.md#rbac",
			PermissionRule.required("", "pods", "patch"));

	private final String description;

	private final String docs;

	private final List<PermissionRule> rules;

	ElectorFeature(String description, String docs, PermissionRule... rules) {
		this.description = description;
		this.docs = docs;
		this.rules = List.of(rules);
	}

	/** The feature as the configuration names it, e.g. {@code for-life mode}. */
	public String description() {
		return this.description;
	}

	/** Where the docs give its rules, e.g. {@code docs/operations.md#rbac}. */
	public String docs() {
		return this.docs;
	}

	/** The Role rules it needs. */
	public List<PermissionRule> rules() {
		return this.rules;
	}

	/**
	 * The features an election uses by its settings alone; the application adds those its other
	 * configuration turns on (Events, routing).
	 */
	public static Set<ElectorFeature> of(ElectionSettings election) {
		Set<ElectorFeature> features = EnumSet.of(LEASES);
		if (election.balanceGroup() != null) {
			features.add(BALANCE);
		}
		if (election.forLife() != null) {
			features.add(FOR_LIFE);
			if (election.forLife().notReadyNodeTakeover() != null) {
				features.add(NOT_READY_NODE_TAKEOVER);
			}
		}
		if (election.migration() != null) {
			features.add(CONFIG_MAP_MIGRATION);
		}
		return features;
	}

}
