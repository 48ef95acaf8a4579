package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import io.leaderelection.store.ContainerInstance;
import io.leaderelection.store.HolderExits;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Takeover on proof that the holder's process ended, in virtual time against an in-memory Lease:
 * client-go's timings (15s / 10s / 2s); the runs the holders' versions name, and the kubelet's
 * reports of their end, are the test's ({@link Runs}).
 */
class ExitTakeoverTests {

	private static final Duration LEASE_DURATION = Duration.ofSeconds(15);

	private static final ElectionSettings ELECTION = new ElectionSettings("default", "test", "lease", LEASE_DURATION,
			Duration.ofSeconds(10), Duration.ofSeconds(2)).renewingEvery(Duration.ofSeconds(2));

	private final VirtualTime time = new VirtualTime();

	private final InMemoryLeases leases = new InMemoryLeases();

	private final Runs runs = new Runs();

	@Test
	void aFollowerClaimsTheVersionNamingAnEndedRunAtOnceAndTheFencingTokenRises() {
		Replica a = leader("a");
		Replica b = started("b");
		this.time.advance(Duration.ofSeconds(3));
		long token = a.token();
		a.kill();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(b.engine.isLeader()).isFalse();
		this.runs.end("a");
		this.time.runDue();
		assertThat(b.engine.isLeader()).as("at once, without waiting out the lease duration").isTrue();
		assertThat(b.token()).isGreaterThan(token);
		this.time.advance(ELECTION.renewPeriod());
		assertThat(this.runs.followed()).as("a leader follows no holder's Pod from its first renewal").isZero();
	}

	@Test
	void withoutAProofTheKilledLeaderIsWaitedOutForTheLeaseDuration() {
		Replica a = leader("a");
		Replica b = started("b");
		this.time.advance(Duration.ofSeconds(3));
		long lastRenewal = this.time.nanoTime();
		a.kill();
		this.time.advanceTo(lastRenewal + LEASE_DURATION.toNanos() - Duration.ofSeconds(2).toNanos());
		assertThat(b.engine.isLeader()).isFalse();
		this.time.advance(Duration.ofSeconds(6));
		assertThat(b.engine.isLeader()).isTrue();
	}

	@Test
	void aProofOfARunReachesNoVersionWrittenSinceItWasSeen() {
		Replica a = leader("a");
		Replica b = started("b");
		this.time.advance(Duration.ofSeconds(3));
		a.kill();
		// the claim on a's version meets a version another process wrote since, whose run lives
		this.runs.name("c");
		this.leases.beforeNextWrite(() -> this.leases.edit((seen) -> seen.rewrite("c", 15, seen.acquireTime(),
				seen.renewTime(), seen.transitions() + 1)));
		this.runs.end("a");
		this.time.runDue();
		assertThat(b.engine.isLeader()).isFalse();
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("c");
		long cWrote = this.time.nanoTime();
		this.time.advanceTo(cWrote + LEASE_DURATION.toNanos() - 1);
		assertThat(b.engine.isLeader()).as("c's version is waited out").isFalse();
	}

	@Test
	void aProofOfTheRunBeforeComesTooLateForTheVersionANewRunWrote() {
		Replica a = leader("a");
		Replica b = started("b");
		this.time.advance(Duration.ofSeconds(3));
		a.kill();
		// a's container runs again as a2, which took the Lease over and renews it
		Replica a2 = started("a2");
		this.time.advance(LEASE_DURATION.plusSeconds(5));
		Replica leader = a2.engine.isLeader() ? a2 : b;
		Replica follower = (leader == a2) ? b : a2;
		assertThat(leader.engine.isLeader()).isTrue();
		this.runs.end("a");
		this.time.advance(Duration.ofSeconds(20));
		assertThat(leader.engine.isLeader()).isTrue();
		assertThat(follower.engine.isLeader()).isFalse();
	}

	@Test
	void aRunNamedForAnotherHolderProvesNothing() {
		Replica a = leader("a");
		Replica b = started("b");
		this.runs.misname("a", "someone-else");
		this.time.advance(Duration.ofSeconds(3));
		a.kill();
		this.runs.end("a");
		this.time.advance(Duration.ofSeconds(10));
		assertThat(b.engine.isLeader()).isFalse();
	}

	@Test
	void twoFollowersSeeingTheSameProofOpenOneGate() {
		Replica a = leader("a");
		Replica b = started("b");
		Replica c = started("c");
		this.time.advance(Duration.ofSeconds(3));
		a.kill();
		this.runs.end("a");
		this.time.runDue();
		assertThat(List.of(b, c).stream().filter((replica) -> replica.engine.isLeader())).hasSize(1);
		this.time.advance(Duration.ofSeconds(30));
		assertThat(List.of(b, c).stream().filter((replica) -> replica.engine.isLeader())).hasSize(1);
	}

	@Test
	void aProofSeenWhileFollowingBeforeCampaigningIsClaimedWhenTheCampaignStarts() {
		Replica a = leader("a");
		Replica b = new Replica("b");
		b.engine.follow();
		this.time.advance(Duration.ofSeconds(3));
		a.kill();
		this.runs.end("a");
		this.time.runDue();
		assertThat(b.engine.isLeader()).isFalse();
		b.engine.start();
		this.time.runDue();
		assertThat(b.engine.isLeader()).isTrue();
	}

	// ---- helpers

	private Replica started(String identity) {
		this.runs.name(identity);
		Replica replica = new Replica(identity);
		replica.engine.start();
		this.time.runDue();
		return replica;
	}

	private Replica leader(String identity) {
		Replica replica = started(identity);
		this.time.advance(LEASE_DURATION.plusSeconds(1));
		assertThat(replica.engine.isLeader()).isTrue();
		return replica;
	}

	private final class Replica {

		final InMemoryLeases.Connection connection;

		final ElectionEngine engine;

		Replica(String identity) {
			this.connection = ExitTakeoverTests.this.leases.connect(identity);
			ElectionRuntime runtime = new ElectionRuntime(ExitTakeoverTests.this.time, ExitTakeoverTests.this.time,
					ExitTakeoverTests.this.time.wallClock(Duration.ZERO), Runnable::run, new Random(identity.hashCode()));
			this.engine = new ElectionEngine(identity, List.of(ELECTION), (settings) -> new ProvenStore(this.connection),
					runtime, List.of());
		}

		long token() {
			Long token = this.engine.status("default").fencingToken();
			return (token != null) ? token : -1;
		}

		/** The process ends: nothing more is sent, its gate is gone. */
		void kill() {
			this.connection.blackHole();
			this.engine.stop(false);
		}

	}

	/** The Lease as the replica sees it, whose holders' runs are the test's. */
	private final class ProvenStore extends ForwardingLeaseStore {

		ProvenStore(LeaseStore connection) {
			super(connection);
		}

		@Override
		public HolderExits holderExits() {
			return ExitTakeoverTests.this.runs;
		}

	}

	/**
	 * The run each holder's versions name, one per identity as one process writes one identity, and
	 * which of them the kubelet reported ended.
	 */
	private static final class Runs implements HolderExits {

		private final Map<String, ContainerInstance> named = new HashMap<>();

		private final Set<ContainerInstance> ended = new HashSet<>();

		private final List<Runnable> followers = new ArrayList<>();

		private int followed;

		void name(String identity) {
			this.named.put(identity, new ContainerInstance(identity, "test", "pod-" + identity, "uid-" + identity, "app", 0));
		}

		/** Versions held by the identity name a run written for another holder. */
		void misname(String identity, String holder) {
			this.named.put(identity, this.named.get(identity).heldBy(holder));
		}

		void end(String identity) {
			this.ended.add(this.named.get(identity));
			List.copyOf(this.followers).forEach(Runnable::run);
		}

		int followed() {
			return this.followed;
		}

		@Override
		public ContainerInstance holderInstance(LeaseRecord version) {
			return this.named.get(version.holderIdentity());
		}

		@Override
		public Followed follow(ContainerInstance instance, Runnable changed) {
			this.followers.add(changed);
			this.followed++;
			return new Followed() {

				@Override
				public String endedBecause() {
					return Runs.this.ended.contains(instance) ? instance + " ended" : null;
				}

				@Override
				public void close() {
					Runs.this.followers.remove(changed);
					Runs.this.followed--;
				}

			};
		}

	}

}
