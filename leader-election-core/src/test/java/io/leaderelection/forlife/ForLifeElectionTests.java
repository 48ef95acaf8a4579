package io.leaderelection.forlife;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.leaderelection.LeaderStatus;
import io.leaderelection.StepDown;
import io.leaderelection.engine.ForLifePodException;
import io.leaderelection.kubernetes.MockApiServer;
import io.leaderelection.store.LeaseRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Leader-for-life on a real HTTP API server (fabric8's CRUD mock server, which also checks a
 * deletion's preconditions here): the test creates the Pods with their uids and plays the
 * garbage collector, deleting a Pod's lock when it deletes the Pod.
 */
class ForLifeElectionTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private MockApiServer server;

	private Cluster cluster;

	private final List<ForLifeReplica> replicas = new ArrayList<>();

	/** Every version of the lock stored, with the client that wrote it; {@code null} for a deletion. */
	private final List<String> lockWrites = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startServer() {
		this.server = MockApiServer.start();
		this.cluster = new Cluster(this.server);
		this.server.onLeaseWritten((name, client, stored) -> this.lockWrites
			.add(client + ((stored != null) ? " wrote " + stored.getMetadata().getUid() : " deleted")));
	}

	@AfterEach
	void stopAll() {
		this.replicas.forEach(ForLifeReplica::close);
		this.cluster.close();
		this.server.close();
	}

	@Test
	void theLockIsALeaseOwnedByThePodThatNoLeaseElectorSeesExpire() {
		String uid = this.cluster.runPod("pod-a");
		ForLifeReplica a = replica("pod-a");
		await().atMost(WAIT).until(a::isLeader);

		Lease lock = this.cluster.lock();
		assertThat(lock.getSpec().getHolderIdentity()).isEqualTo("pod-a");
		assertThat(lock.getSpec().getLeaseDurationSeconds()).isEqualTo(LeaseRecord.FOR_LIFE_LEASE_DURATION_SECONDS);
		OwnerReference owner = lock.getMetadata().getOwnerReferences().get(0);
		assertThat(owner.getApiVersion()).isEqualTo("v1");
		assertThat(owner.getKind()).isEqualTo("Pod");
		assertThat(owner.getName()).isEqualTo("pod-a");
		assertThat(owner.getUid()).isEqualTo(uid);
		assertThat(owner.getBlockOwnerDeletion()).isNull();
		LeaderStatus status = a.status();
		assertThat(status.mode()).isEqualTo(LeaderStatus.FOR_LIFE_MODE);
		assertThat(status.ownerPod()).isEqualTo("pod-a (uid " + uid + ")");
		assertThat(status.fencingToken()).isEqualTo(Long.valueOf(lock.getMetadata().getResourceVersion()));
	}

	@Test
	void aFollowerTakesOverOnceThePodIsDeletedAndItsLockCollected() {
		ForLifeReplica a = leader("pod-a");
		ForLifeReplica b = followerOf(a, "pod-b");

		a.crash();
		assertThat(b.isLeader()).isFalse();
		this.cluster.deletePod("pod-a");

		await().atMost(WAIT).until(b::isLeader);
		assertThat(b.tokens().get(0)).isGreaterThan(a.tokens().get(0));
		assertNoOverlap();
	}

	@ParameterizedTest
	@ValueSource(strings = { "Failed", "Succeeded" })
	void aFollowerReplacesTheLockOfAPodThatEndedForGood(String phase) {
		ForLifeReplica a = leader("pod-a");
		ForLifeReplica b = followerOf(a, "pod-b");
		a.crash();

		this.cluster.setPhase("pod-a", phase);

		await().atMost(WAIT).until(b::isLeader);
		assertThat(this.cluster.lock().getMetadata().getOwnerReferences().get(0).getName()).isEqualTo("pod-b");
		assertThat(b.tokens().get(0)).isGreaterThan(a.tokens().get(0));
		assertNoOverlap();
	}

	@Test
	void aFollowerWaitsOutTheGracePeriodOfAPodMarkedForDeletionOnItsOwnClock() {
		ForLifeReplica a = leader("pod-a");
		ForLifeReplica b = followerOf(a, "pod-b");
		a.crash();

		long marked = System.nanoTime();
		this.cluster.markForDeletion("pod-a", 1);

		await().atMost(WAIT).until(b::isLeader);
		assertThat(b.terms().get(0)[0] - marked).isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
	}

	@Test
	void aRestartedContainerOfTheSamePodContinuesAsLeaderWithAHigherToken() {
		ForLifeReplica first = leader("pod-a");
		ForLifeReplica b = followerOf(first, "pod-b");
		String lockUid = this.cluster.lock().getMetadata().getUid();
		first.crash();

		ForLifeReplica restarted = replica("pod-a");

		await().atMost(WAIT).until(restarted::isLeader);
		assertThat(this.cluster.lock().getMetadata().getUid()).as("the same lock, not replaced").isEqualTo(lockUid);
		assertThat(restarted.tokens().get(0)).isGreaterThan(first.tokens().get(0));
		assertThat(b.events()).isEmpty();
	}

	@Test
	void aNewPodUnderTheSameNameDoesNotContinueButReplacesTheLockOfTheGonePod() {
		String oldUid = this.cluster.runPod("pod-a");
		ForLifeReplica first = replica("pod-a");
		await().atMost(WAIT).until(first::isLeader);
		String oldLock = this.cluster.lock().getMetadata().getUid();
		first.crash();
		// a StatefulSet's Pod created again: the name comes back, the uid is new, and the lock of
		// the old Pod is still there, as the garbage collector has not run yet
		this.cluster.deletePodObject("pod-a");
		String newUid = this.cluster.runPod("pod-a");
		assertThat(newUid).isNotEqualTo(oldUid);

		ForLifeReplica second = replica("pod-a");

		await().atMost(WAIT).until(second::isLeader);
		Lease lock = this.cluster.lock();
		assertThat(lock.getMetadata().getUid()).as("a new lock").isNotEqualTo(oldLock);
		assertThat(lock.getMetadata().getOwnerReferences().get(0).getUid()).isEqualTo(newUid);
		assertThat(this.lockWrites).contains("pod-a deleted");
	}

	@Test
	void ofTwoFollowersReplacingADeadOwnersLockOneWins() {
		ForLifeReplica a = leader("pod-a");
		ForLifeReplica b = followerOf(a, "pod-b");
		ForLifeReplica c = followerOf(a, "pod-c");
		a.crash();
		this.lockWrites.clear();

		this.cluster.setPhase("pod-a", "Failed");

		await().atMost(WAIT).until(() -> b.isLeader() || c.isLeader());
		ForLifeReplica winner = b.isLeader() ? b : c;
		ForLifeReplica loser = (winner == b) ? c : b;
		await().atMost(WAIT).until(() -> winner.status().holderIdentity().equals(loser.status().holderIdentity()));
		assertThat(loser.isLeader()).isFalse();
		assertThat(loser.events()).isEmpty();
		assertThat(this.lockWrites).as("one deletion, one lock created").hasSize(2);
		assertNoOverlap();
	}

	@Test
	void aConfigMapUnderTheLocksNameIsLeftAlone() {
		this.cluster.client()
			.configMaps()
			.inNamespace(ForLifeReplica.NAMESPACE)
			.resource(new ConfigMapBuilder().withNewMetadata()
				.withName(ForLifeReplica.LEASE)
				.endMetadata()
				.addToData("leader", "someone")
				.build())
			.create();
		this.cluster.runPod("pod-a");

		ForLifeReplica a = replica("pod-a");

		await().atMost(WAIT).until(a::isLeader);
		assertThat(this.cluster.client()
			.configMaps()
			.inNamespace(ForLifeReplica.NAMESPACE)
			.withName(ForLifeReplica.LEASE)
			.get()
			.getData()).containsEntry("leader", "someone");
	}

	@Test
	void aLeaseThatIsNoLockIsReplacedOnlyOnceItExpired() {
		Lease foreign = this.cluster.client()
			.leases()
			.inNamespace(ForLifeReplica.NAMESPACE)
			.resource(new LeaseBuilder().withNewMetadata()
				.withName(ForLifeReplica.LEASE)
				.endMetadata()
				.withNewSpec()
				.withHolderIdentity("lease-mode-replica")
				.withLeaseDurationSeconds(2)
				.endSpec()
				.build())
			.create();
		this.cluster.runPod("pod-a");
		long created = System.nanoTime();

		ForLifeReplica a = replica("pod-a");

		await().atMost(WAIT).until(a::isLeader);
		assertThat(a.terms().get(0)[0] - created).isGreaterThanOrEqualTo(Duration.ofSeconds(2).toNanos());
		Lease lock = this.cluster.lock();
		assertThat(lock.getMetadata().getUid()).isNotEqualTo(foreign.getMetadata().getUid());
		assertThat(lock.getMetadata().getOwnerReferences().get(0).getName()).isEqualTo("pod-a");
	}

	@Test
	void stepDownDeletesTheLockAfterTheDrainAndAFollowerTakesOverAtOnce() {
		ForLifeReplica a = leader("pod-a");
		ForLifeReplica b = followerOf(a, "pod-b");

		StepDown stepDown = a.engine().stepDown(ForLifeReplica.ELECTION, WAIT);

		assertThat(stepDown.release()).isEqualTo(StepDown.Release.WRITTEN);
		await().atMost(WAIT).until(b::isLeader);
		assertThat(this.cluster.lock().getMetadata().getOwnerReferences().get(0).getName()).isEqualTo("pod-b");
		assertThat(a.isLeader()).isFalse();
		assertNoOverlap();
	}

	@Test
	void shutdownWithReleaseDeletesTheLock() {
		ForLifeReplica a = leader("pod-a");

		a.stopReleasing().join();

		assertThat(this.cluster.lock()).isNull();
		assertThat(a.events()).containsExactly("granted", "revoked SHUTDOWN");
	}

	@Test
	void theLeaderClosesItsGateWhenItsLockIsDeletedUnderIt() {
		ForLifeReplica a = leader("pod-a");

		this.cluster.client().leases().inNamespace(ForLifeReplica.NAMESPACE).withName(ForLifeReplica.LEASE).delete();

		await().atMost(WAIT).until(() -> a.events().contains("revoked LEASE_DELETED"));
		// its own Pod lives: it leads again, on a lock of its own, with a higher token
		await().atMost(WAIT).until(() -> a.isLeader() && a.tokens().size() == 2);
		assertThat(a.tokens().get(1)).isGreaterThan(a.tokens().get(0));
	}

	@Test
	void followersDoNotTakeOverALockDeletedByHandWhileItsPodLives() {
		ForLifeReplica a = leader("pod-a");
		ForLifeReplica b = followerOf(a, "pod-b");
		// as a leader cut off from the API server: its process may run on, so its gate may be open
		a.crash();

		this.cluster.client().leases().inNamespace(ForLifeReplica.NAMESPACE).withName(ForLifeReplica.LEASE).delete();

		await().atMost(WAIT).until(() -> b.status().holderIdentity() == null);
		await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> !b.isLeader());
		this.cluster.deletePod("pod-a");
		await().atMost(WAIT).until(b::isLeader);
	}

	@Test
	void aMissingLockIsCreatedAtOnceUnlessAGapCameWhileItWasMissingThenAfterALeaseDurationOfUnbrokenAbsence() {
		this.cluster.runPod("pod-b");
		// b reads the lock missing, and its creates fail: a failed call is a gap in what it saw
		MockApiServer.Answer noCreates = this.server.answer(MockApiServer.from("pod-b")
			.and(MockApiServer.method("POST"))
			.and((request) -> request.getPath().endsWith("/leases")),
				() -> MockApiServer.status(500, "InternalError", "b cannot create, for a while"));
		ForLifeReplica b = replica("pod-b");
		await().atMost(WAIT).until(() -> b.status().lastError() != null);
		noCreates.close();
		long healed = System.nanoTime();
		// the lock might have been created, held and deleted by hand meanwhile, unseen: b waits a
		// lease duration of unbroken absence, time for such a leader to see its deletion (a term is
		// recorded by the grant's listener, which may run just after the gate opened)
		await().atMost(WAIT).until(() -> !b.terms().isEmpty());
		assertThat(Duration.ofNanos(b.terms().get(0)[0] - healed)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
		// a replica that saw it missing with no gap creates it at once: b's own Pod is gone
		this.cluster.runPod("pod-c");
		ForLifeReplica c = replica("pod-c");
		await().atMost(WAIT).until(() -> "pod-b".equals(c.status().holderIdentity()));
		long bGone = System.nanoTime();
		b.crash();
		this.cluster.deletePod("pod-b");
		await().atMost(WAIT).until(() -> !c.terms().isEmpty());
		assertThat(Duration.ofNanos(c.terms().get(0)[0] - bGone)).isLessThan(Duration.ofSeconds(2));
		assertNoOverlap();
	}

	@Test
	void aLeaderOnANotReadyNodeIsTakenOverOnlyWhereSwitchedOnAndAfterTheDelay() {
		this.cluster.node("node-1", true);
		this.cluster.runPod("pod-a", "node-1");
		this.cluster.runPod("pod-b");
		this.cluster.runPod("pod-c");
		ForLifeReplica a = replica("pod-a");
		await().atMost(WAIT).until(a::isLeader);
		ForLifeReplica never = replica("pod-b");
		ForLifeReplica optedIn = replica(ForLifeReplica.start(this.server, "pod-c", Duration.ofMillis(600)));
		await().atMost(WAIT)
			.until(() -> "pod-a".equals(never.status().holderIdentity())
					&& "pod-a".equals(optedIn.status().holderIdentity()));

		long notReady = System.nanoTime();
		this.cluster.node("node-1", false);

		await().atMost(WAIT).until(optedIn::isLeader);
		assertThat(optedIn.terms().get(0)[0] - notReady).isGreaterThanOrEqualTo(Duration.ofMillis(600).toNanos());
		// the partitioned leader would still run: a.isLeader() stays true, as it cannot know
		assertThat(never.events()).isEmpty();
	}

	@Test
	void aPodThatDoesNotExistFailsTheStartNamingIt() {
		ForLifeReplica a = new ForLifeReplica(this.server, "pod-x", null);
		this.replicas.add(a);

		assertThatThrownBy(() -> a.engine().start()).isInstanceOf(ForLifePodException.class)
			.hasMessageContaining("Pod team-a/pod-x does not exist")
			.hasMessageContaining("POD_NAME")
			.hasMessageContaining("fieldRef metadata.name");
	}

	@Test
	void aPodThatCannotBeReadFailsTheStartNamingTheRbacNeeded() {
		this.cluster.runPod("pod-a");
		this.server.answer((request) -> request.getPath().contains("/pods/"),
				() -> MockApiServer.status(403, "Forbidden", "pods \"pod-a\" is forbidden: User cannot get resource"));
		ForLifeReplica a = new ForLifeReplica(this.server, "pod-a", null);
		this.replicas.add(a);

		assertThatThrownBy(() -> a.engine().start()).isInstanceOf(ForLifePodException.class)
			.hasMessageContaining("403")
			.hasMessageContaining("'get' on 'pods' in namespace 'team-a'")
			.hasMessageContaining("'delete' on 'leases'");
		assertThat(this.cluster.lock()).isNull();
	}

	/** A replica in a new Pod that leads, the first of its election. */
	private ForLifeReplica leader(String podName) {
		this.cluster.runPod(podName);
		ForLifeReplica leader = replica(podName);
		await().atMost(WAIT).until(leader::isLeader);
		return leader;
	}

	/** A replica in a new Pod that has seen the leader's lock. */
	private ForLifeReplica followerOf(ForLifeReplica leader, String podName) {
		this.cluster.runPod(podName);
		ForLifeReplica follower = replica(podName);
		String leaderPod = leader.status().holderIdentity();
		await().atMost(WAIT).until(() -> leaderPod.equals(follower.status().holderIdentity()));
		return follower;
	}

	private ForLifeReplica replica(String podName) {
		return replica(ForLifeReplica.start(this.server, podName));
	}

	private ForLifeReplica replica(ForLifeReplica replica) {
		this.replicas.add(replica);
		return replica;
	}

	/** No two gates were ever open at once, on the one monotonic clock all replicas share here. */
	private void assertNoOverlap() {
		List<long[]> terms = this.replicas.stream()
			.flatMap((replica) -> replica.terms().stream())
			.sorted(Comparator.comparingLong((long[] term) -> term[0]))
			.toList();
		for (int i = 1; i < terms.size(); i++) {
			assertThat(terms.get(i)[0]).as("term %d opened after term %d closed", i, i - 1)
				.isGreaterThanOrEqualTo(terms.get(i - 1)[1]);
		}
	}

}
