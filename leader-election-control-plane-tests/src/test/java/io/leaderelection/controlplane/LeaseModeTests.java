package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Lease mode on the real control plane, three replicas as ServiceAccounts bound to the Role of
 * docs/operations.md: one leader, handovers by step-down and by shutdown, a deletion of the Lease,
 * and fencing tokens rising across all of it, with no two gates open at once and no request
 * refused.
 */
class LeaseModeTests {

	private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(20);

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final Terms terms = new Terms("default");

	private final List<EngineReplica> replicas = new ArrayList<>();

	private TestNamespace namespace;

	private TestNamespace.ServiceAccount account;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("lease-mode");
		this.account = this.namespace.serviceAccount("elector", DocumentedRoles.rules(DocumentedRoles.LEASES));
	}

	@AfterEach
	void stopReplicas() {
		this.replicas.forEach(EngineReplica::close);
		this.namespace.close();
	}

	@Test
	void oneOfThreeLeadsThroughStepDownDeletionAndShutdownWithRisingTokens() {
		ElectionSettings election = EngineReplica.election(this.namespace.name(), "orders-leader");
		for (int i = 1; i <= 3; i++) {
			this.replicas.add(EngineReplica.start("replica-" + i, this.account.config(this.controlPlane.apiServer()),
					List.of(election), this.terms.recorderFor("replica-" + i)));
		}
		EngineReplica first = awaitLeader();
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> this.replicas.stream()
				.allMatch((replica) -> first.identity().equals(replica.status("default").holderIdentity())));

		// a step-down hands over to another replica
		first.engine().stepDown("default");
		EngineReplica second = awaitLeaderOtherThan(first);

		// the Lease deleted under the leader: its gate closes, and someone leads a new Lease
		String deletedUid = lease().getMetadata().getUid();
		int termsBefore = this.terms.count();
		this.controlPlane.admin().leases().inNamespace(this.namespace.name()).withName("orders-leader").delete();
		await().atMost(ELECTION_TIMEOUT).until(() -> !second.isLeader("default"));
		assertThat(this.terms.all().get(termsBefore - 1).cause).isEqualTo(RevocationCause.LEASE_DELETED);
		EngineReplica third = awaitLeader();
		assertThat(lease().getMetadata().getUid()).isNotEqualTo(deletedUid);

		// a graceful shutdown releases, and another replica takes over
		third.stopGracefully();
		awaitLeaderOtherThan(third);

		this.terms.assertSafe();
		assertThat(this.terms.count()).isGreaterThanOrEqualTo(4);
		this.namespace.assertNothingRefused();
	}

	private EngineReplica awaitLeader() {
		return awaitLeaderOtherThan(null);
	}

	private EngineReplica awaitLeaderOtherThan(EngineReplica other) {
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> this.replicas.stream().anyMatch((replica) -> replica != other && replica.isLeader("default")));
		return this.replicas.stream()
			.filter((replica) -> replica != other && replica.isLeader("default"))
			.findFirst()
			.orElseThrow();
	}

	private Lease lease() {
		return this.controlPlane.admin().leases().inNamespace(this.namespace.name()).withName("orders-leader").get();
	}

}
