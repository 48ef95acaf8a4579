package io.leaderelection.kubernetes;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.leaderelection.RevocationCause;
import io.leaderelection.chaos.NetworkLink;
import io.leaderelection.chaos.Pause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionRuntime;
import io.leaderelection.engine.ElectionScheduler;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.ForwardingLeaseStore;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseWatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Lease seen missing before a gap, or at one read of a polling follower, says nothing about the
 * time after it: it may have been created, held and deleted meanwhile, and its leader's gate may
 * still be open. The engine-level cases of AbsenceAcrossGapsTests on fabric8's CRUD mock server:
 * each replica an engine on the production threads and monotonic clock, with its own fabric8
 * client through its own TCP proxy. A replica is cut off by black-holing its proxy, and frozen by
 * pausing its scheduler, listener calls and watch opener with its proxy black-holed, as a stopped
 * process runs nothing and reads nothing. In each case the leader of the Lease that is deleted is
 * cut off right after a renewal, so that its gate stays open for most of a renew deadline after
 * the deletion. Every gate-open interval (the listeners' gateOpenedAt and gateClosedAt) and every
 * sample of isLeader() must show one gate open at a time.
 * <p>
 * The frozen replica and the follower between two reads poll instead of watching (their store
 * has no watch, as the store contract allows), as client-go's followers do and this engine's do
 * while a watch is refused or backs off: a watch would tell them of the creation and the deletion
 * (for the frozen replica, the events wait in its socket and reach it as it thaws), and a Lease
 * seen created is no absence joined across a gap. The replica cut off watches: its watch ends
 * with its first failed read, before the Lease is deleted.
 */
class AbsenceAcrossGapsCrudServerTests {

	/**
	 * The renew deadline is long beside the retry period and the few requests a replica makes from
	 * reading the Lease missing to leading, so that on today's engine the second gate opens well
	 * within the time the cut-off leader's stays open after its last renewal: 0.1 to 0.7 s of the
	 * 1.2 s were seen, the most on a JVM not yet warm.
	 */
	private static final ElectionSettings ELECTION = new ElectionSettings("default", "team-a", "orders-leader",
			Duration.ofMillis(1500), Duration.ofMillis(1200), Duration.ofMillis(100))
		.renewingEvery(Duration.ofMillis(100));

	/** The longest any step may take: a claim after a Lease seen missing, or after its version seen unchanged. */
	private static final Duration STEP = Duration.ofSeconds(10);

	private OpenedResources opened;

	private NioReactor reactor;

	/** A tool talking to the API server directly, not through any replica's proxy. */
	private KubernetesClient admin;

	private final Gates gates = new Gates();

	private final List<Replica> replicas = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startServer() throws IOException {
		this.opened = new OpenedResources(new KubernetesCrudDispatcher());
		this.reactor = this.opened.open(new NioReactor());
		this.admin = this.opened.open(this.opened.server().createClient());
		// its first request, so that the deletion later on is not slowed by the client's start
		assertThat(lease()).as("the Lease before any replica starts").isNull();
	}

	@AfterEach
	void close() throws Exception {
		this.opened.close();
	}

	@Test
	void aReplicaCutOffBeforeTheLeaseExistedDoesNotJoinItsAbsenceToOneAfterTheCut() throws Exception {
		Replica cut = replica("cut", Following.WATCH, UnaryOperator.identity());
		// cut off as it sees the Lease missing, before it acts on it: a test thread that a busy
		// machine keeps waiting must not let it create and claim the Lease first
		cut.store.whenFirstSeenMissing(cut.link::blackHole);
		cut.engine.start();
		awaitGates("the first replica sees the Lease missing", cut.store::sawItMissing);
		Replica leader = replica("leader", Following.WATCH, UnaryOperator.identity());
		leader.engine.start();
		// the Lease is created and held, unseen by the replica cut off: its reads fail (which also
		// ends its watch, whose events wait in the proxy)
		awaitGates("the second replica leads while the first one's reads fail",
				() -> leader.engine.isLeader() && cut.engine.status(ELECTION.name()).lastError() != null);
		// the leader is cut off in turn, its gate open until its renew deadline; the Lease is
		// deleted behind its back, and the replica cut off first comes back
		leader.cutOffRightAfterARenewal();
		deleteLease();
		cut.link.restore();
		assertOneGateOpenAtATime(cut, leader);
	}

	@Test
	void aReplicaFrozenRightAfterItSawTheLeaseMissingDoesNotJoinItsAbsenceToOneAfterTheFreeze() throws Exception {
		Replica frozen = replica("frozen", Following.POLL, UnaryOperator.identity());
		// it stops as its next read falls due, once it has taken note of the Lease missing, and
		// that read goes out first once it thaws
		frozen.store.whenFirstSeenMissing(frozen::freezeAtItsNextTimer);
		frozen.engine.start();
		awaitGates("the first replica freezes", frozen::frozen);
		Replica leader = replica("leader", Following.WATCH, UnaryOperator.identity());
		leader.engine.start();
		awaitGates("the second replica leads", leader.engine::isLeader);
		// the leader is cut off, its gate open until its renew deadline; the Lease is deleted
		// behind its back, and the frozen replica thaws
		leader.cutOffRightAfterARenewal();
		deleteLease();
		frozen.thaw();
		assertOneGateOpenAtATime(frozen, leader);
	}

	@Test
	void aLeaseCreatedAndDeletedBetweenTwoReadsOfAPollingFollowerNeverOpensASecondGate() throws Exception {
		ClaimBetweenReads interleaving = new ClaimBetweenReads("first");
		Replica first = replica("first", Following.WATCH, interleaving::claimant);
		first.engine.start();
		awaitGates("the first replica sees the Lease missing", first.store::sawItMissing);
		// A stagger, not a wait for anything: the follower starts a fifth of a lease duration later
		// (AbsenceAcrossGapsTests: 1 s of 15), so that the first replica claims first whichever way
		// it claims. It is short beside the renew deadline: on today's engine the follower, whose
		// absence begins that much later, claims while the first replica's gate is still open. The
		// interleaving of the claim, the deletion and the follower's reads is not left to timing:
		// see ClaimBetweenReads.
		long firstSawItMissingAt = first.store.sawItMissingAt();
		awaitGates("a fifth of a lease duration",
				() -> System.nanoTime() - firstSawItMissingAt >= ELECTION.leaseDuration().toNanos() / 5);
		Replica polling = replica("polling", Following.POLL, interleaving::follower);
		polling.engine.start();
		awaitGates("the polling follower reads the Lease", polling.store::hasRead);
		interleaving.arm();
		awaitGates("the first replica leads", first.engine::isLeader);
		assertThat(interleaving.claimSentBetweenReads())
			.as("the first replica's claim went out after a read of the follower and before its next one")
			.isTrue();
		// the first replica is cut off, its gate open until its renew deadline, and the Lease is
		// deleted before the follower reads again
		first.cutOffRightAfterARenewal();
		deleteLease();
		interleaving.releaseReads();
		assertOneGateOpenAtATime(polling, first);
	}

	/**
	 * Waits until the replica that comes back leads and the gate of the one cut off has closed,
	 * then checks that no two gates were ever open at once, and that fencing tokens grew term by
	 * term.
	 */
	private void assertOneGateOpenAtATime(Replica comingBack, Replica cutOff) {
		awaitGates(comingBack.name + " leads and the gate of " + cutOff.name + " has closed",
				() -> comingBack.engine.isLeader() && this.gates.open(comingBack.name) && this.gates.closed(cutOff.name));
		assertThat(this.gates.overlaps()).as("gate-open intervals that overlap, out of%n%s", this.gates).isEmpty();
		assertThat(this.gates.seenTogether()).as("samples of isLeader() true on several replicas, with%n%s", this.gates)
			.isEmpty();
		assertThat(this.gates.tokensInOrder()).as("fencing tokens in the order of the terms, out of%n%s", this.gates)
			.isSorted()
			.doesNotHaveDuplicates();
	}

	/** Waits for the condition, sampling every replica's gate meanwhile. */
	private void awaitGates(String what, Callable<Boolean> condition) {
		await(what).atMost(STEP).pollInterval(Duration.ofMillis(5)).until(() -> {
			this.gates.sample(this.replicas);
			return condition.call();
		});
	}

	private Lease lease() {
		return this.admin.leases().inNamespace(ELECTION.namespace()).withName(ELECTION.leaseName()).get();
	}

	private void deleteLease() {
		assertThat(this.admin.leases().inNamespace(ELECTION.namespace()).withName(ELECTION.leaseName()).delete())
			.as("Leases deleted")
			.hasSize(1);
	}

	private Replica replica(String name, Following following, UnaryOperator<LeaseStore> wrap) {
		Replica replica = new Replica(name, following, wrap);
		this.replicas.add(replica);
		return replica;
	}

	private <T extends AutoCloseable> T open(T resource) {
		return this.opened.open(resource);
	}

	/** How a replica follows the Lease between its own attempts. */
	private enum Following {

		/** Watches it whenever the store can. */
		WATCH,

		/** Only reads it, every retry period. */
		POLL

	}

	/**
	 * One replica: an engine with its own threads, fabric8 client and proxy, and a pause that
	 * freezes it.
	 */
	private final class Replica implements ElectionListener {

		private final String name;

		private final NetworkLink link;

		private final Pause pause = new Pause();

		private final ReplicaStore store;

		private final ElectionEngine engine;

		private volatile CompletableFuture<Void> nextRenewal = new CompletableFuture<>();

		private final AtomicBoolean freezingAtNextTimer = new AtomicBoolean();

		private volatile boolean frozen;

		Replica(String name, Following following, UnaryOperator<LeaseStore> wrap) {
			this.name = name;
			this.link = open(NetworkLink.open(AbsenceAcrossGapsCrudServerTests.this.reactor,
					AbsenceAcrossGapsCrudServerTests.this.opened.server().getPort()));
			LeaderElectionThreads threads = open(new LeaderElectionThreads());
			KubernetesClient client = open(
					new KubernetesClientBuilder().withConfig(MockApiServer.clientConfig(this.link.port(), name).build()).build());
			KubernetesLeaseStores stores = open(
					new KubernetesLeaseStores(client, this.pause.pausing(threads.blockingCalls()), threads.requests()));
			this.store = new ReplicaStore(wrap.apply(stores.create(ELECTION)), following);
			ElectionRuntime production = threads.runtime();
			ElectionRuntime runtime = new ElectionRuntime(freezable(this.pause.pausing(production.scheduler())),
					production.monotonicClock(), production.wallClock(),
					this.pause.pausing(production.callbackExecutor()), production.random());
			this.engine = new ElectionEngine(name, List.of(ELECTION), (settings) -> this.store, runtime,
					List.of(AbsenceAcrossGapsCrudServerTests.this.gates.of(name), this));
			open(() -> this.engine.stop(false).join());
			// before the engine stops, which must not wait for a frozen scheduler
			open(this.pause::thaw);
		}

		/**
		 * Stops the process when the next of its timers falls due (its next read, for a follower
		 * that has read the Lease): nothing of the elector runs from then on, that task included,
		 * and nothing reaches its client.
		 */
		void freezeAtItsNextTimer() {
			this.freezingAtNextTimer.set(true);
		}

		/** The paused scheduler, freezing the process when asked to as a timer falls due. */
		private ElectionScheduler freezable(ElectionScheduler paused) {
			return (task, delayNanos) -> paused.schedule(() -> {
				if (delayNanos > 0 && this.freezingAtNextTimer.compareAndSet(true, false)) {
					freeze();
					// the task that fell due runs once the process thaws
					paused.execute(task);
				}
				else {
					task.run();
				}
			}, delayNanos);
		}

		private void freeze() {
			this.pause.freeze();
			this.link.blackHole();
			this.frozen = true;
		}

		boolean frozen() {
			return this.frozen;
		}

		/** Lets the process go on: the tasks that fell due meanwhile run late. */
		void thaw() {
			this.link.restore();
			this.pause.thaw();
		}

		/**
		 * Black-holes this replica's proxy right after its next successful renewal, so that its
		 * gate stays open for most of a renew deadline without anyone else seeing it renew.
		 */
		void cutOffRightAfterARenewal() throws Exception {
			CompletableFuture<Void> renewal = new CompletableFuture<>();
			this.nextRenewal = renewal;
			renewal.get(STEP.toMillis(), TimeUnit.MILLISECONDS);
			this.link.blackHole();
		}

		@Override
		public void renewed(String election, boolean success, long nanos) {
			if (success) {
				this.nextRenewal.complete(null);
			}
		}

	}

	/**
	 * A replica's store as the test sees it: whether and when a read found the Lease missing, and
	 * whether one was answered at all. A polling replica's store has no watch.
	 */
	private static final class ReplicaStore extends ForwardingLeaseStore {

		private final Following following;

		private final CompletableFuture<Long> firstSeenMissingAt = new CompletableFuture<>();

		private final AtomicInteger readsAnswered = new AtomicInteger();

		private volatile Runnable firstSeenMissing = () -> {
		};

		ReplicaStore(LeaseStore store, Following following) {
			super(store);
			this.following = following;
		}

		boolean sawItMissing() {
			return this.firstSeenMissingAt.isDone();
		}

		/** When a read first found the Lease missing, on the monotonic clock. */
		long sawItMissingAt() {
			return this.firstSeenMissingAt.join();
		}

		boolean hasRead() {
			return this.readsAnswered.get() > 0;
		}

		/** Runs the action when a read first finds the Lease missing, before the engine is told. */
		void whenFirstSeenMissing(Runnable action) {
			this.firstSeenMissing = action;
		}

		@Override
		public CompletableFuture<LeaseRecord> get(Duration timeout) {
			return this.delegate.get(timeout).thenApply((stored) -> {
				this.readsAnswered.incrementAndGet();
				if (stored == null && this.firstSeenMissingAt.complete(System.nanoTime())) {
					this.firstSeenMissing.run();
				}
				return stored;
			});
		}

		@Override
		public LeaseWatch watch(LeaseWatch.Listener listener) {
			return (this.following == Following.WATCH) ? this.delegate.watch(listener) : null;
		}

	}

	/**
	 * Puts the claim of one replica between two reads of a polling follower, and keeps the
	 * follower's next read back until the test has deleted the Lease: once armed, a write of the
	 * claimant goes out only when no read of the follower is on its way, and the follower's reads
	 * then wait, unsent, until the write is answered if it made no claim (a Lease written without
	 * the claimant as holder), else until {@link #releaseReads()}. A read held back is only a
	 * slower one: it is sent well within its timeout.
	 */
	private static final class ClaimBetweenReads {

		private final String claimant;

		private boolean armed;

		private boolean claimSent;

		private boolean readsHeld;

		private int readsOnTheirWay;

		private int readsAnswered;

		private boolean readBeforeClaim;

		private final List<Runnable> heldReads = new ArrayList<>();

		private Runnable heldWrite;

		ClaimBetweenReads(String claimant) {
			this.claimant = claimant;
		}

		synchronized void arm() {
			this.armed = true;
		}

		/** Whether a claim went out after a read of the follower had been answered, none being on its way. */
		synchronized boolean claimSentBetweenReads() {
			return this.claimSent && this.readBeforeClaim;
		}

		LeaseStore follower(LeaseStore store) {
			return new ForwardingLeaseStore(store) {

				@Override
				public CompletableFuture<LeaseRecord> get(Duration timeout) {
					CompletableFuture<LeaseRecord> answer = new CompletableFuture<>();
					Runnable send = () -> {
						if (answer.isDone()) {
							// given up by the engine while held back
							readEnded(false);
							return;
						}
						store.get(timeout).whenComplete((stored, failure) -> {
							readEnded(failure == null);
							complete(answer, stored, failure);
						});
					};
					if (mayRead(send)) {
						send.run();
					}
					return answer;
				}

			};
		}

		LeaseStore claimant(LeaseStore store) {
			return new ForwardingLeaseStore(store) {

				@Override
				public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
					return write(() -> store.create(record, timeout));
				}

				@Override
				public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
					return write(() -> store.update(record, timeout));
				}

			};
		}

		/** Lets the follower's reads go out again, those held back first. */
		void releaseReads() {
			List<Runnable> held;
			synchronized (this) {
				this.readsHeld = false;
				held = List.copyOf(this.heldReads);
				this.heldReads.clear();
				this.readsOnTheirWay += held.size();
			}
			held.forEach(Runnable::run);
		}

		private synchronized boolean mayRead(Runnable send) {
			if (this.readsHeld) {
				this.heldReads.add(send);
				return false;
			}
			this.readsOnTheirWay++;
			return true;
		}

		private void readEnded(boolean answered) {
			Runnable write;
			synchronized (this) {
				this.readsOnTheirWay--;
				if (answered) {
					this.readsAnswered++;
				}
				write = (this.readsOnTheirWay == 0) ? this.heldWrite : null;
				if (write != null) {
					this.heldWrite = null;
					this.readBeforeClaim = this.readsAnswered > 0;
				}
			}
			if (write != null) {
				write.run();
			}
		}

		private CompletableFuture<LeaseRecord> write(Supplier<CompletableFuture<LeaseRecord>> request) {
			CompletableFuture<LeaseRecord> answer = new CompletableFuture<>();
			Runnable send = () -> request.get().whenComplete((stored, failure) -> {
				written(stored);
				complete(answer, stored, failure);
			});
			if (mayWrite(send)) {
				send.run();
			}
			return answer;
		}

		private synchronized boolean mayWrite(Runnable send) {
			if (!this.armed || this.claimSent) {
				return true;
			}
			this.readsHeld = true;
			if (this.readsOnTheirWay == 0) {
				this.readBeforeClaim = this.readsAnswered > 0;
				return true;
			}
			this.heldWrite = send;
			return false;
		}

		private void written(LeaseRecord stored) {
			synchronized (this) {
				if (!this.armed || this.claimSent) {
					return;
				}
				if (stored != null && stored.isHeldBy(this.claimant)) {
					// the follower's reads stay held back until the Lease is deleted
					this.claimSent = true;
					return;
				}
			}
			releaseReads();
		}

		private static void complete(CompletableFuture<LeaseRecord> answer, LeaseRecord stored, Throwable failure) {
			if (failure != null) {
				answer.completeExceptionally(failure);
			}
			else {
				answer.complete(stored);
			}
		}

	}

	/**
	 * Every term of every replica, with the moments its gate opened and closed as the engine told
	 * them on its monotonic clock (this JVM's, shared by all replicas), and the moments sampling
	 * found several replicas leading at once.
	 */
	private static final class Gates {

		private final long origin = System.nanoTime();

		private final List<GateInterval> intervals = new ArrayList<>();

		/** Replicas sampled leading together, and when: a run of samples of the same replicas in one entry. */
		private final List<SampledTogether> seenTogether = new ArrayList<>();

		ElectionListener of(String replica) {
			return new ElectionListener() {

				@Override
				public void granted(String election, long fencingToken, long gateOpenedAt) {
					opened(replica, fencingToken, gateOpenedAt);
				}

				@Override
				public void revoked(String election, RevocationCause cause, long gateClosedAt) {
					closed(replica, cause, gateClosedAt);
				}

			};
		}

		private synchronized void opened(String replica, long fencingToken, long at) {
			this.intervals.add(new GateInterval(replica, fencingToken, at));
		}

		private synchronized void closed(String replica, RevocationCause cause, long at) {
			GateInterval last = last(replica);
			if (last != null && last.closedAt == null) {
				last.closedAt = at;
				last.cause = cause;
			}
		}

		void sample(List<Replica> replicas) {
			long at = System.nanoTime();
			List<String> leading = replicas.stream()
				.filter((replica) -> replica.engine.isLeader(ELECTION.name()))
				.map((replica) -> replica.name)
				.toList();
			if (leading.size() > 1) {
				synchronized (this) {
					SampledTogether last = this.seenTogether.isEmpty() ? null
							: this.seenTogether.get(this.seenTogether.size() - 1);
					if (last != null && last.leading.equals(leading)) {
						last.lastAt = at;
						last.samples++;
					}
					else {
						this.seenTogether.add(new SampledTogether(leading, at));
					}
				}
			}
		}

		/** Whether the replica's last gate is open, as its listener was told. */
		synchronized boolean open(String replica) {
			GateInterval last = last(replica);
			return last != null && last.closedAt == null;
		}

		/** Whether the replica's gate opened and its last one has closed, as its listener was told. */
		synchronized boolean closed(String replica) {
			GateInterval last = last(replica);
			return last != null && last.closedAt != null;
		}

		/** The pairs of intervals of different replicas that overlap; one still open runs on. */
		synchronized List<String> overlaps() {
			List<String> overlaps = new ArrayList<>();
			for (int i = 0; i < this.intervals.size(); i++) {
				for (int j = i + 1; j < this.intervals.size(); j++) {
					GateInterval one = this.intervals.get(i);
					GateInterval other = this.intervals.get(j);
					if (!one.replica.equals(other.replica) && one.openedBefore(other) && other.openedBefore(one)) {
						overlaps.add(describe(one) + " and " + describe(other));
					}
				}
			}
			return overlaps;
		}

		synchronized List<String> seenTogether() {
			return this.seenTogether.stream().map(this::describe).toList();
		}

		/** The fencing tokens of the terms, in the order their gates opened. */
		synchronized List<Long> tokensInOrder() {
			return this.intervals.stream()
				.sorted(Comparator.comparingLong((interval) -> interval.openedAt - this.origin))
				.map((interval) -> interval.fencingToken)
				.toList();
		}

		private GateInterval last(String replica) {
			for (int i = this.intervals.size() - 1; i >= 0; i--) {
				if (this.intervals.get(i).replica.equals(replica)) {
					return this.intervals.get(i);
				}
			}
			return null;
		}

		private String describe(GateInterval interval) {
			return String.format("%s's gate open from %d ms to %s, fencing token %d", interval.replica,
					millis(interval.openedAt),
					(interval.closedAt != null) ? millis(interval.closedAt) + " ms (" + interval.cause + ")" : "now",
					interval.fencingToken);
		}

		private String describe(SampledTogether sampled) {
			return String.format("%s leading in %d samples from %d ms to %d ms", sampled.leading, sampled.samples,
					millis(sampled.firstAt), millis(sampled.lastAt));
		}

		private long millis(long nanos) {
			return TimeUnit.NANOSECONDS.toMillis(nanos - this.origin);
		}

		@Override
		public synchronized String toString() {
			StringBuilder all = new StringBuilder();
			this.intervals.forEach((interval) -> all.append("  ").append(describe(interval)).append('\n'));
			this.seenTogether.forEach((sampled) -> all.append("  ").append(describe(sampled)).append('\n'));
			return all.toString();
		}

	}

	/** Samples that found the same replicas leading together. */
	private static final class SampledTogether {

		private final List<String> leading;

		private final long firstAt;

		private long lastAt;

		private int samples = 1;

		SampledTogether(List<String> leading, long at) {
			this.leading = leading;
			this.firstAt = at;
			this.lastAt = at;
		}

	}

	/** One term of one replica: its gate open from {@code openedAt} until {@code closedAt}, {@code null} while open. */
	private static final class GateInterval {

		private final String replica;

		private final long fencingToken;

		private final long openedAt;

		private Long closedAt;

		private RevocationCause cause;

		GateInterval(String replica, long fencingToken, long openedAt) {
			this.replica = replica;
			this.fencingToken = fencingToken;
			this.openedAt = openedAt;
		}

		/** Whether this gate opened before the other one closed (one still open closes never). */
		boolean openedBefore(GateInterval other) {
			return other.closedAt == null || this.openedAt - other.closedAt < 0;
		}

	}

}
