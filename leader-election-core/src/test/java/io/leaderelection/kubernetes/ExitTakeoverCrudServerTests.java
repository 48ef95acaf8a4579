package io.leaderelection.kubernetes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Takeover on the kubelet's proof that the holder's process ended, on fabric8's CRUD mock server:
 * the test writes the Pods' status as a kubelet would ({@link Kubelet}). A lease duration of 6 s
 * tells a takeover on proof (within a second of the status) from one on expiry.
 */
class ExitTakeoverCrudServerTests {

	private static final ElectionSettings SETTINGS = ExitTakeoverReplica.settings(Duration.ofSeconds(6),
			Duration.ofSeconds(4), Duration.ofMillis(500));

	private static final Duration LEASE_DURATION = SETTINGS.leaseDuration();

	/** Within a second of the status update, as issue 38 asks. */
	private static final Duration ON_PROOF = Duration.ofSeconds(1);

	private MockApiServer server;

	private KubernetesClient admin;

	private Kubelet kubelet;

	private final List<ExitTakeoverReplica> replicas = new ArrayList<>();

	@BeforeEach
	void startServer() {
		this.server = MockApiServer.start();
		this.admin = this.server.client("admin");
		this.kubelet = new Kubelet(this.admin, ExitTakeoverReplica.NAMESPACE);
	}

	@AfterEach
	void stopAll() {
		this.replicas.forEach(ExitTakeoverReplica::close);
		assertNoOverlap();
		this.admin.close();
		this.server.close();
	}

	@Test
	void aKilledLeadersSuccessorLeadsWithinASecondOfTheStatusNamingItsRunTerminated() {
		String uid = this.kubelet.run("pod-a");
		this.kubelet.run("pod-b");
		ExitTakeoverReplica a = leader("a", "pod-a");
		ExitTakeoverReplica b = replica("b", "pod-b");
		await().until(() -> holderInstance() != null);
		assertThat(holderInstance()).isEqualTo("{\"holder\":\"a\",\"namespace\":\"team-a\",\"pod\":\"pod-a\",\"uid\":\""
				+ uid + "\",\"container\":\"app\",\"restartCount\":0}");

		a.kill();
		long reported = reportAfterKill(() -> this.kubelet.terminated("pod-a"));
		await().atMost(ON_PROOF).until(b::isLeader);
		assertThat(System.nanoTime() - reported).isLessThan(ON_PROOF.toNanos());
		assertThat(b.tokens.get(0)).isGreaterThan(a.tokens.get(0));
		assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("b");
		assertThat(holderInstance()).contains("\"holder\":\"b\"", "\"pod\":\"pod-b\"");
	}

	@Test
	void aRestartOfTheLeadersContainerReportedBeforeItsNewProcessLeadsIsAProofOfTheRunBefore() {
		this.kubelet.run("pod-a");
		this.kubelet.run("pod-b");
		ExitTakeoverReplica a = leader("a", "pod-a");
		ExitTakeoverReplica b = replica("b", "pod-b");
		await().until(() -> holderInstance() != null);

		a.kill();
		ExitTakeoverReplica again = restartedIn("a-again", "pod-a");
		long reported = reportAfterKill(() -> this.kubelet.restarted("pod-a"));
		await().atMost(ON_PROOF).until(() -> b.isLeader() || again.isLeader());
		assertThat(System.nanoTime() - reported).isLessThan(ON_PROOF.toNanos());
		ExitTakeoverReplica successor = b.isLeader() ? b : again;
		// the new run of pod-a knows itself, and its Leases name it at restartCount 1
		if (successor == again) {
			await().until(() -> holderInstance() != null && holderInstance().contains("\"restartCount\":1"));
		}
		neverRobbed(successor);
	}

	@Test
	void aRestartReportedAfterTheNewProcessTookTheLeaseOverOnExpiryRobsItOfNothing() {
		this.kubelet.run("pod-a");
		this.kubelet.run("pod-b");
		ExitTakeoverReplica a = leader("a", "pod-a");
		await().until(() -> holderInstance() != null);
		a.kill();
		// the kubelet's report is late: the new process finds the status of the run before it
		ExitTakeoverReplica again = restartedIn("a-again", "pod-a");
		await().atMost(LEASE_DURATION.multipliedBy(2)).until(again::isLeader);
		assertThat(holderInstance()).as("its own run is not known yet").isNull();
		ExitTakeoverReplica b = replica("b", "pod-b");
		this.kubelet.restarted("pod-a");
		await().until(() -> holderInstance() != null && holderInstance().contains("\"restartCount\":1"));
		neverRobbed(again);
		assertThat(b.isLeader()).isFalse();
	}

	@Test
	void aForceDeletedPodWhoseProcessStillRunsAndRenewsIsNeverRobbedNorIsItsNameTakenByANewPod() {
		this.kubelet.run("pod-a");
		this.kubelet.run("pod-b");
		ExitTakeoverReplica a = leader("a", "pod-a");
		ExitTakeoverReplica b = replica("b", "pod-b");
		await().until(() -> holderInstance() != null);

		this.kubelet.forceDelete("pod-a");
		neverRobbed(a);
		// a StatefulSet creates its successor under the same name, whose container ends
		this.kubelet.run("pod-a");
		this.kubelet.terminated("pod-a");
		this.kubelet.restarted("pod-a");
		neverRobbed(a);
		assertThat(b.isLeader()).isFalse();
	}

	@Test
	void aFrozenLeaderWhosePodsStatusSaysNothingIsTakenOverOnlyOnExpiry() {
		this.kubelet.run("pod-a");
		this.kubelet.run("pod-b");
		ExitTakeoverReplica a = leader("a", "pod-a");
		ExitTakeoverReplica b = replica("b", "pod-b");
		await().until(() -> holderInstance() != null);
		String frozenVersion = lease().getMetadata().getResourceVersion();
		long frozen = System.nanoTime();
		try (MockApiServer.Answer hang = this.server.answer(MockApiServer.from("a"),
				() -> MockApiServer.after(Duration.ofMinutes(1), MockApiServer.status(500, "Hung", "frozen")))) {
			await().atMost(LEASE_DURATION.multipliedBy(3)).until(b::isLeader);
			assertThat(System.nanoTime() - frozen)
				.as("not before the Lease expired: a lease duration after the last renewal, at most a renew "
						+ "period before the cut")
				.isGreaterThanOrEqualTo(LEASE_DURATION.minus(SETTINGS.renewPeriod()).toNanos());
			assertThat(frozenVersion).isNotEqualTo(lease().getMetadata().getResourceVersion());
		}
		assertThat(a.isLeader()).isFalse();
	}

	@ParameterizedTest
	@ValueSource(strings = { "extra member", "missing member", "malformed", "another holder", "restartCount as text" })
	void anAnnotationThisVersionCannotReadProvesNothingAndItsHolderIsWaitedOut(String kind) {
		String uid = this.kubelet.run("pod-x");
		this.kubelet.run("pod-b");
		Map<String, String> annotation = new HashMap<>();
		String valid = "\"namespace\":\"team-a\",\"pod\":\"pod-x\",\"uid\":\"" + uid
				+ "\",\"container\":\"app\"";
		annotation.put("extra member", "{\"holder\":\"x\"," + valid + ",\"restartCount\":0,\"containerID\":\"c1\"}");
		annotation.put("missing member", "{\"holder\":\"x\"," + valid + "}");
		annotation.put("malformed", "{\"holder\":\"x\"," + valid);
		annotation.put("another holder", "{\"holder\":\"y\"," + valid + ",\"restartCount\":0}");
		annotation.put("restartCount as text", "{\"holder\":\"x\"," + valid + ",\"restartCount\":\"0\"}");
		// held by a leader of another version, or by an elector that kept another's annotation
		heldBy("x", annotation.get(kind));
		this.kubelet.terminated("pod-x");
		long reported = System.nanoTime();
		ExitTakeoverReplica b = replica("b", "pod-b");
		await().atMost(LEASE_DURATION.multipliedBy(2)).until(b::isLeader);
		assertThat(System.nanoTime() - reported).isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
	}

	@Test
	void theSameAnnotationReadableIsAProofAtOnce() {
		String uid = this.kubelet.run("pod-x");
		this.kubelet.run("pod-b");
		heldBy("x", "{\"holder\":\"x\",\"namespace\":\"team-a\",\"pod\":\"pod-x\",\"uid\":\"" + uid
				+ "\",\"container\":\"app\",\"restartCount\":0}");
		ExitTakeoverReplica b = replica("b", "pod-b");
		await().until(() -> lease() != null && b.engine.status(ExitTakeoverReplica.ELECTION).holderIdentity() != null);
		long reported = reportAfterKill(() -> this.kubelet.terminated("pod-x"));
		await().atMost(ON_PROOF).until(b::isLeader);
		assertThat(System.nanoTime() - reported).isLessThan(ON_PROOF.toNanos());
	}

	@Test
	void aLeaderAmongSeveralContainersNamesNoRunUnlessItsContainerIsConfigured() {
		this.kubelet.run("pod-a", true);
		this.kubelet.run("pod-c", true);
		ExitTakeoverReplica a = leader("a", "pod-a");
		await().during(Duration.ofSeconds(1)).until(() -> a.isLeader() && holderInstance() == null);
		a.close();
		await().until(() -> !a.isLeader());
		ExitTakeoverReplica c = new ExitTakeoverReplica(this.server, "c", "pod-c", Kubelet.CONTAINER, null,
				SETTINGS);
		this.replicas.add(c);
		await().atMost(LEASE_DURATION.multipliedBy(2)).until(c::isLeader);
		await().until(() -> holderInstance() != null && holderInstance().contains("\"container\":\"app\""));
	}

	@Test
	void aReleaseRemovesTheAnnotation() {
		this.kubelet.run("pod-a");
		ExitTakeoverReplica a = leader("a", "pod-a");
		await().until(() -> holderInstance() != null);
		a.engine.stop(true).join();
		assertThat(lease().getSpec().getHolderIdentity()).isEmpty();
		assertThat(holderInstance()).isNull();
	}

	// ---- helpers

	private ExitTakeoverReplica replica(String identity, String podName) {
		ExitTakeoverReplica replica = new ExitTakeoverReplica(this.server, identity, podName, null, null, SETTINGS);
		this.replicas.add(replica);
		return replica;
	}

	/** The process a container restarted with, started now: the status of the run before is not its own. */
	private ExitTakeoverReplica restartedIn(String identity, String podName) {
		ExitTakeoverReplica replica = new ExitTakeoverReplica(this.server, identity, podName, null, Instant.now(),
				SETTINGS);
		this.replicas.add(replica);
		return replica;
	}

	/** A replica that leads: the Lease is created held by nobody, and claimed once it expired. */
	private ExitTakeoverReplica leader(String identity, String podName) {
		ExitTakeoverReplica replica = replica(identity, podName);
		await().atMost(LEASE_DURATION.multipliedBy(2)).until(replica::isLeader);
		return replica;
	}

	/** The kubelet reports the process's end, 0.5 s after the kill; returns when it did. */
	private long reportAfterKill(Runnable report) {
		long killed = System.nanoTime();
		await().pollDelay(Duration.ofMillis(500)).until(() -> System.nanoTime() - killed >= 500_000_000L);
		report.run();
		return System.nanoTime();
	}

	/** For longer than the lease duration, the replica leads and nobody else does. */
	private void neverRobbed(ExitTakeoverReplica leader) {
		await().during(LEASE_DURATION.plusSeconds(1))
			.atMost(LEASE_DURATION.plusSeconds(3))
			.until(() -> leader.isLeader() && this.replicas.stream().filter(ExitTakeoverReplica::isLeader).count() == 1);
	}

	private void heldBy(String holder, String annotation) {
		this.admin.leases()
			.inNamespace(ExitTakeoverReplica.NAMESPACE)
			.resource(new LeaseBuilder().withNewMetadata()
				.withName(ExitTakeoverReplica.LEASE)
				.withAnnotations(Map.of(HolderInstanceAnnotation.NAME, annotation))
				.endMetadata()
				.withNewSpec()
				.withHolderIdentity(holder)
				.withLeaseDurationSeconds((int) LEASE_DURATION.toSeconds())
				.withLeaseTransitions(0)
				.endSpec()
				.build())
			.create();
	}

	private Lease lease() {
		return this.admin.leases().inNamespace(ExitTakeoverReplica.NAMESPACE).withName(ExitTakeoverReplica.LEASE).get();
	}

	private String holderInstance() {
		Lease lease = lease();
		return (lease != null && lease.getMetadata().getAnnotations() != null)
				? lease.getMetadata().getAnnotations().get(HolderInstanceAnnotation.NAME) : null;
	}

	private void assertNoOverlap() {
		List<long[]> terms = new ArrayList<>();
		this.replicas.forEach((replica) -> terms.addAll(replica.terms));
		terms.sort(Comparator.comparingLong((long[] term) -> term[0]));
		for (int i = 1; i < terms.size(); i++) {
			assertThat(terms.get(i)[0]).as("a gate opened before the one before closed").isGreaterThan(terms.get(i - 1)[1]);
		}
	}

}
