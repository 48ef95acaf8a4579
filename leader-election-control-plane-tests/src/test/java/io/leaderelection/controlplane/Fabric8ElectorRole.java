package io.leaderelection.controlplane;

import java.util.ArrayList;
import java.util.List;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;

/**
 * What fabric8's {@code LeaderElector} needs on a real API server, for the harnesses that run it
 * beside this project's elector (the benchmarks, the chaos run): the Role of docs/operations.md,
 * whose {@code get} and {@code create} it uses, and {@code patch} on Leases, as its
 * {@code LeaseLock} writes every takeover, renewal and release as a JSON merge patch. With the
 * Role of the docs alone the server refuses each of those writes (403): the first replica leads
 * by creating the Lease, loses it at its renew deadline, and none leads again.
 */
public final class Fabric8ElectorRole {

	private Fabric8ElectorRole() {
	}

	public static List<PolicyRule> rules() {
		List<PolicyRule> rules = new ArrayList<>(DocumentedRoles.LEASES.rules());
		rules.add(new PolicyRuleBuilder().withApiGroups("coordination.k8s.io")
			.withResources("leases")
			.withVerbs("patch")
			.build());
		return rules;
	}

}
