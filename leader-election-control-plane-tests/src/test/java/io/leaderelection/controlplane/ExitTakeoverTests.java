package io.leaderelection.controlplane;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Takeover on the kubelet's word that the leader's process ended, on the real control plane: the
 * replicas run as a ServiceAccount bound to the Role of operations.md (with 'get' and 'watch' on
 * 'pods'), and the test writes the Pods' status through the status subresource as a kubelet would
 * ({@link KubeletPods}). A lease duration of 6 s tells a takeover on proof from one on expiry.
 */
class ExitTakeoverTests {

	private static final String ANNOTATION = "leaderelection.io/holder-instance";

	private static final Duration LEASE_DURATION = Duration.ofSeconds(6);

	/** Within a second of the status update, as issue 38 asks. */
	private static final Duration ON_PROOF = Duration.ofSeconds(1);

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final Terms terms = new Terms("default");

	private final List<EngineReplica> replicas = new ArrayList<>();

	private final List<LinkProxy> links = new ArrayList<>();

	private TestNamespace namespace;

	private TestNamespace.ServiceAccount account;

	private KubeletPods pods;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("exit-takeover");
		this.account = this.namespace.serviceAccount("elector", DocumentedRoles.rules(DocumentedRoles.LEASES));
		this.pods = new KubeletPods(this.controlPlane.admin(), this.namespace.name(), "elector");
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(EngineReplica::close);
		this.links.forEach(LinkProxy::close);
		this.terms.assertSafe();
		this.namespace.assertNothingRefused();
		this.namespace.close();
	}

	@Test
	void aKilledLeadersSuccessorLeadsWithinASecondOfTheStatusUpdate() {
		Pod first = this.pods.running("orders-a");
		this.pods.running("orders-b");
		EngineReplica a = leader("a", "orders-a");
		EngineReplica b = start("b", "orders-b", null);
		await().until(() -> annotation() != null);
		assertThat(annotation()).contains("\"holder\":\"a\"", "\"pod\":\"orders-a\"",
				"\"uid\":\"" + first.getMetadata().getUid() + "\"", "\"container\":\"app\"", "\"restartCount\":0");
		// the follower watches the leader's Pod before anything happens to it
		await().until(() -> b.status("default").holderIdentity() != null);

		a.kill();
		long reported = reportLater(() -> this.pods.terminated("orders-a", 137));
		await().atMost(ON_PROOF).until(() -> b.isLeader("default"));
		long took = this.terms.all().get(1).openedAt - reported;
		System.out.printf("exit takeover on the real control plane: the follower led %d ms after the status update%n",
				Duration.ofNanos(took).toMillis());
		assertThat(took).isLessThan(ON_PROOF.toNanos());
		assertThat(annotation()).contains("\"holder\":\"b\"", "\"pod\":\"orders-b\"");
	}

	@Test
	void aForceDeletedPodWhoseProcessStillRunsAndRenewsIsNeverRobbedNorByANewPodOfItsName() {
		this.pods.running("orders-a");
		this.pods.running("orders-b");
		EngineReplica a = leader("a", "orders-a");
		EngineReplica b = start("b", "orders-b", null);
		await().until(() -> annotation() != null && b.status("default").holderIdentity() != null);

		this.pods.forceDelete("orders-a");
		neverRobbed(a);
		// a StatefulSet's successor under the same name, whose container ends
		this.pods.running("orders-a");
		this.pods.terminated("orders-a", 1);
		neverRobbed(a);
		assertThat(b.isLeader("default")).isFalse();
	}

	@Test
	void aFrozenLeaderWhosePodsStatusSaysNothingIsTakenOverOnlyOnExpiry() {
		this.pods.running("orders-a");
		this.pods.running("orders-b");
		LinkProxy link = LinkProxy.to(this.controlPlane.apiServer());
		this.links.add(link);
		EngineReplica a = EngineReplica.startInContainer("a",
				new ConfigBuilder(this.account.config(this.controlPlane.apiServer())).withMasterUrl(link.url()).build(),
				List.of(election()), new EngineReplica.InContainer(this.namespace.name(), "orders-a", null),
				this.terms.recorderFor("a"));
		this.replicas.add(a);
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(() -> a.isLeader("default") && annotation() != null);
		EngineReplica b = start("b", "orders-b", null);
		await().until(() -> b.status("default").holderIdentity() != null);

		link.cut();
		long frozen = System.nanoTime();
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(() -> b.isLeader("default"));
		assertThat(System.nanoTime() - frozen)
				.as("not before the Lease expired: a lease duration after the last renewal, at most a renew "
						+ "period before the cut")
				.isGreaterThanOrEqualTo(LEASE_DURATION.minus(election().renewPeriod()).toNanos());
	}

	@Test
	void aRestartReportedBeforeTheNewProcessLeadsIsAProofOfTheRunBefore() {
		this.pods.running("orders-a");
		this.pods.running("orders-b");
		EngineReplica a = leader("a", "orders-a");
		EngineReplica b = start("b", "orders-b", null);
		await().until(() -> annotation() != null && b.status("default").holderIdentity() != null);

		a.kill();
		EngineReplica again = start("a-again", "orders-a", Instant.now());
		long reported = reportLater(() -> this.pods.restarted("orders-a"));
		await().atMost(ON_PROOF).until(() -> b.isLeader("default") || again.isLeader("default"));
		assertThat(this.terms.all().get(1).openedAt - reported).isLessThan(ON_PROOF.toNanos());
		EngineReplica successor = b.isLeader("default") ? b : again;
		if (successor == again) {
			await().until(() -> annotation().contains("\"restartCount\":1"));
		}
		neverRobbed(successor);
	}

	@Test
	void aRestartReportedAfterTheNewProcessLeadsRobsItOfNothing() {
		this.pods.running("orders-a");
		EngineReplica a = leader("a", "orders-a");
		await().until(() -> annotation() != null);

		a.kill();
		// the kubelet's report comes late: the new process finds the status of the run before it
		EngineReplica again = start("a-again", "orders-a", Instant.now());
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(() -> again.isLeader("default"));
		assertThat(annotation()).as("its own run is not known yet").isNull();
		this.pods.running("orders-b");
		EngineReplica b = start("b", "orders-b", null);
		await().until(() -> b.status("default").holderIdentity() != null);
		this.pods.restarted("orders-a");
		await().until(() -> annotation() != null && annotation().contains("\"restartCount\":1"));
		neverRobbed(again);
		assertThat(b.isLeader("default")).isFalse();
	}

	@Test
	void anAnnotationOfAnotherVersionIsIgnoredAndItsHolderWaitedOut() {
		Pod pod = this.pods.running("orders-x");
		this.pods.running("orders-b");
		// held by a leader of a later version, whose annotation has a member this one does not know
		this.controlPlane.admin()
			.leases()
			.inNamespace(this.namespace.name())
			.resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder().withNewMetadata()
				.withName("orders-leader")
				.withAnnotations(Map.of(ANNOTATION,
						"{\"holder\":\"x\",\"namespace\":\"" + this.namespace.name() + "\",\"pod\":\"orders-x\",\"uid\":\""
								+ pod.getMetadata().getUid()
								+ "\",\"container\":\"app\",\"restartCount\":0,\"containerID\":\"containerd://1\"}"))
				.endMetadata()
				.withNewSpec()
				.withHolderIdentity("x")
				.withLeaseDurationSeconds((int) LEASE_DURATION.toSeconds())
				.withLeaseTransitions(0)
				.endSpec()
				.build())
			.create();
		this.pods.terminated("orders-x", 137);
		long reported = System.nanoTime();
		EngineReplica b = start("b", "orders-b", null);
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(() -> b.isLeader("default"));
		assertThat(System.nanoTime() - reported).isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
	}

	// ---- helpers

	private ElectionSettings election() {
		return new ElectionSettings("default", this.namespace.name(), "orders-leader", LEASE_DURATION,
				Duration.ofSeconds(4), Duration.ofMillis(500))
			.renewingEvery(Duration.ofMillis(500));
	}

	private EngineReplica start(String identity, String pod, Instant started) {
		EngineReplica replica = EngineReplica.startInContainer(identity,
				this.account.config(this.controlPlane.apiServer()), List.of(election()),
				new EngineReplica.InContainer(this.namespace.name(), pod, started), this.terms.recorderFor(identity));
		this.replicas.add(replica);
		return replica;
	}

	private EngineReplica leader(String identity, String pod) {
		EngineReplica replica = start(identity, pod, null);
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(() -> replica.isLeader("default"));
		return replica;
	}

	/** The kubelet reports the process's end between 0.5 s and 1.5 s after the kill; returns when. */
	private static long reportLater(Runnable report) {
		long killed = System.nanoTime();
		await().pollDelay(Duration.ofMillis(500)).until(() -> System.nanoTime() - killed >= 500_000_000L);
		report.run();
		return System.nanoTime();
	}

	/** For longer than the lease duration, the replica leads and nobody else does. */
	private void neverRobbed(EngineReplica leader) {
		await().during(LEASE_DURATION.plusSeconds(1))
			.atMost(LEASE_DURATION.plusSeconds(5))
			.until(() -> leader.isLeader("default") && leader.identity().equals(this.terms.holder()));
	}

	private String annotation() {
		Lease lease = this.controlPlane.admin()
			.leases()
			.inNamespace(this.namespace.name())
			.withName("orders-leader")
			.get();
		return (lease != null && lease.getMetadata().getAnnotations() != null)
				? lease.getMetadata().getAnnotations().get(ANNOTATION) : null;
	}

}
