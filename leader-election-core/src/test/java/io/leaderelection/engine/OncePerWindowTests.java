package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.WindowStatus;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.WindowRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jobs that run at most once per window across the replicas, on virtual time against the
 * in-memory Lease with client-go's timings: every start is written into the Lease under the
 * current term before the run is handed out, and the windows hold across handovers, deletions
 * of nothing but the run's replica, crashes and shifted clocks.
 */
class OncePerWindowTests {

	private static final Duration LEASE_DURATION = Duration.ofSeconds(15);

	private static final Duration AT_LEAST = Duration.ofSeconds(10);

	private static final Duration AT_MOST = Duration.ofSeconds(60);

	private static final ElectionSettings ELECTION = new ElectionSettings("default", "test", "lease", LEASE_DURATION,
			Duration.ofSeconds(10), Duration.ofSeconds(2));

	private final VirtualTime time = new VirtualTime();

	private final InMemoryLeases leases = new InMemoryLeases();

	@Test
	void aStartIsWrittenUnderTheTermBeforeTheRunIsHandedOut() {
		Replica a = leader("a");
		this.leases.clearRequests();
		CompletableFuture<Optional<WindowedRun>> started = a.start("report");
		assertThat(started).as("not handed out before the write was answered").isNotDone();
		this.time.runDue();
		WindowedRun run = started.join().orElseThrow();
		assertThat(this.leases.requests()).containsExactly("a update");
		WindowRecord record = this.leases.stored().windows().get("report");
		assertThat(record.startedBy()).isEqualTo("a");
		assertThat(record.fencingToken()).isEqualTo(run.fencingToken()).isEqualTo(a.token());
		assertThat(record.endedMillisAgo()).isNull();
		assertThat(record.closedForMillis()).isEqualTo(AT_MOST.toMillis());
	}

	@Test
	void aSecondStartIsRefusedWhileTheRunMayRunAndUntilItsShortestWindowHasPassedSinceItsStart() {
		Replica a = leader("a");
		WindowedRun run = a.started("report");
		long startedAt = this.time.nanoTime();
		assertThat(a.tryStart("report")).as("running").isEmpty();
		this.time.advance(Duration.ofSeconds(3));
		run.end();
		assertThat(a.tryStart("report")).as("ended, 3 s after its start").isEmpty();
		this.time.advanceTo(startedAt + AT_LEAST.toNanos() - 1);
		assertThat(a.tryStart("report")).isEmpty();
		this.time.advanceTo(startedAt + AT_LEAST.toNanos());
		assertThat(a.tryStart("report")).isPresent();
		assertThat(a.tryStart("other")).as("another job has a window of its own").isPresent();
	}

	@Test
	void aRunLongerThanItsShortestWindowKeepsTheWindowClosedUntilItEnds() {
		Replica a = leader("a");
		WindowedRun run = a.started("report");
		this.time.advance(Duration.ofSeconds(30));
		assertThat(a.tryStart("report")).isEmpty();
		run.end();
		assertThat(a.tryStart("report")).isPresent();
	}

	@Test
	void aSuccessorRespectsTheWindowOfTheRunItsPredecessorStartedAndEndedBeforeSteppingDown() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		WindowedRun run = a.started("report");
		long startedAt = this.time.nanoTime();
		this.time.advance(Duration.ofSeconds(1));
		run.end();
		a.engine.stepDown("default");
		this.time.runDue();
		assertThat(b.engine.isLeader()).isTrue();
		assertThat(this.leases.stored().windows().get("report").endedMillisAgo()).as("the release carries the end")
			.isNotNull();
		assertThat(b.tryStart("report")).isEmpty();
		this.time.advanceTo(startedAt + AT_LEAST.toNanos() - 1);
		assertThat(b.tryStart("report")).isEmpty();
		// b counts from when it saw the release, which came a millisecond late: never earlier than a
		this.time.advanceTo(startedAt + AT_LEAST.toNanos() + Duration.ofMillis(1).toNanos());
		assertThat(b.tryStart("report")).isPresent();
		WindowStatus status = b.engine.windows("default").get(0);
		assertThat(status.startedBy()).isEqualTo("b");
		assertThat(status.job()).isEqualTo("report");
	}

	@Test
	void aSuccessorOfALeaderThatDiedDuringARunWaitsForTheRunsLongestWindow() {
		Replica a = leader("a");
		Replica b = follower(replica("b"));
		a.started("report");
		long startedAt = this.time.nanoTime();
		// a dies: it writes nothing more, and its run never ends
		a.connection.blackHole();
		awaitLeader(List.of(a, b), b);
		assertThat(this.time.nanoTime() - startedAt).isLessThan(AT_MOST.toNanos());
		assertThat(b.tryStart("report")).isEmpty();
		// b counts from when it first saw a's write of the start, as it came
		this.time.advanceTo(startedAt + AT_MOST.toNanos() - 1);
		assertThat(b.tryStart("report")).isEmpty();
		this.time.advanceTo(startedAt + AT_MOST.toNanos());
		assertThat(b.tryStart("report")).isPresent();
	}

	@Test
	void aSuccessorWhoseWallClockIsAnHourOffCountsTheWindowAsTheOthersDo() {
		Replica a = leader("a");
		Replica b = follower(replica("b", Duration.ofHours(-1)));
		WindowedRun run = a.started("report");
		long startedAt = this.time.nanoTime();
		run.end();
		a.engine.stepDown("default");
		this.time.runDue();
		assertThat(b.engine.isLeader()).isTrue();
		this.time.advanceTo(startedAt + AT_LEAST.toNanos() - 1);
		assertThat(b.tryStart("report")).isEmpty();
		this.time.advanceTo(startedAt + AT_LEAST.toNanos() + Duration.ofMillis(1).toNanos());
		assertThat(b.tryStart("report")).isPresent();
		WindowStatus status = b.engine.windows("default").get(0);
		assertThat(status.lastStart()).as("on b's own clock").isEqualTo(b.wallNow());
	}

	@Test
	void aDeposedLeadersStartIsRefusedByTheServerAndItsRunNeverHandedOut() {
		Replica a = leader("a");
		// another candidate takes the Lease just before a's write of the start
		this.leases.beforeNextWrite(() -> this.leases.edit((held) -> held.rewrite("b", 15, wallNow(), wallNow(),
				held.transitions() + 1)));
		CompletableFuture<Optional<WindowedRun>> started = a.start("report");
		this.time.runDue();
		assertThat(started.join()).isEmpty();
		assertThat(a.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().windows()).doesNotContainKey("report");
	}

	@Test
	void aStartStoredButNotAnsweredBeforeTheRenewDeadlineIsNeverHandedOutAndCountsAsARun() {
		Replica a = leader("a");
		a.connection.holdAnswers();
		CompletableFuture<Optional<WindowedRun>> started = a.start("report");
		this.time.runDue();
		assertThat(this.leases.stored().windows()).as("stored by the server").containsKey("report");
		this.time.advance(ELECTION.renewDeadline());
		assertThat(a.engine.isLeader()).isFalse();
		a.connection.deliverAnswers();
		this.time.runDue();
		assertThat(started.join()).as("not confirmed while the gate was open").isEmpty();
		assertThat(a.engine.windows("default")).singleElement()
			.satisfies((window) -> assertThat(window.nextStartAllowed()).isAfter(wallNow()));
	}

	@Test
	void aStartStoredButAnsweredAfterAStepDownClosedTheGateIsNeverHandedOutAndCountsAsARun() {
		Replica a = leader("a");
		a.connection.holdAnswers();
		CompletableFuture<Optional<WindowedRun>> started = a.start("report");
		this.time.runDue();
		assertThat(this.leases.stored().windows()).as("stored by the server").containsKey("report");
		a.engine.stepDown("default");
		assertThat(a.engine.isLeader()).isFalse();
		a.connection.deliverAnswers();
		this.time.runDue();
		assertThat(started.join()).as("answered once the gate had closed").isEmpty();
		assertThat(a.engine.windows("default")).singleElement()
			.satisfies((window) -> assertThat(window.nextStartAllowed()).isAfter(wallNow()));
	}

	@Test
	void aStartOnAFollowerIsRefusedWithoutARequest() {
		leader("a");
		Replica b = follower(replica("b"));
		this.leases.clearRequests();
		assertThat(b.tryStart("report")).isEmpty();
		assertThat(this.leases.requests()).isEmpty();
	}

	@Test
	void startsAskedForWhileAWriteIsOnItsWayAreWrittenAtOnceAfterIt() {
		Replica a = leader("a");
		this.leases.clearRequests();
		a.connection.holdAnswers();
		CompletableFuture<Optional<WindowedRun>> first = a.start("first");
		this.time.runDue();
		CompletableFuture<Optional<WindowedRun>> second = a.start("second");
		this.time.runDue();
		assertThat(this.leases.requests()).as("nothing more while the first write is on its way")
			.containsExactly("a update");
		a.connection.deliverAnswers();
		this.time.runDue();
		assertThat(first.join()).isPresent();
		assertThat(second.join()).isPresent();
		assertThat(this.leases.requests()).containsExactly("a update", "a update");
		assertThat(this.leases.stored().windows()).containsOnlyKeys("first", "second");
	}

	@Test
	void anExtensionKeepsTheWindowClosedAndIsWrittenUnderTheTerm() {
		Replica a = leader("a");
		WindowedRun run = a.started("report");
		long startedAt = this.time.nanoTime();
		this.time.advance(Duration.ofSeconds(50));
		CompletableFuture<Boolean> extended = run.extend(Duration.ofSeconds(60), Duration.ofSeconds(30));
		this.time.runDue();
		assertThat(extended.join()).isTrue();
		assertThat(this.leases.stored().windows().get("report").closedForMillis()).isEqualTo(60_000);
		this.time.advanceTo(startedAt + AT_MOST.toNanos() + 1);
		assertThat(a.tryStart("report")).as("extended past its first longest window").isEmpty();
		run.end();
		assertThat(a.tryStart("report")).as("its shortest window counts from the extension").isEmpty();
		this.time.advanceTo(startedAt + Duration.ofSeconds(80).toNanos());
		assertThat(a.tryStart("report")).isPresent();
		assertThat(run.extend(AT_MOST, AT_LEAST).join()).as("ended").isFalse();
	}

	/** Advances a millisecond at a time until the given replica leads, checking that no two gates are open. */
	private void awaitLeader(List<Replica> replicas, Replica expected) {
		for (int step = 0; step < 60_000 && !expected.engine.isLeader(); step++) {
			assertThat(replicas.stream().filter((replica) -> replica.engine.isLeader())).hasSizeLessThanOrEqualTo(1);
			this.time.advance(Duration.ofMillis(1));
		}
		assertThat(expected.engine.isLeader()).isTrue();
	}

	private Replica leader(String identity) {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 0));
		Replica replica = replica(identity);
		replica.engine.start();
		this.time.runDue();
		assertThat(replica.engine.isLeader()).isTrue();
		return replica;
	}

	private Replica follower(Replica replica) {
		replica.engine.start();
		this.time.runDue();
		return replica;
	}

	private Replica replica(String identity) {
		return replica(identity, Duration.ZERO);
	}

	private Replica replica(String identity, Duration wallClockOffset) {
		return new Replica(identity, this.leases.connect(identity), wallClockOffset);
	}

	private Instant wallNow() {
		return this.time.wallClock(Duration.ZERO).instant();
	}

	private final class Replica {

		final InMemoryLeases.Connection connection;

		final ElectionEngine engine;

		private final Duration wallClockOffset;

		Replica(String identity, InMemoryLeases.Connection connection, Duration wallClockOffset) {
			this.connection = connection;
			this.wallClockOffset = wallClockOffset;
			ElectionRuntime runtime = new ElectionRuntime(OncePerWindowTests.this.time, OncePerWindowTests.this.time,
					OncePerWindowTests.this.time.wallClock(wallClockOffset), Runnable::run, new Random(identity.hashCode()));
			this.engine = new ElectionEngine(identity, List.of(ELECTION), (settings) -> connection, runtime, List.of());
		}

		CompletableFuture<Optional<WindowedRun>> start(String job) {
			return this.engine.startInWindow("default", null, job, AT_LEAST, AT_MOST);
		}

		/** Asks for a start and lets the engine write it. */
		Optional<WindowedRun> tryStart(String job) {
			CompletableFuture<Optional<WindowedRun>> started = start(job);
			OncePerWindowTests.this.time.runDue();
			return started.join();
		}

		WindowedRun started(String job) {
			return tryStart(job).orElseThrow();
		}

		long token() {
			return this.engine.status("default").fencingToken();
		}

		Instant wallNow() {
			return OncePerWindowTests.this.time.wallClock(this.wallClockOffset).instant();
		}

	}

}
