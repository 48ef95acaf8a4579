package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Lease seen missing before a gap says nothing about the time after it: it may have been
 * created, held and deleted meanwhile. On virtual time against the in-memory Lease, with
 * client-go's timings: a replica cut off before the Lease existed, a replica frozen right after
 * it saw the Lease missing, and a follower that polls between a creation and a deletion; each
 * must never open its gate while the leader of the deleted Lease may still have its own open.
 */
class AbsenceAcrossGapsTests {

	private static final Duration LEASE_DURATION = Duration.ofSeconds(15);

	private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);

	private static final Duration RETRY_PERIOD = Duration.ofSeconds(2);

	private static final ElectionSettings ELECTION = new ElectionSettings("default", "test", "lease", LEASE_DURATION,
			RENEW_DEADLINE, RETRY_PERIOD);

	private final VirtualTime time = new VirtualTime();

	private final InMemoryLeases leases = new InMemoryLeases();

	@Test
	void aReplicaCutOffBeforeTheLeaseExistedDoesNotJoinItsAbsenceToOneAfterTheCut() {
		Replica cut = replica("cut");
		// it reads, but its writes fail until it is cut off altogether
		cut.connection.failWrites();
		cut.start();
		this.time.runDue();
		assertThat(this.leases.stored()).as("seen missing at its start").isNull();
		cut.connection.blackHole();
		Replica leader = replica("leader");
		leader.start();
		awaitLeader(List.of(cut, leader), leader);
		// the Lease exists and is held for a while, unseen by the replica that is cut off
		advanceCheckingGates(List.of(cut, leader), Duration.ofSeconds(20));
		// the leader is cut off in turn, its gate open until its renew deadline; the Lease is
		// deleted, and the replica cut off first comes back
		leader.connection.blackHole();
		this.leases.delete();
		cut.connection.heal();
		advanceCheckingGates(List.of(cut, leader), LEASE_DURATION.plus(RENEW_DEADLINE).multipliedBy(2));
		assertThat(cut.engine.isLeader()).as("the replica that came back leads in the end").isTrue();
	}

	@Test
	void aReplicaFrozenRightAfterItSawTheLeaseMissingDoesNotJoinItsAbsenceToOneAfterTheFreeze() {
		Replica frozen = replica("frozen");
		// a watch would tell it of the creation once thawed, before its next read answers: it polls
		frozen.connection.allowWatching(false);
		// it reads, but its writes fail until it is frozen
		frozen.connection.failWrites();
		frozen.start();
		this.time.runDue();
		assertThat(this.leases.stored()).as("seen missing at its start").isNull();
		frozen.scheduler.freeze();
		frozen.connection.heal();
		// its next look falls due before the Lease is created, and runs first once it thaws
		this.time.advance(Duration.ofSeconds(1));
		Replica leader = replica("leader");
		leader.start();
		awaitLeader(List.of(frozen, leader), leader);
		advanceCheckingGates(List.of(frozen, leader), Duration.ofSeconds(20));
		leader.connection.blackHole();
		this.leases.delete();
		frozen.scheduler.thaw();
		advanceCheckingGates(List.of(frozen, leader), LEASE_DURATION.plus(RENEW_DEADLINE).multipliedBy(2));
		assertThat(frozen.engine.isLeader()).as("the replica that thawed leads in the end").isTrue();
	}

	@Test
	void aLeaseCreatedAndDeletedBetweenTwoReadsOfAPollingFollowerNeverOpensASecondGate() {
		Replica first = replica("first");
		first.start();
		this.time.runDue();
		this.time.advance(Duration.ofSeconds(1));
		Replica polling = replica("polling");
		polling.connection.allowWatching(false);
		polling.start();
		this.time.runDue();
		// the first replica creates the Lease and leads; it is deleted before the polling
		// follower reads again, and the leader is cut off, its gate open until its renew deadline
		awaitLeader(List.of(first, polling), first);
		first.connection.blackHole();
		this.leases.delete();
		advanceCheckingGates(List.of(first, polling), LEASE_DURATION.plus(RENEW_DEADLINE).multipliedBy(2));
		assertThat(polling.engine.isLeader()).as("the polling follower leads in the end").isTrue();
	}

	/** Advances a millisecond at a time until the given replica leads, checking that no two gates are open. */
	private void awaitLeader(List<Replica> replicas, Replica expected) {
		for (int step = 0; step < 120_000 && !expected.engine.isLeader(); step++) {
			assertAtMostOneGateOpen(replicas);
			this.time.advance(Duration.ofMillis(1));
		}
		assertThat(expected.engine.isLeader()).as("%s leads", expected.name).isTrue();
	}

	private void advanceCheckingGates(List<Replica> replicas, Duration duration) {
		long end = this.time.nanoTime() + duration.toNanos();
		while (this.time.nanoTime() - end < 0) {
			assertAtMostOneGateOpen(replicas);
			this.time.advance(Duration.ofMillis(1));
		}
		assertAtMostOneGateOpen(replicas);
	}

	private void assertAtMostOneGateOpen(List<Replica> replicas) {
		List<String> open = replicas.stream().filter((replica) -> replica.engine.isLeader()).map((r) -> r.name).toList();
		assertThat(open).as("gates open at %d ms", this.time.nanoTime() / 1_000_000).hasSizeLessThanOrEqualTo(1);
	}

	private Replica replica(String name) {
		return new Replica(name, this.leases.connect(name), new FreezableScheduler(this.time), this.time);
	}

	private static final class Replica {

		final String name;

		final InMemoryLeases.Connection connection;

		final FreezableScheduler scheduler;

		final ElectionEngine engine;

		Replica(String name, InMemoryLeases.Connection connection, FreezableScheduler scheduler, VirtualTime time) {
			this.name = name;
			this.connection = connection;
			this.scheduler = scheduler;
			ElectionRuntime runtime = new ElectionRuntime(scheduler, time, time.wallClock(Duration.ZERO), Runnable::run,
					new Random(name.hashCode()));
			this.engine = new ElectionEngine(name, List.of(ELECTION), (settings) -> connection, runtime, List.of());
		}

		void start() {
			this.engine.start();
		}

	}

	/**
	 * A replica's scheduler on virtual time that can be frozen, as a process stopped by a long
	 * pause: while frozen, its tasks that fall due are held. Once thawed, its timers that fell due
	 * run first, then what was handed over meanwhile (answers, watch events), each in order, as
	 * a process's overdue timers may fire before it reads what waits on its sockets.
	 */
	static final class FreezableScheduler implements ElectionScheduler {

		private final VirtualTime time;

		private List<Runnable> heldTimers;

		private List<Runnable> heldHandovers;

		FreezableScheduler(VirtualTime time) {
			this.time = time;
		}

		void freeze() {
			this.heldTimers = new ArrayList<>();
			this.heldHandovers = new ArrayList<>();
		}

		void thaw() {
			List<Runnable> due = new ArrayList<>(this.heldTimers);
			due.addAll(this.heldHandovers);
			this.heldTimers = null;
			this.heldHandovers = null;
			due.forEach(Runnable::run);
		}

		@Override
		public Cancellable schedule(Runnable task, long delayNanos) {
			return this.time.schedule(() -> {
				if (this.heldTimers == null) {
					task.run();
				}
				else if (delayNanos > 0) {
					this.heldTimers.add(task);
				}
				else {
					this.heldHandovers.add(task);
				}
			}, delayNanos);
		}

	}

}
