package io.leaderelection.autoconfigure.shedlock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.StepDown;
import io.leaderelection.WindowStatus;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.window.CurrentRun;
import io.leaderelection.autoconfigure.window.WindowedStarts.Outcome;
import io.leaderelection.engine.ElectionSettings;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What ShedLock's own tests cannot ask of a provider, as they run in one process: a lock on
 * several replicas, each with its own engine and client on the CRUD mock server. A follower is
 * refused; a lock's lockAtLeastFor and lockAtMostFor hold across a step-down, a shutdown and a
 * crash of its leader; a lock never released holds up a step-down only until its lockAtMostFor; a deposed leader's lock is refused by the API server; a replica whose
 * clocks are an hour off counts the same windows; a sharded election's locks spread over its
 * shards' leaders; the job reads its term's fencing token.
 */
class ElectionLockProviderReplicasTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	static final String NAMESPACE = "shedlock-replicas";

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	private final String leaseName = "replicas-" + SEQUENCE.incrementAndGet();

	/** Scaled down, with room for a machine busy with other builds. */
	private final ElectionSettings election = new ElectionSettings("default", NAMESPACE, this.leaseName,
			Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(250));

	private final LeaseWindows lease = new LeaseWindows(server, NAMESPACE, this.leaseName);

	private final List<LockReplica> replicas = new ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		ClockProvider.setClock(Clock.systemUTC());
		for (LockReplica replica : this.replicas) {
			replica.close();
		}
		assertThat(CurrentRun.fencingToken()).as("a run left current on the test's thread").isEmpty();
	}

	@Test
	void aFollowersLockIsRefusedWithoutRecordingIt() {
		LockReplica a = leader("a");
		LockReplica b = follower("b");
		assertThat(b.lock("report", Duration.ofMinutes(5), Duration.ZERO)).isEmpty();
		assertThat(b.provider.counts().count("default", Outcome.NOT_LEADER)).isOne();
		assertThat(this.lease.record("report")).isNull();
		SimpleLock lock = a.take("report", Duration.ofMinutes(5), Duration.ZERO);
		assertThat(this.lease.record("report").get("startedBy").asText()).isEqualTo("a");
		lock.unlock();
	}

	@Test
	void aStepDownWaitsForTheLockHeldAndTheSuccessorKeepsItsLockAtLeastFor() {
		LockReplica a = leader("a");
		LockReplica b = follower("b");
		Duration lockAtLeastFor = Duration.ofSeconds(4);
		Instant start = ClockProvider.now();
		SimpleLock lock = a.take("report", Duration.ofSeconds(30), lockAtLeastFor);
		StepDown stepDown = a.engine.stepDown("default", Duration.ZERO);
		assertThat(stepDown.release()).isEqualTo(StepDown.Release.WAITING_FOR_CALLS);
		assertThat(stepDown.callsUnderWay()).singleElement().asString().startsWith("ShedLock lock 'report'");
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !b.leads("default"));
		lock.unlock();
		b.awaitLeading("default");
		assertThat(this.lease.record("report").get("endedMillisAgo").isNull()).as("the release carries the end")
			.isFalse();
		assertThat(ClockProvider.now()).as("b leads within the lock's lockAtLeastFor")
			.isBefore(start.plus(lockAtLeastFor));
		assertThat(b.lock("report", Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
		WindowStatus seen = b.elector().windows("default").get(0);
		assertThat(seen.startedBy()).isEqualTo("a");
		assertThat(seen.fencingToken()).isEqualTo(this.lease.record("report").get("fencingToken").asLong());
		assertThat(seen.ended()).isNotNull();
		SimpleLock next = awaitLock(b, "report", lockAtLeastFor.plusSeconds(5));
		assertThat(ClockProvider.now()).isAfterOrEqualTo(start.plus(lockAtLeastFor));
		next.unlock();
	}

	@Test
	void aShutdownWaitsForTheLockHeldAndReleasesWithItsEnd() {
		LockReplica a = leader("a");
		LockReplica b = follower("b");
		SimpleLock lock = a.take("report", Duration.ofSeconds(30), Duration.ZERO);
		CompletableFuture<Void> stopped = a.engine.stop(true);
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
			.until(() -> !stopped.isDone() && !b.leads("default"));
		lock.unlock();
		await().atMost(LockReplica.WAIT).until(stopped::isDone);
		b.awaitLeading("default");
		assertThat(this.lease.record("report").get("endedMillisAgo").isNull()).isFalse();
		Optional<SimpleLock> next = b.lock("report", Duration.ofSeconds(30), Duration.ZERO);
		assertThat(next).as("ended, with no lockAtLeastFor").isPresent();
		next.get().unlock();
	}

	/**
	 * A lock taken and never released (its job hung, or its thread died) is leader work only
	 * until its lockAtMostFor: the step-down hands over once that has passed, rather than
	 * writing no release at the drain timeout (3 s here) and leaving b a lease duration to wait.
	 */
	@Test
	void aStepDownWaitsForAnAbandonedLockOnlyUntilItsLockAtMostFor() {
		LockReplica a = leader("a");
		LockReplica b = follower("b");
		a.take("report", Duration.ofSeconds(1), Duration.ZERO);
		StepDown stepDown = a.engine.stepDown("default", LockReplica.WAIT);
		assertThat(stepDown.release()).isEqualTo(StepDown.Release.WRITTEN);
		b.awaitLeading("default");
	}

	/** Taken, never released, taken again once its lockAtMostFor passed and released: nothing is under way. */
	@Test
	void aLockTakenAgainAfterItsLockAtMostForLeavesNoCallUnderWay() {
		LockReplica a = leader("a");
		follower("b");
		a.take("report", Duration.ofMillis(500), Duration.ZERO);
		awaitLock(a, "report", Duration.ofSeconds(5)).unlock();
		StepDown stepDown = a.engine.stepDown("default", LockReplica.WAIT);
		assertThat(stepDown.release()).isEqualTo(StepDown.Release.WRITTEN);
		assertThat(stepDown.callsUnderWay()).isEmpty();
	}

	@Test
	void theSuccessorOfALeaderThatDiedHoldingALockKeepsItsLockAtMostFor() throws InterruptedException {
		LockReplica a = leader("a");
		LockReplica b = follower("b");
		Duration lockAtMostFor = Duration.ofSeconds(9);
		Instant start = ClockProvider.now();
		SimpleLock lost = a.take("report", lockAtMostFor, Duration.ZERO);
		a.kill();
		b.awaitLeading("default");
		assertThat(ClockProvider.now()).as("b leads within the lock's lockAtMostFor")
			.isBefore(start.plus(lockAtMostFor));
		assertThat(b.lock("report", lockAtMostFor, Duration.ZERO)).isEmpty();
		assertThat(b.elector().windows("default").get(0).ended()).as("may still run").isNull();
		SimpleLock next = awaitLock(b, "report", lockAtMostFor.plusSeconds(5));
		assertThat(ClockProvider.now()).isAfterOrEqualTo(start.plus(lockAtMostFor));
		next.unlock();
		// as a job on a's thread would once its work ended
		lost.unlock();
	}

	/**
	 * a is cut off from the server, its gate still open, while another candidate takes the Lease:
	 * a's lock waits for its write, which reaches the server at the version a's term holds, once
	 * the link is back, and is refused.
	 */
	@Test
	void aDeposedLeadersLockIsRefusedByTheServerAndItsJobDoesNotRun() throws Exception {
		// a renew deadline long enough for a's gate to stay open while it is cut off
		ElectionSettings roomy = new ElectionSettings("default", NAMESPACE, this.leaseName, Duration.ofSeconds(8),
				Duration.ofSeconds(6), Duration.ofMillis(250));
		server.createReleased(NAMESPACE, this.leaseName);
		LockReplica a = started(LockReplica.proxied("a", server, List.of(roomy))).awaitLeading("default");
		a.blackHole();
		try (KubernetesClient usurper = server.newClient()) {
			// a renewal of a's that was on its way as the link froze may still land: retried on a conflict
			await().atMost(LockReplica.WAIT).ignoreExceptions().until(() -> {
				usurper.leases().inNamespace(NAMESPACE).withName(this.leaseName).edit((Lease taken) -> {
					taken.getSpec().setHolderIdentity("usurper");
					taken.getSpec().setLeaseDurationSeconds(3600);
					taken.getSpec().setLeaseTransitions(taken.getSpec().getLeaseTransitions() + 1);
					return taken;
				});
				return true;
			});
		}
		assertThat(a.leads("default")).as("a, cut off, has seen nothing of it").isTrue();
		AtomicBoolean ran = new AtomicBoolean();
		CompletableFuture<Void> job = CompletableFuture.runAsync(() -> new DefaultLockingTaskExecutor(a.provider)
			.executeWithLock((Runnable) () -> ran.set(true),
					new LockConfiguration(ClockProvider.now(), "report", Duration.ofMinutes(5), Duration.ZERO)));
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !job.isDone());
		assertThat(a.leads("default")).as("the job waits for its start's write, the gate open").isTrue();
		a.restoreNetwork();
		job.get(LockReplica.WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(ran).isFalse();
		assertThat(this.lease.record("report")).isNull();
		assertThat(this.lease.holder()).isEqualTo("usurper");
		await().atMost(LockReplica.WAIT).until(() -> !a.leads("default"));
	}

	@ParameterizedTest(name = "clocks {0} hours off")
	@ValueSource(ints = { 1, -1 })
	void aSuccessorWhoseClocksAreAnHourOffCountsTheSameWindow(int hours) {
		LockReplica a = leader("a");
		Duration offset = Duration.ofHours(hours);
		LockReplica b = follower(LockReplica.start("b", server, List.of(this.election), offset));
		Duration lockAtLeastFor = Duration.ofSeconds(3);
		Instant start = Instant.now();
		a.take("report", Duration.ofSeconds(30), lockAtLeastFor).unlock();
		a.engine.stepDown("default");
		b.awaitLeading("default");
		// b's process runs on its own clock, ShedLock's included
		ClockProvider.setClock(Clock.offset(Clock.systemUTC(), offset));
		assertThat(Instant.now()).as("b leads within the lock's lockAtLeastFor").isBefore(start.plus(lockAtLeastFor));
		assertThat(b.lock("report", Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
		SimpleLock next = awaitLock(b, "report", lockAtLeastFor.plusSeconds(5));
		assertThat(Instant.now()).isAfterOrEqualTo(start.plus(lockAtLeastFor));
		WindowStatus status = b.elector().windows("default").get(0);
		assertThat(status.startedBy()).isEqualTo("b");
		assertThat(Duration.between(Instant.now().plus(offset), status.lastStart()).abs())
			.as("on b's clock")
			.isLessThan(Duration.ofMinutes(1));
		assertThat(Duration.between(status.lastStart(), status.nextStartAllowed()))
			.as("b's lock, held, keeps the window closed for its lockAtMostFor")
			.isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
		next.unlock();
	}

	@Test
	void theLocksOfAShardedElectionAreTakenOnTheLeadersOfTheShardsTheirNamesMapTo() {
		List<ElectionSettings> shards = new ArrayList<>();
		for (int index = 0; index < 4; index++) {
			shards.add(new ElectionSettings("jobs", NAMESPACE, "jobs-" + this.leaseName, Duration.ofSeconds(3),
					Duration.ofSeconds(2), Duration.ofMillis(250))
				.shard(index, 4, true));
		}
		LockReplica a = started(LockReplica.start("a", server, shards));
		LockReplica b = started(LockReplica.start("b", server, shards));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> a.elector().ownedShards("jobs").size() == 2 && b.elector().ownedShards("jobs").size() == 2);
		Set<Integer> ofA = a.elector().ownedShards("jobs");
		String onA = nameOnShard(a, ofA, true);
		String onB = nameOnShard(a, ofA, false);
		String shardOfB = "jobs-" + a.elector().shardOf("jobs", onB) + "-of-4";
		SimpleLock lockOnA = a.take(onA, Duration.ofMinutes(5), Duration.ZERO);
		assertThat(a.lock(onB, Duration.ofMinutes(5), Duration.ZERO)).isEmpty();
		assertThat(a.provider.counts().count(shardOfB, Outcome.NOT_LEADER)).isOne();
		SimpleLock lockOnB = b.take(onB, Duration.ofMinutes(5), Duration.ZERO);
		assertThat(new LeaseWindows(server, NAMESPACE, "jobs-" + this.leaseName + "-"
				+ a.elector().shardOf("jobs", onB) + "-of-4").record(onB).get("startedBy").asText()).isEqualTo("b");
		lockOnA.unlock();
		lockOnB.unlock();
	}

	@Test
	void theJobReadsTheFencingTokenOfTheTermItsLockWasTakenUnder() throws Exception {
		LockReplica a = leader("a");
		assertThat(CurrentRun.fencingToken()).isEmpty();
		SimpleLock outer = a.take("outer", Duration.ofMinutes(5), Duration.ZERO);
		long token = a.fencingToken("default");
		assertThat(CurrentRun.fencingToken()).hasValue(token);
		assertThat(this.lease.record("outer").get("fencingToken").asLong()).isEqualTo(token);
		SimpleLock inner = a.take("inner", Duration.ofMinutes(5), Duration.ZERO);
		// released out of order, and on another thread
		outer.unlock();
		assertThat(CurrentRun.fencingToken()).as("inner still held").hasValue(token);
		AtomicReference<OptionalLong> seenElsewhere = new AtomicReference<>();
		Thread elsewhere = new Thread(() -> {
			seenElsewhere.set(CurrentRun.fencingToken());
			inner.unlock();
		});
		elsewhere.start();
		elsewhere.join();
		assertThat(seenElsewhere.get()).as("another thread holds no lock").isEmpty();
		assertThat(CurrentRun.fencingToken()).isEmpty();
	}

	private String nameOnShard(LockReplica replica, Set<Integer> shards, boolean among) {
		for (int n = 0;; n++) {
			String name = "job-" + n;
			if (shards.contains(replica.elector().shardOf("jobs", name)) == among) {
				return name;
			}
		}
	}

	private static SimpleLock awaitLock(LockReplica replica, String name, Duration within) {
		AtomicReference<SimpleLock> granted = new AtomicReference<>();
		await().atMost(within)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> replica.lock(name, Duration.ofSeconds(30), Duration.ZERO)
				.map((lock) -> granted.compareAndSet(null, lock))
				.orElse(false));
		return granted.get();
	}

	private LockReplica leader(String identity) {
		server.createReleased(NAMESPACE, this.leaseName);
		return started(LockReplica.start(identity, server, List.of(this.election))).awaitLeading("default");
	}

	private LockReplica follower(String identity) {
		return follower(LockReplica.start(identity, server, List.of(this.election)));
	}

	private LockReplica follower(LockReplica replica) {
		started(replica);
		await().atMost(LockReplica.WAIT)
			.until(() -> replica.elector().status("default").holderIdentity() != null);
		return replica;
	}

	private LockReplica started(LockReplica replica) {
		this.replicas.add(replica);
		return replica;
	}

}
