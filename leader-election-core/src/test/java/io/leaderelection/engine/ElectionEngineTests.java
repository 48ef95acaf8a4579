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

	// ---- acquiring

	@Test
	void aMissingLeaseIsCreatedWithoutHolderAtOnceAndClaimedOnceThatVersionWasUnchangedForALeaseDuration() {
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		long created = this.time.nanoTime();
		LeaseRecord free = this.leases.stored();
		assertThat(free.hasHolder()).isFalse();
		assertThat(free.looksReleased()).as("no holder's release: it is not taken at once").isFalse();
		assertThat(free.leaseDurationSeconds()).isEqualTo(15);
		assertThat(free.leaseTransitions()).isZero();
		this.time.advanceTo(created + LEASE_DURATION.toNanos() - 1);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().resourceVersion()).isEqualTo(free.resourceVersion());
		this.time.advanceTo(created + LEASE_DURATION.toNanos());
		assertThat(a.engine.isLeader()).isTrue();
		LeaseRecord stored = this.leases.stored();
		assertThat(stored.holderIdentity()).isEqualTo("a");
		assertThat(stored.leaseDurationSeconds()).isEqualTo(15);
		assertThat(stored.leaseTransitions()).isOne();
		assertThat(stored.acquireTime()).isEqualTo(stored.renewTime()).isNotNull();
		// read, watched, created; read once the watch is open and again when it is due; claimed
		assertThat(this.leases.requests()).containsExactly("a get", "a watch", "a create", "a get", "a get",
				"a update");
		assertThat(a.events).containsExactly("granted " + stored.resourceVersion());
		LeaderStatus status = a.engine.status("default");
		assertThat(status.fencingToken()).isEqualTo(Long.parseLong(stored.resourceVersion()));
		assertThat(status.fencingTokenSource()).isEqualTo(LeaderStatus.RESOURCE_VERSION);
	}

	// ---- following before campaigning

	@Test
	void aReplicaFollowingBeforeItCampaignsCreatesTheMissingLeaseAndClaimsItAtOnceWhenStartedAfterTheWait() {
		Replica a = replica("a");
		a.engine.follow();
		this.time.runDue();
		long created = this.time.nanoTime();
		LeaseRecord free = this.leases.stored();
		assertThat(free.hasHolder()).isFalse();
		this.time.advanceTo(created + 3 * LEASE_DURATION.toNanos());
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().resourceVersion()).as("following claims nothing")
			.isEqualTo(free.resourceVersion());
		assertThat(a.events).isEmpty();

		a.start();
		this.time.runDue();

		assertThat(a.engine.isLeader()).isTrue();
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(a.events).containsExactly("granted " + this.leases.stored().resourceVersion());
	}

	@Test
	void aReplicaStartedBeforeTheWaitEndsClaimsWhenItEndsNeitherSoonerNorLater() {
		Replica a = replica("a");
		a.engine.follow();
		this.time.runDue();
		long created = this.time.nanoTime();
		this.time.advanceTo(created + LEASE_DURATION.toNanos() / 2);

		a.start();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isFalse();
		assertLeadsFirstALeaseDurationAfter(created, a);
	}

	@Test
	void aFollowingReplicaNeitherTakesAReleasedLeaseNorLeadsOnAnExpiredOneUntilStarted() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 3));
		Replica a = replica("a");
		a.engine.follow();
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().holderIdentity()).isEmpty();

		a.start();
		this.time.runDue();

		assertThat(a.engine.isLeader()).isTrue();
	}

	@Test
	void aFollowerCutOffLeaderIsTakenOverOnlyOnceItsGateClosedWhenTheFollowerStartsLate() {
		Replica a = leader("a");
		Replica b = replica("b");
		b.engine.follow();
		this.time.runDue();
		a.connection.blackHole();
		long gateClosesBy = this.time.nanoTime() + RENEW_DEADLINE.toNanos();
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.lastGateClosedAt - gateClosesBy).isNotPositive();
		assertThat(b.engine.isLeader()).as("following, it claims nothing").isFalse();
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");

		b.start();
		this.time.runDue();

		assertThat(b.engine.isLeader()).isTrue();
		assertThat(b.lastToken()).isGreaterThan(a.lastToken());
	}

	@Test
	void aFollowingReplicaStoppedBeforeItCampaignsSendsNothingMoreAndClaimsAVersionStillUnchangedWhenStarted() {
		Replica a = replica("a");
		a.engine.follow();
		this.time.runDue();
		LeaseRecord free = this.leases.stored();
		a.engine.stop(false);
		this.leases.clearRequests();
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		assertThat(this.leases.requests()).isEmpty();

		a.start();
		this.time.runDue();

		// the same version read again has not changed since it was first seen
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(this.leases.requests()).containsSubsequence("a get", "a update");
		assertThat(this.leases.stored().leaseTransitions()).isEqualTo(free.leaseTransitions() + 1);
	}

	@Test
	void stoppingTheFollowingEndsItWithoutTouchingAnElectionThatCampaigns() {
		Replica a = replica("a");
		a.engine.follow();
		this.time.runDue();
		a.engine.stopFollowing();
		this.leases.clearRequests();
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		assertThat(this.leases.requests()).isEmpty();

		a.start();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isTrue();
		a.engine.stopFollowing();
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		assertThat(a.engine.isLeader()).as("a campaigning election is stopped by stop() alone").isTrue();
	}

	@Test
	void acquiresAnExpiredLeaseOnlyAfterSeeingItUnchangedForALeaseDuration() {
		this.leases.edit((none) -> LeaseRecord.of("gone", 15, wallNow(), wallNow(), 4));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		long firstSeen = this.time.nanoTime();
		assertThat(a.engine.isLeader()).isFalse();
		assertLeadsFirstALeaseDurationAfter(firstSeen, a);
		assertThat(a.events).containsExactly("granted " + this.leases.stored().resourceVersion());
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(this.leases.stored().leaseTransitions()).isEqualTo(5);
	}

	@Test
	void neverAcquiresWhileTheRecordKeepsChangingWhateverItsTimestampsSay() {
		Instant anHourAgo = wallNow().minus(Duration.ofHours(1));
		this.leases.edit((none) -> LeaseRecord.of("live", 15, anHourAgo, anHourAgo, 1));
		Replica a = replica("a");
		a.start();
		for (int second = 0; second < 10 * LEASE_DURATION.toSeconds(); second++) {
			this.time.advance(Duration.ofSeconds(1));
			// The live holder renews with the same ancient timestamps: only the version changes.
			this.leases.edit((live) -> live);
			assertThat(a.engine.isLeader()).isFalse();
		}
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("live");
		assertThat(a.events).isEmpty();
	}

	@Test
	void aReleasedLeaseIsTakenAtTheNextAttempt() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 3));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).containsExactly("granted " + this.leases.stored().resourceVersion());
		assertThat(this.leases.stored().leaseTransitions()).isEqualTo(4);
	}

	@Test
	void aCandidateWhoseWallClockIsAnHourAheadNeverRobsALiveLeader() {
		Replica a = leader("a");
		Replica skewed = replica("skewed", Duration.ofHours(1));
		skewed.start();
		this.time.advance(Duration.ofMinutes(5));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(skewed.events).isEmpty();
	}

	// ---- renewing

	@Test
	void renewingKeepsTheGateOpenWithOneWritePerRenewal() {
		Replica a = leader("a");
		this.leases.clearRequests();
		for (int i = 0; i < 100; i++) {
			this.time.advance(Duration.ofMillis(500));
			assertThat(a.engine.isLeader()).isTrue();
		}
		assertThat(this.leases.requests()).hasSize(25).allMatch("a update"::equals);
		assertThat(a.events).hasSize(1);
	}

	@Test
	void aLeaderRenewsEveryRenewPeriodWhileItsRenewalsSucceed() {
		Replica a = leader("a", Duration.ofSeconds(5));
		this.leases.clearRequests();
		for (int i = 0; i < 120; i++) {
			this.time.advance(Duration.ofMillis(500));
			assertThat(a.engine.isLeader()).isTrue();
		}
		assertThat(this.leases.requests()).hasSize(12).allMatch("a update"::equals);
		assertThat(a.events).hasSize(1);
	}

	@Test
	void aLeaderWhoseRenewalFailsRetriesEveryRetryPeriodAndItsGateStillClosesAtTheRenewDeadline() {
		Replica a = leader("a", Duration.ofSeconds(5));
		long acquiredAt = this.time.nanoTime();
		a.connection.failRequests();
		this.time.advanceTo(acquiredAt + RENEW_DEADLINE.toNanos() - 1);
		assertThat(a.engine.isLeader()).isTrue();
		// the renewal due at 5 s, then one every retry period: 7 s and 9 s
		assertThat(a.renewals).containsExactly("failure PT0S", "failure PT0S", "failure PT0S");
		this.time.advanceTo(acquiredAt + RENEW_DEADLINE.toNanos());
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.events).last().isEqualTo("revoked " + RevocationCause.RENEW_DEADLINE_PASSED);
	}

	@Test
	void aLeaderWhoseRenewalFailedOnceIsBackOnItsRenewPeriodAfterTheRetrySucceeds() {
		Replica a = leader("a", Duration.ofSeconds(5));
		long acquiredAt = this.time.nanoTime();
		a.connection.failRequests();
		this.time.advanceTo(acquiredAt + Duration.ofSeconds(6).toNanos());
		a.connection.heal();
		this.leases.clearRequests();
		// the retry at 7 s succeeds; the next renewals follow at 12 s and 17 s
		this.time.advanceTo(acquiredAt + Duration.ofSeconds(17).toNanos() - 1);
		assertThat(this.leases.requests()).containsExactly("a update", "a update");
		this.time.advanceTo(acquiredAt + Duration.ofSeconds(17).toNanos());
		assertThat(this.leases.requests()).hasSize(3);
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).hasSize(1);
	}

	@Test
	void aRenewalThatHangsClosesTheGateExactlyAtTheRenewDeadline() {
		Replica a = leader("a");
		this.time.advance(Duration.ofSeconds(5));
		long lastRenewStart = this.time.nanoTime() - Duration.ofSeconds(1).toNanos();
		assertThat(this.leases.requests()).last().isEqualTo("a update");
		a.connection.blackHole();
		long gateClosesAt = lastRenewStart + RENEW_DEADLINE.toNanos();
		this.time.advanceTo(gateClosesAt - 1);
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.engine.status("default").leader()).isTrue();
		this.time.advanceTo(gateClosesAt);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.events).last().isEqualTo("revoked RENEW_DEADLINE_PASSED");
		assertThat(a.lastGateClosedAt).isEqualTo(gateClosesAt);
		assertThat(a.connection.cancelledRequests()).isPositive();
		assertThat(a.engine.status("default").lastError()).contains("update Lease test/lease", "no answer");
	}

	@Test
	void aRenewalThatGetsNoAnswerTimesOutLeavingARetryPeriodSoThatAnotherAttemptFits() {
		Replica a = leader("a");
		this.time.advance(RETRY_PERIOD);
		assertThat(a.renewals).containsExactly("success PT0S");
		// the next renewal is written but its answer is lost: of the 8 s left it waits 6 s, and
		// the renewal sent at once after it succeeds
		a.connection.dropNextAnswer();
		for (int i = 0; i < 20_000; i++) {
			this.time.advance(Duration.ofMillis(1));
			assertThat(a.engine.isLeader()).as("leader at %d ms", i).isTrue();
		}
		// the renewal after it conflicts with its own lost write, which is read and known as ours
		assertThat(a.renewals).startsWith("success PT0S", "failure PT6S", "failure PT0S", "success PT0S");
		assertThat(a.events).hasSize(1);
		assertThat(a.engine.health("default").identityConflict()).isNull();
	}

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
	void aFailingRenewalIsRetriedWithinTheDeadline() {
		Replica a = leader("a");
		a.connection.failRequests();
		this.time.advance(Duration.ofSeconds(6));
		assertThat(a.engine.isLeader()).isTrue();
		a.connection.heal();
		this.time.advance(Duration.ofSeconds(30));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).hasSize(1);
		assertThat(a.engine.status("default").lastError()).isNull();
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

	@Test
	void aConflictOnRenewalFromAnotherHolderRevokes() {
		Replica a = leader("a");
		this.leases.edit((held) -> LeaseRecord.of("thief", 15, wallNow(), wallNow(), 1));
		this.time.advance(RETRY_PERIOD);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.events).last().isEqualTo("revoked LEASE_TAKEN");
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("thief");
		assertThat(this.leases.requests()).endsWith("a update", "a get");
	}

	@Test
	void aConflictOnRenewalFromAnEditThatKeptUsAsHolderRenewsAgain() {
		Replica a = leader("a");
		this.leases.edit((held) -> held);
		this.time.advance(RETRY_PERIOD);
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).hasSize(1);
		assertThat(this.leases.requests()).endsWith("a update", "a get", "a update");
	}

	@Test
	void aLeaseCreatedAgainWithOurOwnFieldsAfterARenewalsConflictEndsTheTermAsDeleted() {
		Replica a = leader("a");
		this.leases.beforeNextWrite(() -> {
			LeaseRecord ours = this.leases.stored();
			this.leases.delete();
			this.leases.edit((missing) -> ours);
		});
		this.time.advance(RETRY_PERIOD);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.events).last().isEqualTo("revoked LEASE_DELETED");
		assertThat(this.leases.requests()).containsSubsequence("a update", "a get");
	}

	@Test
	void rejoinsAfterLosingToAnOutage() {
		Replica a = leader("a");
		a.connection.failRequests();
		this.time.advance(RENEW_DEADLINE.plus(RETRY_PERIOD));
		assertThat(a.engine.isLeader()).isFalse();
		a.connection.heal();
		this.time.advance(RETRY_PERIOD.multipliedBy(3));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).hasSize(3).element(1).isEqualTo("revoked RENEW_DEADLINE_PASSED");
	}

	@Test
	void aBlackHoledLeaderIsReplacedOnlyAfterItsGateClosed() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		this.time.advance(Duration.ofSeconds(1));
		a.connection.blackHole();
		long gateClosedAt = -1;
		long takenAt = -1;
		for (int step = 0; step < 40_000 && takenAt < 0; step++) {
			this.time.advance(Duration.ofMillis(1));
			boolean aLeads = a.engine.isLeader();
			boolean bLeads = b.engine.isLeader();
			assertThat(aLeads && bLeads).as("both lead at %d", this.time.nanoTime()).isFalse();
			if (!aLeads && gateClosedAt < 0) {
				gateClosedAt = this.time.nanoTime();
			}
			if (bLeads) {
				takenAt = this.time.nanoTime();
			}
		}
		assertThat(gateClosedAt).isPositive();
		assertThat(takenAt - gateClosedAt).isGreaterThanOrEqualTo(LEASE_DURATION.minus(RENEW_DEADLINE).toNanos()
			- RETRY_PERIOD.toNanos());
		assertThat(b.events).hasSize(1);
	}

	// ---- a missing Lease is a state like any other

	@Test
	void theLeaseDeletedWhileLeadingRevokesAndIsCreatedAgainOnlyAfterItWasMissingForALeaseDuration() {
		Replica a = leader("a");
		long token = a.token();
		this.leases.delete();
		this.time.advance(RETRY_PERIOD);
		long deletionSeen = this.time.nanoTime();
		assertThat(a.events).last().isEqualTo("revoked LEASE_DELETED");
		this.time.advanceTo(deletionSeen + LEASE_DURATION.toNanos() - 1);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().hasHolder()).as("created again without holder").isFalse();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.token()).isGreaterThan(token);
	}

	@Test
	void aReplicaStartedAfterTheLeaseWasDeletedUnderACutOffLeaderWaitsALeaseDuration() {
		Replica a = leader("a");
		this.time.advance(Duration.ofSeconds(1));
		a.connection.blackHole();
		this.leases.delete();
		Replica c = replica("c");
		c.start();
		this.time.runDue();
		assertTakesOverALeaseDurationAfter(this.time.nanoTime(), a, c);
	}

	@Test
	void aClaimAnsweredWithNotFoundWaitsUntilTheLeaseWasMissingForALeaseDuration() {
		this.leases.edit((none) -> LeaseRecord.of("gone", 15, wallNow(), wallNow(), 2));
		Replica b = replica("b");
		b.start();
		this.time.runDue();
		// b's claim of the expired Lease finds it deleted just before
		this.leases.beforeNextWrite(this.leases::delete);
		this.time.advance(LEASE_DURATION);
		assertThat(this.leases.requests()).contains("b update");
		long notFoundAt = this.time.nanoTime();
		assertThat(b.engine.isLeader()).isFalse();
		this.time.advanceTo(notFoundAt + LEASE_DURATION.toNanos() - 1);
		assertThat(b.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().hasHolder()).as("created again without holder").isFalse();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(b.engine.isLeader()).isTrue();
	}

	@Test
	void aMissingLeaseWaitsTheLongerOfOurLeaseDurationAndTheLastOneSeen() {
		this.leases.edit((none) -> LeaseRecord.of("x", 40, wallNow(), wallNow(), 2));
		Replica b = follower(replica("b"));
		this.leases.delete();
		long deletedAt = this.time.nanoTime();
		this.time.advanceTo(deletedAt + Duration.ofSeconds(40).toNanos() - 1);
		assertThat(b.engine.isLeader()).isFalse();
		this.time.advance(Duration.ofMillis(1));
		assertThat(b.engine.isLeader()).isTrue();
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
	void aForLifeLockNeverExpiresForALeaseModeCandidateWhichTakesItOverALeaseDurationAfterItIsDeleted() {
		this.leases.edit((none) -> LeaseRecord.of("orders-0", LeaseRecord.FOR_LIFE_LEASE_DURATION_SECONDS, wallNow(),
				wallNow(), 2));
		Replica b = follower(replica("b"));
		this.time.advance(Duration.ofDays(30));
		assertThat(b.engine.isLeader()).isFalse();
		this.leases.delete();
		long deletedAt = this.time.nanoTime();
		assertLeadsFirstALeaseDurationAfter(deletedAt, b);
	}

	// ---- fencing tokens

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

	// ---- watching

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

	/** A leader renewing every given period. */
	private Replica leader(String identity, Duration renewPeriod) {
		return started(new Replica(identity, this.leases.connect(identity), runtime(identity, Duration.ZERO),
				LeaderWork.NONE, (connection) -> connection, DRAIN_TIMEOUT, ELECTION.renewingEvery(renewPeriod)));
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
