package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import io.leaderelection.LeaderStatus;
import io.leaderelection.RevocationCause;
import io.leaderelection.StepDown;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The election algorithm on virtual time against an in-memory Lease with optimistic locking:
 * client-go's timings (15s / 10s / 2s), several replicas, faults per replica.
 */
class ElectionEngineTests {

	private static final Duration LEASE_DURATION = Duration.ofSeconds(15);

	private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);

	private static final Duration RETRY_PERIOD = Duration.ofSeconds(2);

	private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(20);

	private static final ElectionSettings ELECTION = new ElectionSettings("default", "test", "lease", LEASE_DURATION,
			RENEW_DEADLINE, RETRY_PERIOD).renewingEvery(RETRY_PERIOD);

	private final VirtualTime time = new VirtualTime();

	private final InMemoryLeases leases = new InMemoryLeases();

	// ---- renewing

	@Test
	void theGateClosesAtTheDeadlineEvenWhenTheSchedulerNeverRuns() {
		Replica a = leader("a");
		long acquiredAt = this.time.nanoTime();
		// No task runs from here on: a paused or blocked loop must not keep the gate open.
		long deadline = acquiredAt + RENEW_DEADLINE.toNanos();
		this.time.pauseUntil(deadline - 1);
		assertThat(a.engine.isLeader()).isTrue();
		this.time.pauseUntil(deadline);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.engine.status("default").leader()).isFalse();
		assertThat(a.engine.status("default").fencingToken()).isNull();
		assertThat(a.engine.status("default").fencingTokenSource()).isNull();
	}

	@Test
	void healthTellsHowLongCallsHaveFailedAndWhenALeaderIsStuckPastItsDeadline() {
		Replica a = leader("a");
		ElectionHealth healthy = a.engine.health("default");
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(healthy.failingFor()).isZero();
		assertThat(healthy.pastDeadlineFor()).isZero();
		assertThat(healthy.loopStalled()).isFalse();
		a.connection.failRequests();
		this.time.advance(Duration.ofSeconds(20));
		ElectionHealth failing = a.engine.health("default");
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(failing.failingFor()).isBetween(Duration.ofSeconds(17), Duration.ofSeconds(20));
		assertThat(failing.lastError()).contains("500");
		assertThat(failing.pastDeadlineFor()).isZero();
		a.connection.heal();
		this.time.advance(Duration.ofSeconds(3));
		assertThat(a.engine.health("default").failingFor()).isZero();
		long renewed = this.time.nanoTime();
		this.time.pauseUntil(renewed + Duration.ofSeconds(30).toNanos());
		ElectionHealth stuck = a.engine.health("default");
		assertThat(stuck.pastDeadlineFor()).isPositive();
		assertThat(stuck.loopStalled()).isTrue();
	}

	@Test
	void aCandidateThatCanReadButNotWriteKeepsFailing() {
		Replica a = replica("a");
		a.connection.failWrites();
		a.start();
		// the Lease is missing: it is created without holder after every read, and fails
		this.time.advance(LEASE_DURATION.multipliedBy(3));
		ElectionHealth health = a.engine.health("default");
		assertThat(health.failingFor()).isGreaterThan(LEASE_DURATION);
		assertThat(health.lastError()).startsWith("create Lease test/lease: 500");
		assertThat(a.engine.status("default").lastError()).isEqualTo(health.lastError());
		assertThat(this.leases.stored()).isNull();
		a.connection.heal();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(a.engine.health("default").failingFor()).isZero();
		assertThat(a.engine.status("default").lastError()).isNull();
		assertThat(this.leases.stored().hasHolder()).isFalse();
		this.time.advance(LEASE_DURATION);
		assertThat(a.engine.isLeader()).isTrue();
	}

	@Test
	void aFollowerWhoseReadsWorkAgainIsHealthyAtOnce() {
		Replica a = leader("a");
		Replica b = replica("b");
		b.connection.failRequests();
		follower(b);
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		assertThat(b.engine.health("default").failingFor()).isGreaterThan(LEASE_DURATION);
		assertThat(b.engine.status("default").lastError()).startsWith("get Lease test/lease: 500");
		b.connection.heal();
		this.time.advance(RETRY_PERIOD.multipliedBy(12).dividedBy(10));
		assertThat(b.engine.status("default").holderIdentity()).isEqualTo("a");
		assertThat(b.engine.status("default").lastError()).isNull();
		assertThat(b.engine.health("default").failingFor()).isZero();
		assertThat(a.engine.isLeader()).isTrue();
	}

	@Test
	void everyRenewalReportsItsOutcomeAndHowLongItTookButAcquiringDoesNot() {
		Replica a = leader("a");
		assertThat(a.renewals).isEmpty();
		this.time.advance(RETRY_PERIOD);
		assertThat(a.renewals).containsExactly("success PT0S");
		a.connection.failRequests();
		this.time.advance(RETRY_PERIOD);
		assertThat(a.renewals).containsExactly("success PT0S", "failure PT0S");
		a.connection.heal();
		this.time.advance(RETRY_PERIOD);
		assertThat(a.renewals).containsExactly("success PT0S", "failure PT0S", "success PT0S");
		// The next renewals get no answer: each times out leaving a retry period, or half of what
		// is left before the gate closes (8 s), and the next is sent at once, until too little is
		// left to be of use.
		a.connection.blackHole();
		this.time.advance(RENEW_DEADLINE);
		assertThat(a.renewals).containsExactly("success PT0S", "failure PT0S", "success PT0S", "failure PT6S",
				"failure PT1S", "failure PT0.5S", "failure PT0.25S", "failure PT0.125S");
		assertThat(a.events).last().isEqualTo("revoked RENEW_DEADLINE_PASSED");
	}

	// ---- a missing Lease is a state like any other

	@Test
	void aLeaseDeletedUnderACutOffLeaderIsNotCreatedByAWatchingFollowerWhileTheLeaderMayLead() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.advance(Duration.ofSeconds(1));
		a.connection.blackHole();
		this.leases.delete();
		assertTakesOverALeaseDurationAfter(this.time.nanoTime(), a, b);
	}

	@Test
	void aFollowerHandlesWatchEventsInTheOrderTheyCameWhicheverThreadsRunThem() {
		leader("a");
		Replica b = follower(replica("b"));
		this.time.runSimultaneousTasksLastFirst();

		this.leases.delete();
		this.leases.edit((none) -> LeaseRecord.of("c", 15, wallNow(), wallNow(), 0));
		this.time.runDue();

		assertThat(b.engine.status("default").holderIdentity()).isEqualTo("c");
	}

	@Test
	void aLeaseDeletedAndCreatedAgainWithoutHolderUnderACutOffLeaderIsNotTakenWhileTheLeaderMayLead() {
		Replica a = leader("a");
		Replica watching = follower(replica("b"));
		Replica polling = replica("c");
		polling.connection.allowWatching(false);
		follower(polling);
		this.time.advance(Duration.ofSeconds(1));
		a.connection.blackHole();
		// a tool deletes the Lease and applies it again, empty but for a release's fields
		this.leases.delete();
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 0));
		long recreatedAt = this.time.nanoTime();
		awaitNewLeader(List.of(a, watching, polling), a.token());
		assertThat(this.time.nanoTime() - recreatedAt).isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
	}

	@Test
	void aLeaseWithoutHolderThatWasNotReleasedIsTakenOnlyOnceUnchangedForALeaseDuration() {
		// no times, no duration: written by hand or a tool, not by a holder releasing it
		this.leases.edit((none) -> LeaseRecord.of("", null, null, null, null));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		long firstSeen = this.time.nanoTime();
		assertLeadsFirstALeaseDurationAfter(firstSeen, a);
	}

	// ---- fencing tokens

	@Test
	void fencingTokensRiseAcrossDeletionAndRecreationOfTheLease() {
		Replica a = leader("a");
		long first = a.token();
		a.engine.stop(false);
		this.time.runDue();
		this.leases.delete();
		// a replica that never saw the Lease before creates it anew
		Replica c = replica("c");
		c.start();
		this.time.advance(LEASE_DURATION);
		assertThat(c.engine.isLeader()).isTrue();
		assertThat(this.leases.stored().leaseTransitions()).isOne();
		assertThat(c.token()).isGreaterThan(first);
	}

	@Test
	void whereResourceVersionsAreNotIntegersTheTokenIsLeaseTransitionsAndTheStatusSaysSo() {
		this.leases.useOpaqueVersions();
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 6));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		LeaderStatus status = a.engine.status("default");
		assertThat(status.leader()).isTrue();
		assertThat(this.leases.stored().resourceVersion()).startsWith("v");
		assertThat(status.fencingToken()).isEqualTo(7);
		assertThat(status.fencingTokenSource()).isEqualTo(LeaderStatus.LEASE_TRANSITIONS);
	}

	@Test
	void fencingTokensStrictlyIncreaseOverHandoversAndDeletionsAndGatesNeverOverlap() {
		List<Replica> replicas = Stream.of("a", "b", "c").map(this::replica).toList();
		replicas.forEach(Replica::start);
		List<Long> tokens = new ArrayList<>();
		Random random = new Random(7);
		Replica leader = awaitNewLeader(replicas, -1);
		tokens.add(leader.token());
		for (int handover = 0; handover < 40; handover++) {
			long previousToken = leader.token();
			switch (random.nextInt(5)) {
				case 0 -> leader.engine.stepDown("default");
				case 1 -> leader.connection.blackHole();
				case 2 -> {
					leader.engine.stop(true);
					leader.engine.start();
				}
				case 3 -> this.leases.delete();
				default -> {
					leader.connection.blackHole();
					this.leases.delete();
				}
			}
			Replica previous = leader;
			leader = awaitNewLeader(replicas, previousToken);
			previous.connection.heal();
			tokens.add(leader.token());
		}
		assertThat(tokens).hasSize(41).isSorted().doesNotHaveDuplicates();
	}

	// ---- releasing: only once the leader work has ended

	@Test
	void stoppingReleasesTheLeaseAfterClosingTheGateAndAPollingFollowerTakesItAtItsNextAttempt() {
		Replica a = leader("a");
		Replica b = replica("b");
		b.connection.allowWatching(false);
		follower(b);
		this.time.advance(Duration.ofSeconds(3));
		a.onRevoked = () -> assertThat(a.engine.isLeader()).isFalse();
		a.engine.stop(true);
		this.time.runDue();
		assertThat(a.events).last().isEqualTo("revoked SHUTDOWN");
		LeaseRecord released = this.leases.stored();
		assertThat(released.hasHolder()).isFalse();
		assertThat(released.leaseDurationSeconds()).isEqualTo(1);
		assertThat(released.leaseTransitions()).isOne();
		this.time.advance(RETRY_PERIOD.multipliedBy(12).dividedBy(10));
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(b.token()).isGreaterThan(a.lastToken());
	}

	@Test
	void aWatchingFollowerTakesAReleasedLeaseAtOnce() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.advance(Duration.ofSeconds(3));
		this.leases.clearRequests();
		a.engine.stop(true);
		this.time.runDue();
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(this.leases.requests()).containsExactly("a update", "b update");
	}

	@Test
	void steppingDownReleasesAndStaysOutForALeaseDuration() {
		Replica a = leader("a");
		long steppedDownAt = this.time.nanoTime();
		StepDown stepDown = a.engine.stepDown("default", Duration.ZERO);
		assertThat(stepDown.release()).isEqualTo(StepDown.Release.WAITING_FOR_CALLS);
		assertThat(stepDown.callsUnderWay()).isEmpty();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().hasHolder()).isFalse();
		assertThat(a.engine.stepDown("default", Duration.ZERO).release()).isEqualTo(StepDown.Release.NOT_LEADER);
		this.time.advanceTo(steppedDownAt + LEASE_DURATION.toNanos() - 1);
		assertThat(a.engine.isLeader()).isFalse();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).hasSize(3).element(1).isEqualTo("revoked STEPPED_DOWN");
	}

	@Test
	void aStepDownReleasesOnlyOnceTheCallsUnderWayHaveEndedAndRenewsMeanwhile() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		LeaderCalls.Call call = a.calls.enter("default", false, "job-1");
		assertThat(a.engine.isLeader()).isTrue();
		StepDown stepDown = a.engine.stepDown("default", Duration.ZERO);
		assertThat(stepDown.release()).isEqualTo(StepDown.Release.WAITING_FOR_CALLS);
		assertThat(stepDown.callsUnderWay()).singleElement().asString().startsWith("job-1 on thread ");
		assertThat(a.engine.isLeader()).isFalse();
		String renewedBefore = this.leases.stored().resourceVersion();
		for (int i = 0; i < 19_000; i++) {
			this.time.advance(Duration.ofMillis(1));
			assertThat(b.engine.isLeader()).as("b leads while a's call runs").isFalse();
		}
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(this.leases.stored().resourceVersion()).isNotEqualTo(renewedBefore);
		call.exit();
		this.time.runDue();
		assertThat(a.engine.health("default").lastRelease().release()).isEqualTo(StepDown.Release.WRITTEN);
		// the watching follower took the release at once
		assertThat(b.engine.isLeader()).isTrue();
	}

	@Test
	void aStepDownWhoseCallsOutlastTheDrainTimeoutLeavesTheLeaseToExpire() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		a.calls.enter("default", false, "never-ends");
		a.engine.stepDown("default");
		this.time.advance(DRAIN_TIMEOUT);
		StepDown outcome = a.engine.health("default").lastRelease();
		assertThat(outcome.release()).isEqualTo(StepDown.Release.NOT_WRITTEN);
		assertThat(outcome.detail()).startsWith("1 leader-only call(s) still running after the drain timeout");
		assertThat(outcome.callsUnderWay()).singleElement().asString().startsWith("never-ends");
		LeaseRecord lastRenewal = this.leases.stored();
		assertThat(lastRenewal.holderIdentity()).isEqualTo("a");
		// no more renewals: followers take over a lease duration after the last one
		long takenAt = -1;
		for (int step = 0; step < 20_000 && takenAt < 0; step++) {
			this.time.advance(Duration.ofMillis(1));
			if (b.engine.isLeader()) {
				takenAt = this.time.nanoTime();
			}
			else {
				assertThat(this.leases.stored()).isEqualTo(lastRenewal);
			}
		}
		assertThat(takenAt).isPositive();
		assertThat(a.engine.isLeader()).isFalse();
	}

	@Test
	void stoppingWaitsForTheCallsUnderWayBeforeReleasing() {
		Replica a = leader("a");
		LeaderCalls.Call call = a.calls.enter("default", false, "job");
		CompletableFuture<Void> stopped = a.engine.stop(true);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.calls.enter("default", false, "late")).isNull();
		this.time.advance(Duration.ofSeconds(10));
		assertThat(stopped).isNotDone();
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		call.exit();
		this.time.runDue();
		assertThat(stopped).isDone();
		assertThat(this.leases.stored().hasHolder()).isFalse();
	}

	@Test
	void aStopWithNothingToWaitForReleasesWhateverTheDrainTimeout() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 0));
		// listeners and gated work run later, as on the callback threads, and nothing may be waited for
		ElectionRuntime deferred = new ElectionRuntime(this.time, this.time, this.time.wallClock(Duration.ZERO),
				(task) -> this.time.schedule(task, 0), new Random(1));
		Replica a = new Replica("a", this.leases.connect("a"), deferred, LeaderWork.NONE, (connection) -> connection,
				Duration.ZERO);
		a.start();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isTrue();
		CompletableFuture<Void> stopped = a.engine.stop(true);
		this.time.runDue();
		assertThat(stopped).isDone();
		assertThat(a.engine.health("default").lastRelease().release()).isEqualTo(StepDown.Release.WRITTEN);
		assertThat(this.leases.stored().hasHolder()).isFalse();
	}

	@Test
	void gatedWorkIsNotStartedWhenItsGateClosedBeforeTheWorkLaneGotToIt() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 0));
		// the callback threads are held, as in a pause of the process or behind a stop that blocks
		List<Runnable> held = new ArrayList<>();
		ElectionRuntime heldCallbacks = new ElectionRuntime(this.time, this.time, this.time.wallClock(Duration.ZERO),
				held::add, new Random(1));
		List<String> work = new ArrayList<>();
		LeaderWork recorded = new LeaderWork() {
			@Override
			public void start(String election) {
				work.add("start");
			}

			@Override
			public void stop(String election) {
				work.add("stop");
			}
		};
		Replica a = new Replica("a", this.leases.connect("a"), heldCallbacks, recorded, (connection) -> connection);
		a.start();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isTrue();
		a.connection.blackHole();
		this.time.advance(RENEW_DEADLINE);
		assertThat(a.engine.isLeader()).isFalse();

		while (!held.isEmpty()) {
			held.remove(0).run();
		}

		assertThat(work).as("neither started after its gate closed nor stopped without a start").isEmpty();
	}

	@Test
	void stoppingRightAfterASteppingDownWaitsForItsRelease() {
		Replica a = leader("a");
		a.connection.blackHole();
		a.engine.stepDown("default");
		CompletableFuture<Void> stopped = a.engine.stop(true);
		this.time.advance(RENEW_DEADLINE.minusMillis(1));
		assertThat(stopped).isNotDone();
		this.time.advance(Duration.ofMillis(1));
		assertThat(stopped).isDone();
	}

	@Test
	void stoppingWithoutReleaseLeavesTheLeaseToExpire() {
		Replica a = leader("a");
		a.engine.stop(false);
		this.time.runDue();
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(a.events).last().isEqualTo("revoked SHUTDOWN");
	}

	@Test
	void stoppingWhileAClaimIsOnItsWayReleasesTheLeaseTheClaimWon() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 2));
		Replica b = replica("b");
		this.leases.beforeNextWrite(b.connection::holdAnswers);
		b.start();
		this.time.runDue();
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("b");
		CompletableFuture<Void> stopped = b.engine.stop(true);
		this.time.runDue();
		assertThat(stopped).isNotDone();
		b.connection.deliverAnswers();
		this.time.runDue();
		assertThat(stopped).isDone();
		assertThat(this.leases.stored().hasHolder()).isFalse();
		assertThat(b.events).isEmpty();
	}

	@Test
	void aClaimWonWhileStoppingIsReleasedOnlyOnceTheCallsStillUnderWayHaveEnded() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 2));
		Replica b = replica("b");
		this.leases.beforeNextWrite(b.connection::holdAnswers);
		b.start();
		this.time.runDue();
		// a leader-only call of a term lost before, still running
		LeaderCalls.Call call = b.calls.enter("default", false, "job");
		CompletableFuture<Void> stopped = b.engine.stop(true);
		b.connection.deliverAnswers();
		this.time.advance(RETRY_PERIOD);
		assertThat(this.leases.stored().holderIdentity()).as("not released under the call").isEqualTo("b");
		assertThat(stopped).isNotDone();

		call.exit();
		this.time.runDue();

		assertThat(stopped).isDone();
		assertThat(this.leases.stored().hasHolder()).isFalse();
		assertThat(b.events).isEmpty();
	}

	@Test
	void aStepDownWhileAClaimIsOnItsWayIsHonoured() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 2));
		Replica b = replica("b");
		this.leases.beforeNextWrite(b.connection::holdAnswers);
		b.start();
		this.time.runDue();
		long steppedDownAt = this.time.nanoTime();
		b.engine.stepDown("default");
		b.connection.deliverAnswers();
		this.time.runDue();
		assertThat(b.engine.isLeader()).isFalse();
		assertThat(b.events).isEmpty();
		assertThat(this.leases.stored().hasHolder()).isFalse();
		assertThat(b.engine.health("default").lastRelease().release()).isEqualTo(StepDown.Release.WRITTEN);
		this.time.advanceTo(steppedDownAt + LEASE_DURATION.toNanos() - 1);
		assertThat(b.engine.isLeader()).isFalse();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(b.engine.isLeader()).isTrue();
	}

	@Test
	void startingAgainWaitsForTheReleaseOnItsWayAndItNeverFreesTheNewTerm() {
		Replica a = leader("a");
		long firstToken = a.token();
		a.connection.holdAnswers();
		this.leases.clearRequests();
		a.engine.stop(true);
		this.time.runDue();
		a.engine.start();
		this.time.advance(RETRY_PERIOD.multipliedBy(3));
		// nothing but the release was sent while its answer is on its way
		assertThat(this.leases.requests()).containsExactly("a update");
		assertThat(this.leases.stored().hasHolder()).isFalse();
		a.connection.deliverAnswers();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.token()).isGreaterThan(firstToken);
		this.time.advance(LEASE_DURATION);
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(a.engine.isLeader()).isTrue();
	}

	@Test
	void aTermLostWhileItsCallsRunIsNotTakenAgainAtOnceFromItsOwnLastWrite() {
		Replica a = leader("a");
		a.calls.enter("default", false, "long-job");
		// renewals are written but never answered: the gate closes at the renew deadline
		a.connection.dropAnswers();
		// the link heals the moment the gate closes: the next read finds the last renewal written
		a.onRevoked = a.connection::heal;
		this.time.advance(RENEW_DEADLINE.plus(Duration.ofMillis(1)));
		assertThat(a.events).last().isEqualTo("revoked RENEW_DEADLINE_PASSED");
		LeaseRecord lastWrite = this.leases.stored();
		assertThat(lastWrite.holderIdentity()).isEqualTo("a");
		long writtenAt = this.time.nanoTimeAt(lastWrite.renewTime());
		while (!a.engine.isLeader()) {
			this.time.advance(Duration.ofMillis(1));
		}
		// like any successor, only once its last write was unchanged for a lease duration
		assertThat(this.time.nanoTime() - writtenAt).isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
		assertThat(a.engine.health("default").identityConflict()).isNull();
	}

	@Test
	void aReleaseThatConflictsWithAnotherProcessWritingOurIdentityLeavesThatTermAlone() {
		Replica a = leader("a");
		Instant later = wallNow().plusSeconds(5);
		// someone else writes a new term under our identity just before our release
		this.leases.beforeNextWrite(() -> this.leases.edit((held) -> LeaseRecord.of("a", 15, later, later, 9)));
		a.engine.stop(true);
		this.time.runDue();
		assertThat(a.engine.health("default").lastRelease().release()).isEqualTo(StepDown.Release.NOT_WRITTEN);
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(this.leases.stored().acquireTime()).isEqualTo(later);
	}

	@Test
	void aReleaseAfterAConflictFromALabelEditStillReleasesTheSameTerm() {
		Replica a = leader("a");
		this.leases.beforeNextWrite(() -> this.leases.edit((held) -> held));
		a.engine.stop(true);
		this.time.runDue();
		assertThat(a.engine.health("default").lastRelease().release()).isEqualTo(StepDown.Release.WRITTEN);
		assertThat(this.leases.stored().hasHolder()).isFalse();
	}

	@Test
	void aReleaseStepThatThrowsStillEndsTheStop() {
		Replica a = leader("a", (connection) -> new ForwardingLeaseStore(connection) {
			@Override
			public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
				// an answer the engine cannot read: no record at all
				return record.hasHolder() ? super.update(record, timeout) : CompletableFuture.completedFuture(null);
			}
		});
		CompletableFuture<Void> stopped = a.engine.stop(true);
		this.time.runDue();
		assertThat(stopped).isDone();
		assertThat(a.engine.health("default").lastRelease().release()).isEqualTo(StepDown.Release.NOT_WRITTEN);
	}

	// ---- one identity, one writer

	@Test
	void aLeaseNamingUsThatThisProcessDidNotWriteIsHeldBySomeoneElse() {
		this.leases.edit((none) -> LeaseRecord.of("a", 15, wallNow(), wallNow(), 3));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		long firstSeen = this.time.nanoTime();
		assertLeadsFirstALeaseDurationAfter(firstSeen, a);
		assertThat(a.engine.health("default").identityConflict()).isNull();
	}

	@Test
	void twoReplicasGivenOneIdentityNeverLeadAtOnceAndTheOneKeptOutSaysWhy() {
		Replica first = leader("a");
		Replica second = replica("a", "a-second-process", Duration.ofNanos(7_000));
		second.start();
		for (int step = 0; step < 60_000; step++) {
			this.time.advance(Duration.ofMillis(1));
			assertThat(first.engine.isLeader() && second.engine.isLeader()).as("both lead at step %d", step).isFalse();
		}
		assertThat(first.engine.isLeader()).isTrue();
		assertThat(second.events).isEmpty();
		assertThat(second.engine.health("default").identityConflict())
			.startsWith("another process writes Lease test/lease as 'a'");
	}

	@Test
	void ofTwoProcessesOfOneIdentityClaimingTheSameMicrosecondTheRefusedOneNeverTakesTheOthersWriteForItsOwn() {
		Replica a = leader("a");
		Replica first = follower(replica("b", "b-first-process", Duration.ZERO));
		Replica second = follower(replica("b", "b-second-process", Duration.ZERO));

		a.engine.stepDown("default");
		for (int step = 0; step < 60_000; step++) {
			this.time.advance(Duration.ofMillis(1));
			assertThat(first.engine.isLeader() && second.engine.isLeader()).as("both lead at step %d", step).isFalse();
		}
		assertThat(first.engine.isLeader() || second.engine.isLeader()).isTrue();
	}

	@Test
	void aLeaderThatFindsAnotherProcessWritingItsIdentityClosesItsGateAndKeepsOut() {
		Replica first = leader("a");
		first.connection.blackHole();
		Replica second = replica("a", "a-second-process", Duration.ofNanos(7_000));
		second.start();
		awaitNewLeader(List.of(first, second), first.token());
		assertThat(second.engine.isLeader()).isTrue();
		first.connection.heal();
		for (int step = 0; step < 60_000; step++) {
			this.time.advance(Duration.ofMillis(1));
			assertThat(first.engine.isLeader()).as("the first process leads again at step %d", step).isFalse();
		}
		assertThat(second.engine.isLeader()).isTrue();
		assertThat(first.engine.health("default").identityConflict())
			.startsWith("another process writes Lease test/lease as 'a'");
	}

	@Test
	void aLeaderThatReadsAVersionUnderItsIdentityThatItDidNotWriteClosesItsGateAndKeepsOut() {
		Replica a = leader("a");
		Instant elsewhere = wallNow().plusMillis(1);
		// another process, given the same identity, writes the Lease while this one leads
		this.leases.edit((held) -> held.rewrite("a", 15, elsewhere, elsewhere, held.transitions() + 1));
		this.time.advance(RETRY_PERIOD);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.events).last().isEqualTo("revoked IDENTITY_CONFLICT");
		assertThat(a.engine.health("default").identityConflict())
			.startsWith("another process writes Lease test/lease as 'a'");
	}

	@Test
	void aClaimWhoseAnswerWasLostIsReadBackAndLedFromWhenItWasSentWithoutWritingAgain() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 2));
		Replica b = replica("b");
		this.leases.beforeNextWrite(b.connection::dropNextAnswer);
		b.start();
		this.time.runDue();
		LeaseRecord claimed = this.leases.stored();
		assertThat(claimed.holderIdentity()).isEqualTo("b");
		assertThat(b.engine.isLeader()).isFalse();
		// the claim times out a retry period before the renew deadline; the next read finds the
		// version it wrote, known by its renewTime, and leads on it until the deadline runs out
		// from when the claim was sent, renewing at once
		this.time.advance(RENEW_DEADLINE.minus(RETRY_PERIOD).plus(RETRY_PERIOD.multipliedBy(12).dividedBy(10)));
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(b.token()).isEqualTo(Long.parseLong(claimed.resourceVersion()));
		assertThat(b.engine.health("default").identityConflict()).isNull();
		// the read back is followed by the first renewal, not by another claim
		assertThat(this.leases.requests()).startsWith("b get", "b watch", "b update", "b get", "b update");
		assertThat(b.renewals).first().isEqualTo("success PT0S");
		this.time.advance(LEASE_DURATION);
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(b.events).hasSize(1);
	}

	@Test
	void aClaimWhoseAnswerCameTooLateForItsGateIsClaimedAgainAtOnce() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 2));
		Replica b = replica("b");
		this.leases.beforeNextWrite(b.connection::dropNextAnswer);
		// reads fail until the renew deadline after the claim has passed
		b.start();
		this.time.runDue();
		LeaseRecord claimed = this.leases.stored();
		b.connection.failRequests();
		this.time.advance(RENEW_DEADLINE);
		b.connection.heal();
		this.time.advance(RETRY_PERIOD.multipliedBy(12).dividedBy(10));
		// the version is ours, written since no term ended: claimed again at once, not after it expired
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(b.token()).isGreaterThan(Long.parseLong(claimed.resourceVersion()));
	}

	// ---- what is written and what is believed

	@Test
	void aStaleVersionFromALaggingWatchNeverReplacesANewerOne() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		LeaseRecord old = this.leases.stored();
		this.time.advance(Duration.ofSeconds(5));
		Instant renewed = this.leases.stored().renewTime();
		this.leases.replayToWatchers(old);
		this.time.runDue();
		assertThat(b.engine.status("default").renewTime()).isEqualTo(renewed);
		assertThat(a.engine.isLeader()).isTrue();
	}

	// ---- watching

	@Test
	void anIdleWatchingFollowerSendsNoRequestWhileTheLeaderRenews() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.advance(Duration.ofSeconds(1));
		this.leases.clearRequests();
		this.time.advance(Duration.ofMinutes(10));
		assertThat(this.leases.requests()).hasSize(300).allMatch("a update"::equals);
		assertThat(b.connection.openWatches()).isOne();
		assertThat(a.connection.openWatches()).isZero();
	}

	@Test
	void aFollowerPollsUntilItsWatchIsOpenSoThatAReleaseMeanwhileIsTakenAtOnce() {
		Replica a = leader("a");
		Replica b = replica("b");
		b.connection.holdWatchConfirmations();
		follower(b);
		this.time.advance(Duration.ofSeconds(3));
		a.engine.stop(true);
		this.time.runDue();
		this.time.advance(RETRY_PERIOD.multipliedBy(12).dividedBy(10));
		assertThat(b.engine.isLeader()).isTrue();
	}

	@Test
	void aFollowerReadsOnceWhenItsWatchIsConfirmedAndThenStopsPolling() {
		leader("a");
		Replica b = replica("b");
		b.connection.holdWatchConfirmations();
		follower(b);
		this.time.advance(RETRY_PERIOD.multipliedBy(5));
		assertThat(this.leases.requests().stream().filter("b get"::equals).count()).isGreaterThan(3);
		this.leases.clearRequests();
		b.connection.confirmWatches();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(this.leases.requests()).containsOnlyOnce("b get").allMatch((request) -> !request.startsWith("b ")
				|| request.equals("b get"));
	}

	@Test
	void aWatchingFollowerOfALiveLeaderIsNotStalled() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.advance(LEASE_DURATION.multipliedBy(4));
		assertThat(b.connection.openWatches()).isOne();
		ElectionHealth health = b.engine.health("default");
		assertThat(health.sinceLastAttempt()).isLessThanOrEqualTo(RETRY_PERIOD);
		assertThat(health.loopStalled()).isFalse();
		assertThat(a.engine.isLeader()).isTrue();
	}

	@Test
	void aWatchingFollowerTakesALeaseThatStoppedChangingAtItsExpiry() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.advance(Duration.ofSeconds(1));
		a.connection.blackHole();
		long lastRenewal = this.time.nanoTime() - Duration.ofSeconds(1).toNanos();
		awaitNewLeader(List.of(a, b), a.token());
		// b saw a's last renewal when it was written and took over one lease duration later.
		assertThat(this.time.nanoTime() - lastRenewal).isEqualTo(LEASE_DURATION.toNanos());
	}

	@Test
	void aFollowerWhoseWatchEndsAfterWorkingForARetryPeriodReadsAndWatchesAgainAtOnce() {
		// as a real API server ends a watch at its request timeout, or answers its reconnection 410 Gone
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.advance(RETRY_PERIOD);
		assertThat(b.connection.openWatches()).isOne();
		this.leases.clearRequests();
		b.connection.endWatches();
		this.time.runDue();
		// read, watched, and read once more for what changed while the watch was opening
		assertThat(this.leases.requests()).containsExactly("b get", "b watch", "b get");
		assertThat(b.connection.openWatches()).isOne();
		a.engine.stop(true);
		this.time.runDue();
		assertThat(b.engine.isLeader()).isTrue();
	}

	@Test
	void aFollowerWhoseWatchEndsSoonAfterItOpenedPollsAndWatchesAgainAfterABackoff() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.runDue();
		assertThat(b.connection.openWatches()).isOne();
		this.leases.clearRequests();
		b.connection.endWatches();
		this.time.advance(RETRY_PERIOD.multipliedBy(12).dividedBy(10));
		assertThat(this.leases.requests()).contains("b get", "b watch");
		assertThat(b.connection.openWatches()).isOne();
		a.engine.stop(true);
		this.time.runDue();
		assertThat(b.engine.isLeader()).isTrue();
	}

	@Test
	void aCandidateWhoseWatchIsRefusedStillLeadsAndFollowsByPolling() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 0));
		Replica a = replica("a");
		a.connection.refuseWatches();
		a.start();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.engine.status("default").lastError()).isNull();
		Replica b = replica("b");
		b.connection.refuseWatches();
		follower(b);
		a.engine.stop(true);
		this.time.advance(RETRY_PERIOD.multipliedBy(12).dividedBy(10));
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(b.engine.health("default").failingFor()).isZero();
	}

	@Test
	void aFollowerThatCannotWatchPollsEveryRetryPeriod() {
		leader("a");
		Replica b = replica("b");
		b.connection.allowWatching(false);
		follower(b);
		this.time.runDue();
		this.leases.clearRequests();
		this.time.advance(Duration.ofMinutes(1));
		long polls = this.leases.requests().stream().filter("b get"::equals).count();
		assertThat(polls).isBetween(25L, 30L);
	}

	// ---- spec.preferredHolder

	@Test
	void aLeaderFinishesItsTermWhenAnotherCandidateIsPreferredAndLeavesItThePreference() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.leases.edit((held) -> preferring(held, "b"));
		this.time.advance(RETRY_PERIOD);
		this.time.runDue();
		assertThat(a.events).last().isEqualTo("revoked PREFERRED_HOLDER");
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(this.leases.stored().preferredHolder()).isEqualTo("b");
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().preferredHolder()).isEqualTo("b");
	}

	@Test
	void aFreeLeasePreferringAnotherCandidateIsLeftToItForALeaseDurationAndNotGivenUpAfterwards() {
		this.leases.edit((none) -> preferring(LeaseRecord.of("", 1, wallNow(), wallNow(), 2), "elsewhere"));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		long firstSeen = this.time.nanoTime();
		this.time.advanceTo(firstSeen + LEASE_DURATION.toNanos() - 1);
		assertThat(a.engine.isLeader()).isFalse();
		this.time.advance(Duration.ofMillis(1));
		assertThat(a.engine.isLeader()).isTrue();
		// the preference predates this term: it is not given up again and again
		this.time.advance(Duration.ofMinutes(1));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).hasSize(1);
	}

	// ---- gated work

	@Test
	void gatedWorkThatFailsToStartShowsInHealthUntilItStartsAtALaterGrant() {
		AtomicInteger starts = new AtomicInteger();
		LeaderWork failingOnce = new LeaderWork() {
			@Override
			public void start(String election) {
				if (starts.incrementAndGet() == 1) {
					throw new IllegalStateException("leader-only bean 'listener' failed to start: boom");
				}
			}
		};
		Replica a = leader("a", failingOnce);
		assertThat(a.engine.health("default").gatedWorkFailure())
			.isEqualTo("leader-only bean 'listener' failed to start: boom");
		a.engine.stepDown("default");
		this.time.advance(LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(starts).hasValue(2);
		assertThat(a.engine.health("default").gatedWorkFailure()).isNull();
	}

	// ---- helpers

	private static LeaseRecord preferring(LeaseRecord record, String preferredHolder) {
		return new LeaseRecord(record.holderIdentity(), record.leaseDurationSeconds(), record.acquireTime(),
				record.renewTime(), record.leaseTransitions(), preferredHolder, null, null, null);
	}

	/**
	 * Advances to just before a lease duration after the given moment, where the replica does not
	 * lead yet, then to that moment, where it does.
	 */
	private void assertLeadsFirstALeaseDurationAfter(long since, Replica replica) {
		this.time.advanceTo(since + LEASE_DURATION.toNanos() - 1);
		assertThat(replica.engine.isLeader()).isFalse();
		this.time.advanceTo(since + LEASE_DURATION.toNanos());
		assertThat(replica.engine.isLeader()).isTrue();
	}

	/**
	 * Advances, checking on every step that no two lead, until the successor takes over from
	 * the cut-off leader: no earlier than a lease duration after the given moment, with a higher
	 * fencing token.
	 */
	private void assertTakesOverALeaseDurationAfter(long since, Replica cutOff, Replica successor) {
		Replica next = awaitNewLeader(List.of(cutOff, successor), cutOff.token());
		assertThat(next).isSameAs(successor);
		assertThat(this.time.nanoTime() - since).isGreaterThanOrEqualTo(LEASE_DURATION.toNanos());
		assertThat(successor.token()).isGreaterThan(cutOff.lastToken());
	}

	/** Advances until exactly one replica leads with another token, checking on every step that no two lead. */
	private Replica awaitNewLeader(List<Replica> replicas, long previousToken) {
		for (int step = 0; step < 60_000; step++) {
			List<Replica> leaders = replicas.stream().filter((replica) -> replica.engine.isLeader()).toList();
			assertThat(leaders).as("leaders at %d", this.time.nanoTime()).hasSizeLessThanOrEqualTo(1);
			if (leaders.size() == 1 && leaders.get(0).token() != previousToken) {
				return leaders.get(0);
			}
			this.time.advance(Duration.ofMillis(1));
		}
		throw new AssertionError("no new leader within a minute");
	}

	/** A replica that starts on a released Lease (created when missing) and so leads at once. */
	private Replica leader(String identity) {
		return leader(identity, LeaderWork.NONE);
	}

	private Replica leader(String identity, LeaderWork work) {
		return started(new Replica(identity, this.leases.connect(identity), runtime(identity, Duration.ZERO), work,
				(connection) -> connection));
	}

	private Replica leader(String identity, UnaryOperator<LeaseStore> store) {
		return started(new Replica(identity, this.leases.connect(identity), runtime(identity, Duration.ZERO),
				LeaderWork.NONE, store));
	}

	private Replica started(Replica replica) {
		if (this.leases.stored() == null) {
			this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 0));
		}
		replica.start();
		this.time.runDue();
		assertThat(replica.engine.isLeader()).isTrue();
		return replica;
	}

	private Replica follower(Replica replica) {
		replica.start();
		this.time.runDue();
		return replica;
	}

	private Instant wallNow() {
		return this.time.wallClock(Duration.ZERO).instant();
	}

	private Replica replica(String identity) {
		return replica(identity, Duration.ZERO);
	}

	private Replica replica(String identity, Duration wallClockOffset) {
		return replica(identity, identity, wallClockOffset);
	}

	/** A replica with the given identity, talking through a connection of its own name. */
	private Replica replica(String identity, String connectionName, Duration wallClockOffset) {
		return new Replica(identity, this.leases.connect(connectionName), runtime(connectionName, wallClockOffset),
				LeaderWork.NONE, (connection) -> connection);
	}

	private ElectionRuntime runtime(String name, Duration wallClockOffset) {
		return new ElectionRuntime(this.time, this.time, this.time.wallClock(wallClockOffset), Runnable::run,
				new Random(name.hashCode()));
	}

	private static final class Replica implements ElectionListener {

		final InMemoryLeases.Connection connection;

		final LeaderCalls calls = new LeaderCalls();

		final ElectionEngine engine;

		final List<String> events = new ArrayList<>();

		final List<String> renewals = new ArrayList<>();

		long lastGateClosedAt;

		long lastToken = -1;

		Runnable onRevoked = () -> {
		};

		Replica(String identity, InMemoryLeases.Connection connection, ElectionRuntime runtime, LeaderWork work,
				UnaryOperator<LeaseStore> store) {
			this(identity, connection, runtime, work, store, DRAIN_TIMEOUT);
		}

		Replica(String identity, InMemoryLeases.Connection connection, ElectionRuntime runtime, LeaderWork work,
				UnaryOperator<LeaseStore> store, Duration drainTimeout) {
			this(identity, connection, runtime, work, store, drainTimeout, ELECTION);
		}

		Replica(String identity, InMemoryLeases.Connection connection, ElectionRuntime runtime, LeaderWork work,
				UnaryOperator<LeaseStore> store, Duration drainTimeout, ElectionSettings election) {
			this.connection = connection;
			LeaderWork gated = (work != LeaderWork.NONE) ? work : this.calls;
			this.engine = new ElectionEngine(identity, List.of(election), (settings) -> store.apply(connection),
					runtime, List.of(this), gated, drainTimeout);
		}

		void start() {
			this.engine.start();
		}

		/** The fencing token of the term held now, or -1. */
		long token() {
			Long token = this.engine.status("default").fencingToken();
			return (token != null) ? token : -1;
		}

		/** The fencing token of the last term granted. */
		long lastToken() {
			return this.lastToken;
		}

		@Override
		public void granted(String election, long fencingToken, long gateOpenedAt) {
			this.lastToken = fencingToken;
			this.events.add("granted " + fencingToken);
		}

		@Override
		public void revoked(String election, RevocationCause cause, long gateClosedAt) {
			this.onRevoked.run();
			this.lastGateClosedAt = gateClosedAt;
			this.events.add("revoked " + cause);
		}

		@Override
		public void renewed(String election, boolean success, long nanos) {
			this.renewals.add((success ? "success " : "failure ") + Duration.ofNanos(nanos));
		}

	}

}
