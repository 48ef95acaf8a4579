package io.leaderelection.controlplane;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.leaderelection.autoconfigure.permissions.MissingLeaderElectionPermissionsException;
import io.leaderelection.kubernetes.Permission;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.tuple;

/**
 * {@code leader.election.permission-check} on the real API server, whose RBAC answers the
 * SelfSubjectAccessReviews: for each feature, a Role with every rule the docs give for it but one
 * fails the start naming that verb and resource; the Roles of the docs pass; {@code warn} starts
 * and turns the health DOWN; a missing optional rule only warns.
 */
class PermissionCheckTests {

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final List<SpringReplica> replicas = new ArrayList<>();

	private TestNamespace namespace;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("permissions");
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(SpringReplica::close);
		this.namespace.close();
	}

	static Stream<Arguments> featuresEachWithOneRuleMissing() {
		return Stream.of(
				Arguments.of("leader election", List.of(DocumentedRoles.LEASES), Map.of(), "leases", "update"),
				Arguments.of("for-life mode", List.of(DocumentedRoles.FOR_LIFE),
						// a named election: shedlock-spring is on this class path, and ShedLock's election may not run for life
						Map.of("leader.election.elections.lock.mode", "for-life", "POD_NAME", "replica-pod"), "pods",
						"get"),
				Arguments.of("balanced elections", List.of(DocumentedRoles.LEASES, DocumentedRoles.SHARDS),
						Map.of("leader.election.elections.orders.shards", "2"), "leases", "list"),
				Arguments.of("config-map-migration", List.of(DocumentedRoles.LEASES, DocumentedRoles.MIGRATION),
						Map.of("leader.election.config-map-migration.enabled", "true", "POD_NAME", "replica-pod"),
						"configmaps", "update"),
				Arguments.of("leader-only Service", List.of(DocumentedRoles.LEASES, DocumentedRoles.ROUTING),
						routing(), "endpointslices", "create"));
	}

	@ParameterizedTest(name = "{0} without {4} on {3}")
	@MethodSource("featuresEachWithOneRuleMissing")
	void aRoleWithoutOneRuleOfAFeatureFailsTheStartNamingIt(String feature, List<DocumentedRoles> documented,
			Map<String, Object> properties, String resource, String verb) {
		TestNamespace.ServiceAccount account = this.namespace.serviceAccount("lacking",
				without(DocumentedRoles.rules(documented.toArray(DocumentedRoles[]::new)), resource, verb));
		assertThatThrownBy(() -> start(account, properties)).satisfies((failure) -> {
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(failure);
			if (!(cause instanceof MissingLeaderElectionPermissionsException missing)) {
				fail("expected the start to fail for want of permissions, but: " + failure);
				return;
			}
			assertThat(missing.getMissing()).extracting(Permission::verb, Permission::resource)
				.containsExactly(tuple(verb, resource));
			assertThat(missing.description()).contains("'" + verb + "' on '" + resource + "'",
					"in namespace '" + this.namespace.name() + "'", "needed by " + feature);
			assertThat(missing.action()).contains("resources: [\"" + resource + "\"]", "\"" + verb + "\"");
		});
		this.namespace.assertNothingRefused();
	}

	@Test
	void theRolesOfTheDocsPassTheCheckWithEveryFeatureOn() {
		TestNamespace.ServiceAccount account = this.namespace.serviceAccount("documented",
				DocumentedRoles.rules(DocumentedRoles.LEASES, DocumentedRoles.SHARDS, DocumentedRoles.MIGRATION,
						DocumentedRoles.ROUTING));
		Map<String, Object> everyFeature = new HashMap<>(routing());
		everyFeature.put("leader.election.elections.orders.shards", "2");
		everyFeature.put("leader.election.config-map-migration.enabled", "true");
		SpringReplica replica = start(account, everyFeature);
		assertThat(health(replica).getStatus()).isEqualTo(Status.UP);
		this.namespace.assertNothingRefused();
	}

	@Test
	void warnStartsWithAPermissionMissingAndTurnsTheHealthDown() {
		TestNamespace.ServiceAccount account = this.namespace.serviceAccount("lacking",
				without(DocumentedRoles.rules(DocumentedRoles.LEASES), "leases", "create"));
		SpringReplica replica = start(account, Map.of("leader.election.permission-check", "warn"));
		HealthComponent health = health(replica);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.toString()).contains("missingPermissions", "'create' on 'leases'");
	}

	@Test
	void aMissingOptionalRuleOnlyWarns() {
		TestNamespace.ServiceAccount account = this.namespace.serviceAccount("without-events",
				without(DocumentedRoles.rules(DocumentedRoles.LEASES), "events", "create"));
		SpringReplica replica = start(account, Map.of());
		assertThat(health(replica).getStatus()).isEqualTo(Status.UP);
	}

	/** The leader-only Service of the default election; no web server runs here to give its port. */
	private static Map<String, Object> routing() {
		return Map.of("leader.election.routing.service", "orders-leader", "leader.election.routing.address",
				"10.244.0.5", "leader.election.routing.ports.http", "8080", "POD_NAME", "replica-pod");
	}

	private SpringReplica start(TestNamespace.ServiceAccount account, Map<String, Object> properties) {
		if (properties.containsKey("leader.election.routing.service")) {
			this.controlPlane.admin()
				.services()
				.inNamespace(this.namespace.name())
				.resource(new ServiceBuilder().withNewMetadata()
					.withName("orders-leader")
					.endMetadata()
					.withNewSpec()
					.addNewPort()
					.withName("http")
					.withPort(80)
					.endPort()
					.endSpec()
					.build())
				.create();
		}
		if (properties.containsKey("POD_NAME")) {
			new KubeletPods(this.controlPlane.admin(), this.namespace.name(), account.name())
				.running((String) properties.get("POD_NAME"));
		}
		Map<String, Object> all = new HashMap<>(properties);
		all.put("management.endpoint.health.show-details", "always");
		SpringReplica replica = SpringReplica.start("replica", account.config(this.controlPlane.apiServer()),
				this.namespace.name(), all, List.of());
		this.replicas.add(replica);
		return replica;
	}

	private static HealthComponent health(SpringReplica replica) {
		return replica.bean(HealthEndpoint.class).healthForPath("leaderElection");
	}

	/** The rules, with the verb taken from the rules on the resource. */
	private static List<PolicyRule> without(List<PolicyRule> rules, String resource, String verb) {
		List<PolicyRule> kept = new ArrayList<>();
		for (PolicyRule rule : rules) {
			if (rule.getResources().contains(resource)) {
				List<String> verbs = new ArrayList<>(rule.getVerbs());
				verbs.remove(verb);
				if (!verbs.isEmpty()) {
					kept.add(new PolicyRuleBuilder(rule).withVerbs(verbs).build());
				}
			}
			else {
				kept.add(rule);
			}
		}
		assertThat(kept).as("the rules without %s on %s", verb, resource).isNotEqualTo(rules);
		return kept;
	}

}
