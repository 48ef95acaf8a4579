package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import io.leaderelection.LeaderStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The election algorithm on virtual time against an in-memory Lease with optimistic locking:
 * client-go's timings (15s / 10s / 2s), several replicas, faults per replica.
 */
class ElectionEngineTest {

	private static final Duration LEASE_DURATION = Duration.ofSeconds(15);

	private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);

	private static final Duration RETRY_PERIOD = Duration.ofSeconds(2);

	private final VirtualTime time = new VirtualTime();

	private final InMemoryLeases leases = new InMemoryLeases();

	@Test
	void acquiresAFreeLeaseByCreatingIt() {
		Replica a = leader("a");
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).containsExactly("granted 0");
		LeaseRecord stored = this.leases.stored();
		assertThat(stored.holderIdentity()).isEqualTo("a");
		assertThat(stored.leaseDurationSeconds()).isEqualTo(15);
		assertThat(stored.leaseTransitions()).isZero();
		assertThat(stored.acquireTime()).isEqualTo(stored.renewTime()).isNotNull();
		assertThat(a.engine.status("default").fencingToken()).isZero();
	}

	@Test
	void acquiresAnExpiredLeaseOnlyAfterSeeingItUnchangedForALeaseDuration() {
		this.leases.edit((none) -> new LeaseRecord("gone", 15, wallNow(), wallNow(), 4, null));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		long firstSeen = this.time.nanoTime();
		assertThat(a.engine.isLeader()).isFalse();
		this.time.advanceTo(firstSeen + LEASE_DURATION.toNanos() - 1);
		assertThat(a.engine.isLeader()).isFalse();
		this.time.advanceTo(firstSeen + LEASE_DURATION.toNanos());
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).containsExactly("granted 5");
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(this.leases.stored().leaseTransitions()).isEqualTo(5);
	}

	@Test
	void neverAcquiresWhileTheRecordKeepsChangingWhateverItsTimestampsSay() {
		Instant anHourAgo = wallNow().minus(Duration.ofHours(1));
		this.leases.edit((none) -> new LeaseRecord("live", 15, anHourAgo, anHourAgo, 1, null));
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
		this.leases.edit((none) -> new LeaseRecord("", 1, wallNow(), wallNow(), 3, null));
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).containsExactly("granted 4");
	}

	@Test
	void renewingKeepsTheGateOpenWithOneWritePerRenewal() {
		Replica a = leader("a");
		this.leases.clearRequests();
		for (int i = 0; i < 100; i++) {
			this.time.advance(Duration.ofMillis(500));
			assertThat(a.engine.isLeader()).isTrue();
		}
		assertThat(this.leases.requests()).hasSize(25).allMatch("a update"::equals);
		assertThat(a.events).containsExactly("granted 0");
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
		assertThat(a.events).containsExactly("granted 0", "revoked RENEW_DEADLINE_PASSED");
		assertThat(a.lastGateClosedAt).isEqualTo(gateClosesAt);
		assertThat(a.connection.cancelledRequests()).isPositive();
		assertThat(a.engine.status("default").lastError()).contains("update Lease test/lease", "no answer");
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
		assertThat(a.events).containsExactly("granted 0");
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
		this.time.advance(LEASE_DURATION.multipliedBy(2));
		ElectionHealth health = a.engine.health("default");
		assertThat(health.failingFor()).isGreaterThan(LEASE_DURATION);
		assertThat(health.lastError()).startsWith("create Lease test/lease: 500");
		assertThat(a.engine.status("default").lastError()).isEqualTo(health.lastError());
		assertThat(this.leases.stored()).isNull();
		a.connection.heal();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(a.engine.health("default").failingFor()).isZero();
		assertThat(a.engine.status("default").lastError()).isNull();
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
	}

	@Test
	void everyRenewalReportsItsOutcomeAndHowLongItTookButAcquiringDoesNot() {
		Replica a = replica("a");
		a.start();
		this.time.runDue();
		this.time.advance(RETRY_PERIOD);
		assertThat(a.renewals).containsExactly("success PT0S");
		a.connection.failRequests();
		this.time.advance(RETRY_PERIOD);
		assertThat(a.renewals).containsExactly("success PT0S", "failure PT0S");
		a.connection.heal();
		this.time.advance(RETRY_PERIOD);
		assertThat(a.renewals).containsExactly("success PT0S", "failure PT0S", "success PT0S");
		// The next renewal gets no answer: it times out when the gate closes, a renew deadline
		// after the last successful renewal was sent, one retry period before this one.
		a.connection.blackHole();
		this.time.advance(RENEW_DEADLINE);
		assertThat(a.renewals).containsExactly("success PT0S", "failure PT0S", "success PT0S",
				"failure " + RENEW_DEADLINE.minus(RETRY_PERIOD));
		assertThat(a.events).containsExactly("granted 0", "revoked RENEW_DEADLINE_PASSED");
	}

	@Test
	void aConflictOnRenewalFromAnotherHolderRevokes() {
		Replica a = leader("a");
		this.leases.edit((held) -> new LeaseRecord("thief", 15, wallNow(), wallNow(), 1, null));
		this.time.advance(RETRY_PERIOD);
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(a.events).containsExactly("granted 0", "revoked LEASE_TAKEN");
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("thief");
		assertThat(this.leases.requests()).endsWith("a update", "a get");
	}

	@Test
	void aConflictOnRenewalFromAnEditThatKeptUsAsHolderRenewsAgain() {
		Replica a = leader("a");
		this.leases.edit((held) -> held);
		this.time.advance(RETRY_PERIOD);
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).containsExactly("granted 0");
		assertThat(this.leases.requests()).endsWith("a update", "a get", "a update");
	}

	@Test
	void theLeaseDeletedWhileLeadingRevokesThenRejoinsWithAHigherToken() {
		Replica a = leader("a");
		this.leases.delete();
		this.time.advance(RETRY_PERIOD);
		assertThat(a.events).containsExactly("granted 0", "revoked LEASE_DELETED", "granted 1");
		assertThat(this.leases.stored().leaseTransitions()).isEqualTo(1);
		assertThat(a.engine.isLeader()).isTrue();
	}

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
		assertThat(a.events).containsExactly("granted 0", "revoked SHUTDOWN");
		LeaseRecord released = this.leases.stored();
		assertThat(released.hasHolder()).isFalse();
		assertThat(released.leaseDurationSeconds()).isEqualTo(1);
		assertThat(released.leaseTransitions()).isZero();
		this.time.advance(RETRY_PERIOD.multipliedBy(12).dividedBy(10));
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(b.events).containsExactly("granted 1");
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
		assertThat(b.events).containsExactly("granted 1");
		assertThat(this.leases.requests()).containsExactly("a update", "b update");
	}

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
		awaitNewLeader(List.of(a, b), 0);
		// b saw a's last renewal when it was written and took over one lease duration later.
		assertThat(this.time.nanoTime() - lastRenewal).isEqualTo(LEASE_DURATION.toNanos());
	}

	@Test
	void aFollowerWhoseWatchEndsPollsAndWatchesAgainAfterABackoff() {
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
		Replica a = leader("a");
		Replica b = replica("b");
		b.connection.allowWatching(false);
		follower(b);
		this.time.runDue();
		this.leases.clearRequests();
		this.time.advance(Duration.ofMinutes(1));
		long polls = this.leases.requests().stream().filter("b get"::equals).count();
		assertThat(polls).isBetween(25L, 30L);
	}

	@Test
	void stoppingWithoutReleaseLeavesTheLeaseToExpire() {
		Replica a = leader("a");
		a.engine.stop(false);
		this.time.runDue();
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("a");
		assertThat(a.events).containsExactly("granted 0", "revoked SHUTDOWN");
	}

	@Test
	void steppingDownReleasesAndStaysOutForALeaseDuration() {
		Replica a = leader("a");
		long steppedDownAt = this.time.nanoTime();
		a.engine.stepDown("default");
		this.time.runDue();
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().hasHolder()).isFalse();
		this.time.advanceTo(steppedDownAt + LEASE_DURATION.toNanos() - 1);
		assertThat(a.engine.isLeader()).isFalse();
		this.time.advance(RETRY_PERIOD.multipliedBy(2));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).containsExactly("granted 0", "revoked STEPPED_DOWN", "granted 1");
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
	void rejoinsAfterLosingToAnOutage() {
		Replica a = leader("a");
		a.connection.failRequests();
		this.time.advance(RENEW_DEADLINE.plus(RETRY_PERIOD));
		assertThat(a.engine.isLeader()).isFalse();
		a.connection.heal();
		this.time.advance(RETRY_PERIOD.multipliedBy(3));
		assertThat(a.engine.isLeader()).isTrue();
		assertThat(a.events).containsExactly("granted 0", "revoked RENEW_DEADLINE_PASSED", "granted 1");
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
		assertThat(b.events).containsExactly("granted 1");
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

	@Test
	void fencingTokensStrictlyIncreaseOverHandoversAndGatesNeverOverlap() {
		List<Replica> replicas = Stream.of("a", "b", "c").map(this::replica).toList();
		replicas.forEach(Replica::start);
		List<Long> tokens = new ArrayList<>();
		Random random = new Random(7);
		Replica leader = awaitNewLeader(replicas, -1);
		tokens.add(token(leader));
		for (int handover = 0; handover < 30; handover++) {
			long previousToken = token(leader);
			switch (random.nextInt(3)) {
				case 0 -> leader.engine.stepDown("default");
				case 1 -> leader.connection.blackHole();
				default -> {
					leader.engine.stop(true);
					leader.engine.start();
				}
			}
			Replica previous = leader;
			leader = awaitNewLeader(replicas, previousToken);
			previous.connection.heal();
			tokens.add(token(leader));
		}
		assertThat(tokens).hasSize(31).isSorted().doesNotHaveDuplicates();
	}

	private static long token(Replica leader) {
		return leader.engine.status("default").fencingToken();
	}

	/** Advances until exactly one replica leads with another token, checking on every step that no two lead. */
	private Replica awaitNewLeader(List<Replica> replicas, long previousToken) {
		for (int step = 0; step < 60_000; step++) {
			List<Replica> leaders = replicas.stream().filter((replica) -> replica.engine.isLeader()).toList();
			assertThat(leaders).as("leaders at %d", this.time.nanoTime()).hasSizeLessThanOrEqualTo(1);
			if (leaders.size() == 1 && token(leaders.get(0)) != previousToken) {
				return leaders.get(0);
			}
			this.time.advance(Duration.ofMillis(1));
		}
		throw new AssertionError("no new leader within a minute");
	}

	/** A replica that starts on a free Lease and so leads. */
	private Replica leader(String identity) {
		Replica replica = replica(identity);
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
		return new Replica(identity, this.leases.connect(identity),
				new ElectionRuntime(this.time, this.time, this.time.wallClock(wallClockOffset), Runnable::run,
						new Random(identity.hashCode())));
	}

	private static final class Replica implements ElectionListener {

		final InMemoryLeases.Connection connection;

		final ElectionEngine engine;

		final List<String> events = new ArrayList<>();

		final List<String> renewals = new ArrayList<>();

		long lastGateClosedAt;

		Runnable onRevoked = () -> {
		};

		Replica(String identity, InMemoryLeases.Connection connection, ElectionRuntime runtime) {
			this.connection = connection;
			this.engine = new ElectionEngine(identity,
					List.of(new ElectionSettings("default", "test", "lease", LEASE_DURATION, RENEW_DEADLINE,
							RETRY_PERIOD)),
					(settings) -> connection, runtime, List.of(this));
		}

		void start() {
			this.engine.start();
		}

		@Override
		public void granted(String election, long fencingToken, long gateOpenedAt) {
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
