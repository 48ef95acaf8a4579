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
	void aFollowerHandlesWatchEventsInTheOrderTheyCameWhicheverThreadsRunThem() {
		leader("a");
		Replica b = follower(replica("b"));
		this.time.runSimultaneousTasksLastFirst();

		this.leases.delete();
		this.leases.edit((none) -> LeaseRecord.of("c", 15, wallNow(), wallNow(), 0));
		this.time.runDue();

		assertThat(b.engine.status("default").holderIdentity()).isEqualTo("c");
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

		@Override
		public void granted(String election, long fencingToken, long gateOpenedAt) {
			this.events.add("granted " + fencingToken);
		}

		@Override
		public void revoked(String election, RevocationCause cause, long gateClosedAt) {
			this.onRevoked.run();
			this.events.add("revoked " + cause);
		}

		@Override
		public void renewed(String election, boolean success, long nanos) {
			this.renewals.add((success ? "success " : "failure ") + Duration.ofNanos(nanos));
		}

	}

}
