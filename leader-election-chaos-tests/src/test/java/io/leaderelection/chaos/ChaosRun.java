package io.leaderelection.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.chaos.LeadershipHistory.LeaseVersion;
import io.leaderelection.engine.ForLifePodException;
import org.awaitility.core.ConditionTimeoutException;
import org.netcrusher.core.reactor.NioReactor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.awaitility.Awaitility.await;

/**
 * One chaos run of one elector: replicas campaign on an API server ({@link ChaosServer}: fabric8's
 * CRUD mock unless the run is given another), each through its own link, and run leader-only
 * jobs, while faults are injected, each chosen, aimed and sized by the seeded random generator. Every kind of fault comes once in each round (the gaps across an
 * absence twice but for balanced shards, {@link FaultMix#round()}), in a seeded order. Now and then a fault is held
 * together with one or two more, injected while it is held and aimed at replicas it leaves alone,
 * such as the successor of a leader it cut off. Once every fault is healed the run waits, up to
 * {@link ChaosSettings#RECOVERY_TIMEOUT}, for every election to have a leader again, then idles
 * briefly and injects the next. The seed fixes the sequence of kinds, durations, magnitudes and
 * whether a fault aims at the leader; which replica leads at that moment is up to the run.
 * <p>
 * Where the mix has gaps across an absence ({@link FaultKind#FOLLOWER_CUT_WHILE_MISSING}), the run
 * begins with one or two of them: before any Lease exists, a replica (two of five) is cut off or
 * frozen once it has seen the Leases missing, and healed around a deletion once the others lead
 * (the first fault, numbered 0, held with one or two more). Not so for balanced shards, whose
 * start, 32 Leases spread over the replicas, is slow enough: on a loaded machine it may not elect
 * a leader in every shard within {@link #START_TIMEOUT} even without.
 * <p>
 * In a user's cluster ({@link ChaosSettings#mixed()}), faults come at random moments instead,
 * whatever is held and whoever leads, for the run's time, without waiting for leaders.
 * <p>
 * The API server tells the run of every version of a Lease it stores, so that the history can
 * check what the electors' writes carry over and when they release.
 * <p>
 * For an elector that elects leaders for life, each process runs in a Pod, and the run plays
 * Kubernetes around them ({@link Pods}): before a replica's process starts, it creates a Pod for
 * it, with a fresh uid, unless the process is a restarted container of the Pod before; a
 * graceful stop is a release, then the Pod deleted; an abrupt stop is the process killed, then
 * its Pod deleted and its locks collected by the garbage collector; an eviction is the process
 * cut off and killed, then its Pod reported {@code Failed} and left there, locks and all. A new
 * Pod takes the name of the one before, as a StatefulSet's does, or a new name, as a
 * Deployment's, as drawn. The faults are those of {@link FaultMix#FOR_LIFE}.
 * <p>
 * For balanced shards ({@link ChaosSettings#balancedShards()}), the elections are the shards of
 * one election, which the replicas spread among them through member Leases on the same API
 * server (the history looks only at the shards' Leases). Replicas join, in slots left empty at
 * the start, and leave, and the run samples how evenly the live replicas hold the shards, as it
 * goes. The faults are those of {@link FaultMix#SHARDED}.
 */
final class ChaosRun {

	private static final Logger logger = LoggerFactory.getLogger(ChaosRun.class);

	/**
	 * How often a fault aims at the replica leading the most elections rather than at any
	 * replica: faults on followers rarely move leadership.
	 */
	private static final double AIMED_AT_LEADER = 0.75;

	/**
	 * Faults that act on a leader's terms, and so always aim at the replica leading the most
	 * elections; for life, also the eviction and the container restart, which are about what
	 * becomes of a leader's locks.
	 */
	private static final Set<FaultKind> ALWAYS_AIMED_AT_LEADER = EnumSet.of(FaultKind.LEASE_DELETED,
			FaultKind.LEASE_DELETED_CUT_OFF, FaultKind.FOLLOWER_CUT_WHILE_MISSING, FaultKind.FROZEN_WHILE_MISSING,
			FaultKind.STEP_DOWN, FaultKind.DRAIN_TIMEOUT, FaultKind.PREFERRED_HOLDER, FaultKind.EVICTION,
			FaultKind.CONTAINER_RESTART, FaultKind.EXIT_REPORTED);

	/**
	 * Faults injected at random moments are at most this many times their mean interval apart, so
	 * that a run of a minute is not left without faults for a good part of it.
	 */
	private static final double MOST_MEAN_TIMES_APART = 4;

	/**
	 * Faults that act on the leader's Leases, not on the leader: they aim at it whatever else is
	 * held on it, as a deletion may come while the leader is slow or paused. (Not for life, whose
	 * deletions wait for every process to have seen the lock held.)
	 */
	private static final Set<FaultKind> ON_THE_LEADERS_LEASES = EnumSet.of(FaultKind.LEASE_DELETED,
			FaultKind.FOLLOWER_CUT_WHILE_MISSING, FaultKind.FROZEN_WHILE_MISSING);

	/** How often a fault is held together with others injected while it is held. */
	private static final double HELD_TOGETHER = 0.25;

	/** How often the run looks at the faults it holds: heals them, repeats them, injects more. */
	private static final Duration HOLD_TICK = Duration.ofMillis(5);

	/** How long a fault that makes a leader start a job waits for the job to read the gate. */
	private static final Duration JOB_START_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration ONE_HOUR = Duration.ofHours(1);

	/**
	 * How long the run waits, at its start, for every election to have a leader: the replicas'
	 * first campaign is the slowest (every missing Lease is created only once seen missing for a
	 * lease duration, every class is loaded and compiled), the more so with the many elections of
	 * balanced shards.
	 */
	private static final Duration START_TIMEOUT = ChaosSettings.RECOVERY_TIMEOUT.multipliedBy(3);

	/**
	 * How often, for life, a process that cannot read its Pod at its start is started again: on a
	 * machine whose cores other tests keep busy, ten starts in a row have read no Pod in time.
	 */
	private static final int CONTAINER_STARTS = 30;

	private final Elector elector;

	private final ChaosSettings settings;

	/** Starts the API server of the run. */
	private final Supplier<ChaosServer> servers;

	/** The kinds of fault injected, and which are held apart. */
	private final FaultMix mix;

	/** Draws the faults; used by the driver thread only, a fixed number of times per fault. */
	private final Random random;

	/** Seeds the processes and their jobs, apart from the faults. */
	private final Random processSeeds;

	private final LeadershipHistory history = new LeadershipHistory();

	/** The replicas faults aim at. */
	private final List<ReplicaSlot> slots = new ArrayList<>();

	/** The kinds of fault left in the current round. */
	private final Deque<FaultKind> round = new ArrayDeque<>();

	/** The kinds of fault injected so far: the run goes on until it has injected every kind. */
	private final Set<FaultKind> kindsInjected = EnumSet.noneOf(FaultKind.class);

	/** The process running in each replica; a stopped replica has none. Driver thread only. */
	private final Map<ReplicaSlot, Process> processes = new LinkedHashMap<>();

	/** Where a process with another live process's identity runs; no fault aims at it. */
	private ReplicaSlot twin;

	private ChaosServer server;

	private ForeignWriter foreignWriter;

	/** Kubernetes around the replicas, for life; {@code null} otherwise. */
	private Pods pods;

	/** In lease mode, where the kubelet's report of a process's end is injected: the Pods they run in. */
	private ContainerPods containerPods;

	/** The Leases the API server stores now, as it tells of them. */
	private final Set<String> storedLeases = ConcurrentHashMap.newKeySet();

	/** What passed between the API server and the replicas about each Lease, for faults to time themselves on. */
	private final LeaseTraffic traffic = new LeaseTraffic();

	/** A run on fabric8's mock server, with the mix of the elector and the settings. */
	ChaosRun(Elector elector, ChaosSettings settings) {
		this(elector, settings, ChaosApiServer::start, elector.forLife() ? FaultMix.FOR_LIFE
				: settings.mixed() ? FaultMix.USERS_CLUSTER
						: settings.balancedShards() ? FaultMix.SHARDED : FaultMix.LEASE);
	}

	/**
	 * A run on the server the given supplier starts (and the run closes), with the given mix of
	 * faults, which that server must be able to inject.
	 */
	ChaosRun(Elector elector, ChaosSettings settings, Supplier<ChaosServer> servers, FaultMix mix) {
		this.elector = elector;
		this.settings = settings;
		this.servers = servers;
		this.mix = mix;
		this.random = new Random(settings.seed());
		this.processSeeds = new Random(this.random.nextLong());
	}

	ChaosOutcome run() {
		logger.info("Chaos run of {} with seed {} (set -Dchaos.seeds to repeat it): {} replicas, {} elections, "
				+ "until {} transitions or {}", this.elector.name(), this.settings.seed(), this.settings.replicas(),
				this.settings.elections(), this.settings.transitions(), this.settings.timeLimit());
		this.server = this.servers.get();
		Map<String, String> electionOfLease = this.settings.electionNames()
			.stream()
			.collect(Collectors.toMap(this.settings::leaseName, (election) -> election));
		this.server.onLeaseWritten((lease, client, stored) -> {
			String election = electionOfLease.get(lease);
			if (election == null) {
				// a member Lease of a balanced group: who campaigns, not who leads
				if (logger.isDebugEnabled()) {
					logger.debug("member {} {} by {}", lease,
							(stored != null) ? "written, holder " + stored.getSpec().getHolderIdentity() : "deleted",
							client);
				}
				return;
			}
			if (stored != null) {
				this.storedLeases.add(lease);
				this.traffic.stored(lease, System.nanoTime());
			}
			else {
				this.storedLeases.remove(lease);
			}
			this.history.versionStored(election, client,
					(stored != null) ? "holder " + stored.getSpec().getHolderIdentity() + ", resourceVersion "
							+ stored.getMetadata().getResourceVersion() + ", uid " + stored.getMetadata().getUid()
							: null,
					System.nanoTime());
			this.history.leaseWritten(election, client,
					(stored != null) ? LeaseVersion.of(stored) : null, System.nanoTime());
			if (logger.isDebugEnabled()) {
				logger.debug("{} {} by {}", lease, (stored != null) ? "written" + describe(stored) : "deleted", client);
			}
		});
		this.server.onLeaseRequest((lease, client, request, code) -> {
			this.traffic.answered(lease, client, request, code, System.nanoTime());
			String election = electionOfLease.get(lease);
			// a write that succeeded is told as the version it stored
			boolean stored = (code == 200 || code == 201) && ("PUT".equals(request) || "POST".equals(request)
					|| "PATCH".equals(request));
			if (election != null && !stored) {
				this.history.leaseRequested(election, client, request + " answered " + code, System.nanoTime());
			}
		});
		NioReactor reactor = newReactor();
		try {
			for (int i = 0; i < this.settings.replicas() + this.settings.spareReplicas(); i++) {
				this.slots.add(new ReplicaSlot("r" + i, link(reactor), this.server));
			}
			this.twin = new ReplicaSlot("twin", link(reactor), this.server);
			this.foreignWriter = ForeignWriter.open(this.server, "foreign-writer");
			if (this.elector.forLife()) {
				this.pods = Pods.start(this.server, this.elector.identityPrefix());
			}
			else if (this.mix.kinds().contains(FaultKind.EXIT_REPORTED)) {
				this.containerPods = new ContainerPods(this.server);
			}
			long startedAt = System.nanoTime();
			List<ReplicaSlot> starting = this.slots.subList(0, this.settings.replicas());
			List<Injection> startGaps = (this.mix.kinds().contains(FaultKind.FOLLOWER_CUT_WHILE_MISSING)
					&& !this.settings.balancedShards()) ? startGaps(starting) : List.of();
			starting.forEach((slot) -> startProcess(slot, true));
			long endAt = startedAt + this.settings.timeLimit().toNanos();
			if (this.settings.mixed()) {
				injectMixed(startGaps, endAt);
			}
			else {
				injectOneAfterAnother(startGaps, endAt);
			}
			if (this.pods != null) {
				logger.info("{}: the garbage collector deleted {} Leases of deleted Pods", this.elector.name(),
						this.pods.collected());
			}
			sampleSpread();
			return this.history.outcome(this.elector.name(), this.settings, startedAt, System.nanoTime());
		}
		finally {
			// a frozen process would hold its own end up
			this.slots.forEach((slot) -> slot.pause().thaw());
			this.processes.values().forEach(Process::kill);
			if (this.pods != null) {
				this.pods.close();
			}
			if (this.containerPods != null) {
				this.containerPods.close();
			}
			this.slots.forEach(ReplicaSlot::close);
			if (this.twin != null) {
				this.twin.close();
			}
			if (this.foreignWriter != null) {
				this.foreignWriter.close();
			}
			reactor.close();
			this.server.close();
		}
	}

	/**
	 * Faults one at a time, now and then a few held together, the run waiting for every election
	 * to have a leader after each, until enough transitions happened and every kind of the mix
	 * was injected, or the time is up. The gaps at the start, if any, are held first, with one or
	 * two more faults.
	 */
	private void injectOneAfterAnother(List<Injection> startGaps, long endAt) {
		if (!startGaps.isEmpty()) {
			hold(0, startGaps, new ArrayDeque<>(planMore(new Random(this.random.nextLong()))));
		}
		if (!awaitLeaders(START_TIMEOUT)) {
			throw new IllegalStateException(this.elector.name() + " elected no leader in every election");
		}
		int injected = 0;
		while ((this.history.transitions() < this.settings.transitions()
				|| !this.kindsInjected.containsAll(this.mix.kinds())) && System.nanoTime() - endAt < 0) {
			idle(millisBetween(this.random, 0, 2 * ChaosSettings.RETRY_PERIOD.toMillis()));
			sampleSpread();
			injectFault(++injected);
		}
	}

	/**
	 * Faults at random moments, one every {@link ChaosSettings#mixedFaultEvery()} on average
	 * (exponentially apart, at most {@value #MOST_MEAN_TIMES_APART} times that), whatever is held
	 * and whoever leads, each aimed at a replica no held fault acts on, until the time is up, as in
	 * a user's cluster. The gaps at the start, if any, are held from the start.
	 */
	private void injectMixed(List<Injection> startGaps, long endAt) {
		List<Injection> held = new ArrayList<>(startGaps);
		Random arrivals = new Random(this.random.nextLong());
		long meanNanos = this.settings.mixedFaultEvery().toNanos();
		long nextAt = System.nanoTime();
		int injected = 0;
		while (System.nanoTime() - endAt < 0) {
			long now = System.nanoTime();
			if (now - nextAt >= 0) {
				injectWhileOthersHeld(++injected, held);
				nextAt = now + Math.round(Math.min(-Math.log(1 - arrivals.nextDouble()), MOST_MEAN_TIMES_APART) * meanNanos);
			}
			tick(held, System.nanoTime());
			idle(HOLD_TICK);
		}
	}

	/** Injects the next kind of fault at a replica none of the held faults acts on, if any is left. */
	private void injectWhileOthersHeld(int number, List<Injection> held) {
		FaultKind kind = nextKind();
		Random draws = new Random(this.random.nextLong());
		Set<ReplicaSlot> busy = new HashSet<>();
		held.forEach((fault) -> busy.addAll(fault.affected()));
		long injectedAt = System.nanoTime();
		Injection fault = inject(kind, draws, busy);
		if (fault == null) {
			logger.info("{} fault {}: {} found no replica to aim at", this.elector.name(), number, kind.label());
			return;
		}
		recordInjection(number, fault, injectedAt, held.isEmpty() ? null
				: held.stream().map((other) -> other.kind.label()).collect(Collectors.joining(", ")) + " held");
		held.add(fault);
	}

	/**
	 * At the start, one replica, two of five or more, each cut off or frozen once it has seen
	 * the Leases missing, before any exists, and healed around a deletion once others lead: as
	 * {@link FaultKind#FOLLOWER_CUT_WHILE_MISSING} and {@link FaultKind#FROZEN_WHILE_MISSING} do
	 * later in the run after a deletion. A replica is cut off once it has asked again about every
	 * Lease after a read found it missing; it is frozen right after it has acted on the last of its
	 * first reads that found each Lease missing ({@link Pause#freezeAfterNextTask()}), before it
	 * can open a watch of that Lease (nor, if they are still waiting, of the others) or read again.
	 */
	private List<Injection> startGaps(List<ReplicaSlot> starting) {
		Random draws = new Random(this.random.nextLong());
		List<ReplicaSlot> gapped = new ArrayList<>(starting);
		Collections.shuffle(gapped, draws);
		int count = (gapped.size() >= 5) ? 2 : 1;
		List<String> elections = this.settings.electionNames();
		List<Injection> gaps = new ArrayList<>();
		for (ReplicaSlot slot : gapped.subList(0, count)) {
			long injectedAt = System.nanoTime();
			AbsenceGap.Kind kind = draws.nextBoolean() ? AbsenceGap.Kind.CUT : AbsenceGap.Kind.FREEZE;
			AbsenceGap gap = (kind == AbsenceGap.Kind.FREEZE) ? frozenOnReadsMissing(slot, elections, draws)
					: absenceGap(kind, slot, elections, (election) -> this.traffic.actedOnMissing(slot.name(),
							this.settings.leaseName(election)), () -> {
							}, draws);
			Injection fault = gapInjection(kind.faultKind(), gap, "at the start, before any Lease exists: ");
			recordInjection(0, fault, injectedAt, null);
			gaps.add(fault);
		}
		return gaps;
	}

	/**
	 * Injects the next fault, and maybe more while it is held, holds them, heals them and waits
	 * for every election to have a leader.
	 */
	private void injectFault(int number) {
		FaultKind kind = nextKind();
		Random draws = new Random(this.random.nextLong());
		boolean together = this.random.nextDouble() < HELD_TOGETHER && !this.mix.heldAlone(kind);
		Deque<PlannedFault> more = new ArrayDeque<>(together ? planMore(draws) : List.of());
		long injectedAt = System.nanoTime();
		Injection fault = inject(kind, draws, Set.of());
		if (fault == null) {
			logger.info("{} fault {}: {} found no replica to aim at", this.elector.name(), number, kind.label());
			return;
		}
		recordInjection(number, fault, injectedAt, null);
		hold(number, List.of(fault), more);
		awaitLeaders();
	}

	/** The next kind of fault: every kind of a round ({@link FaultMix#round()}), in an order drawn for each round. */
	private FaultKind nextKind() {
		if (this.round.isEmpty()) {
			List<FaultKind> kinds = this.mix.round();
			Collections.shuffle(kinds, this.random);
			this.round.addAll(kinds);
		}
		return this.round.poll();
	}

	/** One or two more faults, injected while the first is held, between a fifth and nine tenths of its time. */
	private static List<PlannedFault> planMore(Random draws) {
		int count = 1 + draws.nextInt(2);
		List<PlannedFault> planned = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			planned.add(new PlannedFault(0.2 + 0.7 * draws.nextDouble(), draws.nextLong()));
		}
		planned.sort(Comparator.comparingDouble(PlannedFault::afterShare));
		return planned;
	}

	/**
	 * Holds the faults injected, repeating what they repeat, and heals each once it is over; while
	 * the first one is held, injects the planned ones at their time.
	 */
	private void hold(int number, List<Injection> injected, Deque<PlannedFault> planned) {
		List<Injection> held = new ArrayList<>(injected);
		Injection first = injected.get(0);
		while (!held.isEmpty()) {
			long now = System.nanoTime();
			if (!planned.isEmpty() && held.contains(first)
					&& now - first.startedAt >= first.duration.toNanos() * planned.peek().afterShare) {
				injectWhileHeld(number, first, planned.poll(), held);
			}
			tick(held, now);
			idle(HOLD_TICK);
		}
	}

	/** Heals and lets go the held faults that are over, and repeats what the others repeat. */
	private void tick(List<Injection> held, long now) {
		for (Iterator<Injection> faults = held.iterator(); faults.hasNext();) {
			Injection fault = faults.next();
			if (fault.over(now)) {
				fault.healOnce();
				faults.remove();
			}
			else if (fault.healedAtItsTime(now)) {
				fault.healOnce();
			}
			else {
				fault.repeatIfDue(now);
			}
		}
		sampleSpread();
	}

	/**
	 * Injects a fault of a kind drawn among those that may be held together, with the faults
	 * held too, aimed at a replica none of the held faults acts on.
	 */
	private void injectWhileHeld(int number, Injection first, PlannedFault planned, List<Injection> held) {
		Random draws = new Random(planned.seed);
		Set<ReplicaSlot> busy = new HashSet<>();
		held.forEach((fault) -> busy.addAll(fault.affected()));
		List<FaultKind> kinds = this.mix.kinds()
			.stream()
			.filter((kind) -> !this.mix.heldAlone(kind))
			.filter((kind) -> kind != FaultKind.DUPLICATE_IDENTITY || !this.processes.containsKey(this.twin))
			.filter((kind) -> kind != FaultKind.REPLICA_JOINS || spareSlot(busy) != null)
			.filter((kind) -> held.stream().allMatch((fault) -> this.mix.mayHoldTogether(fault.kind, kind)))
			.toList();
		FaultKind kind = kinds.get(draws.nextInt(kinds.size()));
		long injectedAt = System.nanoTime();
		Injection fault = inject(kind, draws, busy);
		if (fault != null) {
			recordInjection(number, fault, injectedAt, first.kind.label() + " of fault " + number + " is held");
			held.add(fault);
		}
	}

	/**
	 * @param heldWith what is held while it is injected, e.g. {@code pause (GC) of fault 12 is held};
	 * {@code null} if nothing
	 */
	private void recordInjection(int number, Injection fault, long injectedAt, String heldWith) {
		String description = (heldWith != null) ? fault.description + ", while " + heldWith : fault.description;
		this.history.faultInjected(fault.kind, description, injectedAt, heldWith != null);
		this.kindsInjected.add(fault.kind);
		logger.info("{} fault {}: {} {} ({} transitions so far)", this.elector.name(), number, fault.kind.label(),
				description, this.history.transitions());
	}

	/**
	 * Injects a fault of the given kind, drawing everything about it from the given generator.
	 * @param busy replicas not to aim at
	 * @return the fault injected, or {@code null} when no replica is left to aim at
	 */
	private Injection inject(FaultKind kind, Random draws, Set<ReplicaSlot> busy) {
		boolean aimedAtLeader = ALWAYS_AIMED_AT_LEADER.contains(kind) || draws.nextDouble() < AIMED_AT_LEADER;
		ReplicaSlot target = (kind == FaultKind.REPLICA_JOINS) ? spareSlot(busy)
				: target(draws, aimedAtLeader,
						(ON_THE_LEADERS_LEASES.contains(kind) && this.pods == null) ? Set.of() : busy);
		if (target == null) {
			return null;
		}
		double magnitude = draws.nextDouble();
		boolean either = draws.nextBoolean();
		List<String> led = electionsLedBy(target);
		String on = "on " + target.name() + ((this.pods != null) ? " (Pod " + podOf(target) + ")" : "") + " leading "
				+ led;
		return switch (kind) {
			case GRACEFUL_STOP -> {
				Duration down = millisBetween(draws, 100, 1000);
				stopReplica(target, true, magnitude < 0.5);
				yield new Injection(kind, on + ", down " + down.toMillis() + " ms" + collection(magnitude < 0.5)
						+ nextPod(either), target, down, () -> startProcess(target, either));
			}
			case ABRUPT_STOP -> {
				Duration down = millisBetween(draws, 100, 1000);
				stopReplica(target, false, magnitude < 0.5);
				yield new Injection(kind, on + ", down " + down.toMillis() + " ms" + collection(magnitude < 0.5)
						+ nextPod(either), target, down, () -> startProcess(target, either));
			}
			case EXIT_REPORTED -> {
				Duration reportedAfter = millisBetween(draws, 100, 1000);
				// its Pod is named after it (startProcess)
				String pod = this.processes.get(target).candidate.identity();
				stopProcess(target, false);
				yield new Injection(kind, on + ", killed, its container reported terminated "
						+ reportedAfter.toMillis() + " ms later, then a new process in a new Pod", target, reportedAfter,
						() -> {
							this.containerPods.terminated(pod);
							startProcess(target, true);
						});
			}
			case BLACK_HOLE -> {
				Duration duration = millisBetween(draws, 200, 3000);
				target.link().blackHole();
				yield new Injection(kind, on + " for " + duration.toMillis() + " ms", target, duration,
						target.link()::restore);
			}
			case CONNECTION_RESETS -> {
				Duration duration = millisBetween(draws, 500, 2000);
				Duration every = between(50, 150, magnitude);
				yield new Injection(kind, on + " every " + every.toMillis() + " ms for " + duration.toMillis() + " ms",
						target, duration, () -> {
						}).repeating(target.link()::resetConnections, every);
			}
			case LATENCY -> {
				Duration duration = millisBetween(draws, 1000, 4000);
				Duration latency = between(100, 3000, magnitude);
				target.link().delay(latency);
				yield new Injection(kind, latency.toMillis() + " ms " + on + " for " + duration.toMillis() + " ms",
						target, duration, target.link()::removeDelay);
			}
			case SERVER_RESTART -> {
				Duration down = millisBetween(draws, 200, 3000);
				this.server.stop();
				yield new Injection(kind, "down " + down.toMillis() + " ms", target, down, this.server::restart);
			}
			case CONFLICT_STORM -> {
				Duration duration = millisBetween(draws, 500, 3000);
				Duration every = between(5, 50, magnitude);
				ConflictStorm storm = ConflictStorm.start(this.server, leaseNames(this.settings.electionNames()), every);
				yield new Injection(kind, "a write to each Lease every " + every.toMillis() + " ms for "
						+ duration.toMillis() + " ms", target, duration, storm::stop);
			}
			case SERVER_ERRORS -> {
				Duration duration = millisBetween(draws, 500, 3000);
				Runnable withdraw = this.server.failing(target.name());
				yield new Injection(kind, on + " for " + duration.toMillis() + " ms", target, duration, withdraw);
			}
			case CLOCK_SHIFT -> {
				Duration duration = millisBetween(draws, 1000, 4000);
				// from one second to an hour, as likely a few seconds as a few minutes
				Duration offset = Duration.ofMillis((long) Math.pow(ONE_HOUR.toMillis() / 1000.0, magnitude) * 1000);
				Duration shift = either ? offset : offset.negated();
				target.shiftClock(shift);
				yield new Injection(kind, (either ? "+" : "-") + offset.toSeconds() + " s " + on + " for "
						+ duration.toMillis() + " ms", target, duration, () -> target.shiftClock(Duration.ZERO));
			}
			case PAUSE -> {
				Duration duration = millisBetween(draws, 200, 3000);
				target.pause().pauseFor(duration);
				yield new Injection(kind, duration.toMillis() + " ms " + on, target, duration, () -> {
				});
			}
			case LEASE_DELETED -> {
				Duration heldFor = millisBetween(draws, 0, 2 * ChaosSettings.RETRY_PERIOD.toMillis());
				List<String> deleted = seenHeldByAll(target, someOf(led, draws));
				leaseNames(deleted).forEach(this.foreignWriter::delete);
				Injection deletion = new Injection(kind, "of " + deleted + " " + on, target, heldFor, () -> {
				});
				if (this.pods != null) {
					// For life, held until the leader has seen the deletion and created its locks
					// again: no later fault may cut off a leader that has not seen it yet.
					List<String> leases = leaseNames(deleted);
					yield deletion.until(() -> this.storedLeases.containsAll(leases));
				}
				yield deletion;
			}
			case LEASE_DELETED_CUT_OFF -> {
				Duration cut = millisBetween(draws, 1200, 3000);
				List<String> deleted = seenHeldByAll(target, led);
				target.link().blackHole();
				leaseNames(deleted).forEach(this.foreignWriter::delete);
				if (this.pods != null) {
					// For life, nobody may take over while the leader's Pod lives: the cut ends after
					// its time, and the fault once the leader has seen the deletion and created its
					// locks again.
					List<String> leases = leaseNames(deleted);
					yield new Injection(kind, "of " + deleted + " " + on + ", cut " + cut.toMillis() + " ms, held "
							+ "until it created them again", target, cut, target.link()::restore)
						.healedThenHeldUntil(() -> this.storedLeases.containsAll(leases));
				}
				yield new Injection(kind, "of all " + on + ", cut " + cut.toMillis() + " ms and until a successor "
						+ "leads each", target, cut, target.link()::restore)
					.until(() -> led.stream().allMatch((election) -> ledByAnotherThan(target, election)));
			}
			case FOLLOWER_CUT_WHILE_MISSING -> absenceGapAfterDeletion(AbsenceGap.Kind.CUT, target, draws, busy, led, on);
			case FROZEN_WHILE_MISSING -> absenceGapAfterDeletion(AbsenceGap.Kind.FREEZE, target, draws, busy, led, on);
			case STEP_DOWN -> {
				Duration heldFor = millisBetween(draws, 100, 1000);
				List<String> elections = someOf(led, draws);
				Candidate candidate = this.processes.get(target).candidate;
				elections.forEach((election) -> candidate.stepDown(election, either));
				yield new Injection(kind, (either ? "yield of " : "step-down of ") + elections + " " + on, target,
						heldFor, () -> {
						});
			}
			case DRAIN_TIMEOUT -> drainTimeout(target, draws, either, led, on);
			case DUPLICATE_IDENTITY -> {
				if (this.processes.containsKey(this.twin)) {
					yield null;
				}
				Duration duration = millisBetween(draws, 1000, 3000);
				Candidate original = this.processes.get(target).candidate;
				String identity = original.identity();
				startProcess(this.twin, identity, identity + "@" + this.twin.name());
				yield new Injection(kind, identity + " twice: " + on + " and in " + this.twin.name() + " for "
						+ duration.toMillis() + " ms, then " + (either ? "stopped" : "killed"), target, duration, () -> {
							logger.info("{}: {} reports another writer of its identity in {}, its twin in {}",
									this.elector.name(), identity, original.identityConflicts(),
									this.processes.get(this.twin).candidate.identityConflicts());
							stopProcess(this.twin, either);
						});
			}
			case FOREIGN_METADATA_EDIT -> {
				Duration duration = millisBetween(draws, 500, 3000);
				Duration every = between(20, 300, magnitude);
				List<String> leases = leaseNames(this.settings.electionNames());
				yield new Injection(kind, "of every Lease every " + every.toMillis() + " ms for "
						+ duration.toMillis() + " ms", null, duration, () -> {
						}).repeating(() -> leases.forEach(this.foreignWriter::editMetadata), every);
			}
			case PREFERRED_HOLDER -> preferredHolder(target, draws, led, on);
			case EVICTION -> {
				Duration down = millisBetween(draws, 100, 1000);
				target.link().blackHole();
				stopProcess(target, false);
				this.pods.evict(target);
				yield new Injection(kind, on + ", cut off, killed, Pod Failed, down " + down.toMillis() + " ms"
						+ nextPod(either), target, down, () -> {
							target.link().restore();
							startProcess(target, either);
						});
			}
			case CONTAINER_RESTART -> {
				Duration down = millisBetween(draws, 100, 1000);
				stopProcess(target, false);
				yield new Injection(kind, on + ", down " + down.toMillis() + " ms, same Pod", target, down,
						() -> startProcess(target, true));
			}
			case REPLICA_JOINS -> {
				Duration stays = millisBetween(draws, 1500, 4000);
				startProcess(target, true);
				yield new Injection(kind, this.processes.get(target).candidate.identity() + " in " + target.name()
						+ ", " + liveReplicas().size() + " replicas, for " + stays.toMillis() + " ms, then "
						+ (either ? "stopped" : "killed"), target, stays, () -> stopProcess(target, either));
			}
			case REPLICA_LEAVES -> {
				Duration away = millisBetween(draws, 1000, 4000);
				stopProcess(target, either);
				yield new Injection(kind, (either ? "stopped " : "killed ") + on + ", " + liveReplicas().size()
						+ " replicas left for " + away.toMillis() + " ms, then a new process joins", target, away,
						() -> startProcess(target, true));
			}
		};
	}

	/**
	 * For life, waits until every running process has seen the target hold each of the
	 * elections (or the target no longer leads it), for up to {@link ChaosSettings#RECOVERY_TIMEOUT},
	 * and returns those it still leads and every process saw it hold: a lock is deleted only once
	 * no process can take its absence for a lock never created (see
	 * {@link FaultMix#deletesLocksOnlyOnceSeen()}). Otherwise, the elections as given.
	 */
	private List<String> seenHeldByAll(ReplicaSlot target, List<String> elections) {
		if (!this.mix.deletesLocksOnlyOnceSeen() || elections.isEmpty()) {
			return elections;
		}
		Candidate leader = this.processes.get(target).candidate;
		Predicate<String> seenByAll = (election) -> leader.isLeader(election) && this.processes.values()
			.stream()
			.allMatch((process) -> leader.identity().equals(process.candidate.holderSeen(election)));
		try {
			await().atMost(ChaosSettings.RECOVERY_TIMEOUT)
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(5))
				.until(() -> elections.stream()
					.allMatch((election) -> !leader.isLeader(election) || seenByAll.test(election)));
		}
		catch (ConditionTimeoutException ex) {
			// deletes those seen by all, and leaves the others
		}
		List<String> seen = elections.stream().filter(seenByAll).toList();
		if (seen.size() < elections.size()) {
			logger.info("{}: of {} led by {}, only {} were seen held by every process", this.elector.name(),
					elections, leader.identity(), seen);
		}
		return seen;
	}

	/** A Lease version as the debug log tells it. */
	private static String describe(Lease stored) {
		return " holder " + stored.getSpec().getHolderIdentity() + ", uid " + stored.getMetadata().getUid()
				+ ", resourceVersion " + stored.getMetadata().getResourceVersion() + ", owners "
				+ stored.getMetadata()
					.getOwnerReferences()
					.stream()
					.map((owner) -> owner.getName() + " (uid " + owner.getUid() + ")")
					.toList();
	}

	/** For life, the Pod the replica's process runs in; {@code null} when none. */
	private String podOf(ReplicaSlot slot) {
		Process process = this.processes.get(slot);
		return (process != null) ? process.candidate.identity() : null;
	}

	/** For life, when the garbage collector deletes the locks of a deleted Pod; nothing otherwise. */
	private String collection(boolean now) {
		return (this.pods == null) ? "" : now ? ", locks collected at once" : ", locks collected later";
	}

	/** For life, how the next Pod of a replica is named; nothing otherwise. */
	private String nextPod(boolean sameName) {
		return (this.pods == null) ? "" : sameName ? ", then a new Pod of that name" : ", then a new Pod";
	}

	/**
	 * Makes the leader run an opaque job longer than the drain timeout in one of its elections,
	 * then stops it gracefully or steps it down from that election.
	 */
	private Injection drainTimeout(ReplicaSlot target, Random draws, boolean stop, List<String> led, String on) {
		Process process = this.processes.get(target);
		Duration length = between(ChaosSettings.DRAIN_TIMEOUT.toMillis() * 3 / 2,
				ChaosSettings.DRAIN_TIMEOUT.toMillis() * 2, draws.nextDouble());
		Duration down = millisBetween(draws, 100, 1000);
		if (led.isEmpty()) {
			return new Injection(FaultKind.DRAIN_TIMEOUT, "without an election to drain " + on, target, Duration.ZERO,
					() -> {
					});
		}
		String election = led.get(draws.nextInt(led.size()));
		boolean running = jobStarted(process.workload.runOpaqueJob(election, length));
		String job = (running ? "a " : "no (the gate closed first) ") + length.toMillis() + " ms opaque job of "
				+ election;
		if (stop) {
			boolean collectNow = draws.nextBoolean();
			stopReplica(target, true, collectNow);
			boolean sameName = draws.nextBoolean();
			return new Injection(FaultKind.DRAIN_TIMEOUT, "graceful stop during " + job + " " + on + ", down "
					+ down.toMillis() + " ms" + collection(collectNow) + nextPod(sameName), target, down,
					() -> startProcess(target, sameName));
		}
		process.candidate.stepDown(election, false);
		return new Injection(FaultKind.DRAIN_TIMEOUT, "step-down during " + job + " " + on, target, length, () -> {
		});
	}

	/** Names another live process as preferred holder of some of the leader's Leases. */
	private Injection preferredHolder(ReplicaSlot target, Random draws, List<String> led, String on) {
		Duration duration = millisBetween(draws, 500, 2000);
		List<String> others = this.slots.stream()
			.filter((slot) -> slot != target && this.processes.containsKey(slot))
			.map((slot) -> this.processes.get(slot).candidate.identity())
			.toList();
		Map<String, String> preferred = new LinkedHashMap<>();
		for (String election : someOf(led, draws)) {
			if (!others.isEmpty()) {
				preferred.put(election, others.get(draws.nextInt(others.size())));
			}
		}
		preferred.forEach((election, identity) -> this.foreignWriter.prefer(this.settings.leaseName(election), identity));
		return new Injection(FaultKind.PREFERRED_HOLDER, preferred + " " + on + " for " + duration.toMillis() + " ms",
				target, duration, () -> leaseNames(List.copyOf(preferred.keySet()))
					.forEach(this.foreignWriter::clearPreference));
	}

	/**
	 * Deletes some of the leader's Leases, and cuts off or freezes a follower once it has seen
	 * them missing, until another replica leads each; then deletes them again and heals the
	 * follower around that deletion ({@link AbsenceGap}).
	 */
	private Injection absenceGapAfterDeletion(AbsenceGap.Kind kind, ReplicaSlot leader, Random draws,
			Set<ReplicaSlot> busy, List<String> led, String on) {
		Set<ReplicaSlot> notFollowers = new HashSet<>(busy);
		notFollowers.add(leader);
		ReplicaSlot follower = target(draws, false, notFollowers);
		List<String> deleted = someOf(led, draws);
		if (follower == null || deleted.isEmpty()) {
			return new Injection(kind.faultKind(), "without " + ((follower == null) ? "a follower" : "an election")
					+ " to delete " + on, leader, Duration.ZERO, () -> {
					});
		}
		Candidate seer = this.processes.get(follower).candidate;
		AbsenceGap gap;
		if (seer.tellsHolderSeen()) {
			gap = absenceGap(kind, follower, deleted, (election) -> seer.holderSeen(election) == null, () -> {
			}, draws);
		}
		else if (kind == AbsenceGap.Kind.FREEZE) {
			gap = frozenOnReadsMissing(follower, deleted, draws);
		}
		else {
			long deletedAt = System.nanoTime();
			gap = absenceGap(kind, follower, deleted, (election) -> this.traffic.readMissingSince(follower.name(),
					this.settings.leaseName(election), deletedAt), () -> {
					}, draws);
		}
		this.foreignWriter.deleteAll(leaseNames(deleted));
		return gapInjection(kind.faultKind(), gap, deleted + " deleted " + on + ", then ");
	}

	/**
	 * A freeze that takes hold right after the replica has acted on the answers of its reads that
	 * find each of the elections' Leases missing ({@link Pause#freezeAfterNextTask()}), before it
	 * does anything else: armed as the server answers the last of those reads, before the answer
	 * is sent. At the start, when there is no holder to be seen gone, and for an elector that does
	 * not tell what it saw (fabric8's, which creates a Lease it finds missing in the same round of
	 * its loop): neither can be frozen between seeing a Lease missing and acting on it otherwise.
	 */
	private AbsenceGap frozenOnReadsMissing(ReplicaSlot replica, List<String> elections, Random draws) {
		this.traffic.onReadsMissing(replica.name(), Set.copyOf(leaseNames(elections)),
				replica.pause()::freezeAfterNextTask);
		return absenceGap(AbsenceGap.Kind.FREEZE, replica, elections, (election) -> replica.pause().paused(),
				() -> this.traffic.cancelReadsMissing(replica.name()), draws);
	}

	/**
	 * A gap drawn: held up to 1.5 s once others lead, healed from 30 ms before the second deletion
	 * to 60 ms after it: mostly after it, and before the leader's next renewal, a retry period
	 * after the one the deletion follows, at which it learns of the deletion; in half the gaps,
	 * with the leaders cut off as the Leases are deleted, so that they learn nothing of it until
	 * their renew deadline has passed (a leader already cut off by another fault is left to it).
	 */
	private AbsenceGap absenceGap(AbsenceGap.Kind kind, ReplicaSlot replica, List<String> elections,
			Predicate<String> sawMissing, Runnable disarm, Random draws) {
		Duration hold = millisBetween(draws, 0, 1500);
		Duration healAfterDeletion = millisBetween(draws, -30, 60);
		boolean cutLeaders = draws.nextBoolean();
		return new AbsenceGap(kind, replica, elections, sawMissing, disarm,
				(election) -> ledByAnotherThan(replica, election),
				(election, since) -> this.traffic.storedSince(this.settings.leaseName(election), since),
				(deleted) -> this.foreignWriter.deleteAll(leaseNames(deleted)),
				(led) -> leadersOf(led, replica), cutLeaders, hold, healAfterDeletion, this.history);
	}

	/** The replicas leading any of the elections now, but the given one and those cut off already. */
	private List<ReplicaSlot> leadersOf(List<String> elections, ReplicaSlot leftOut) {
		return liveReplicas().stream()
			.filter((slot) -> slot != leftOut && !slot.link().blackHoled())
			.filter((slot) -> elections.stream().anyMatch(this.processes.get(slot).candidate::isLeader))
			.toList();
	}

	/**
	 * The gap as a fault held until it has taken every step, or at most {@link #START_TIMEOUT};
	 * faults planned to be held with it come within about the time it takes.
	 */
	private static Injection gapInjection(FaultKind kind, AbsenceGap gap, String before) {
		return new Injection(kind, before + gap.describe(), gap.replica(), gap.expectedLength(), gap::heal)
			.repeating(() -> gap.step(System.nanoTime()), Duration.ZERO)
			.until(gap::done, START_TIMEOUT)
			.alsoAffecting(gap::leadersCut);
	}

	/** Waits for a job to read the gate: whether it found it open and runs. */
	private static boolean jobStarted(CompletableFuture<Boolean> started) {
		try {
			return started.get(JOB_START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Chaos run interrupted", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			return false;
		}
	}

	/**
	 * Starts a new process in the replica. For life, in the Pod it runs in, or, when that is gone,
	 * in a new Pod.
	 * @param samePodName for life, whether a new Pod takes the name of the one before
	 */
	private void startProcess(ReplicaSlot slot, boolean samePodName) {
		if (this.pods != null) {
			String pod = this.pods.podFor(slot, samePodName);
			for (int attempt = 1;; attempt++) {
				try {
					startProcess(slot, pod, pod + "/" + slot.nextProcess());
					return;
				}
				catch (ForLifePodException ex) {
					// the process could not read its Pod, and exits: the kubelet starts it again
					if (attempt == CONTAINER_STARTS) {
						throw ex;
					}
					logger.info("{}: a process in Pod {} could not start, started again: {}", this.elector.name(), pod,
							ex.getMessage());
					idle(ChaosSettings.RETRY_PERIOD);
				}
			}
		}
		else if (this.containerPods != null) {
			// in a Pod named after it, whose container the kubelet reports running
			String identity = slot.nextIdentity(this.elector.identityPrefix());
			this.containerPods.run(identity);
			startProcess(slot, identity, identity, identity);
		}
		else {
			String identity = slot.nextIdentity(this.elector.identityPrefix());
			startProcess(slot, identity, identity);
		}
	}

	private void startProcess(ReplicaSlot slot, String identity, String name) {
		startProcess(slot, identity, name, null);
	}

	/** @param pod in lease mode, the Pod whose container it runs in; {@code null} for none */
	private void startProcess(ReplicaSlot slot, String identity, String name, String pod) {
		this.history.processStarted(name, slot.name(), identity);
		Candidate candidate = (pod != null)
				? this.elector.startInPod(slot, identity, name, pod, this.settings, this.history,
						this.processSeeds.nextLong())
				: this.elector.start(slot, identity, name, this.settings, this.history, this.processSeeds.nextLong());
		LeaderOnlyWorkload workload = LeaderOnlyWorkload.start(candidate, name, this.settings.electionNames(),
				slot.pause(), this.history, this.processSeeds.nextLong());
		this.processes.put(slot, new Process(slot, name, candidate, workload));
	}

	/**
	 * Stops the replica's process. Gracefully, the elector hands over the way it does it (ours
	 * drains the leader-only calls under way first, up to the drain timeout), then the process
	 * exits, ending whatever job still runs.
	 */
	private void stopProcess(ReplicaSlot slot, boolean gracefully) {
		Process process = this.processes.remove(slot);
		if (gracefully) {
			process.candidate.stopGracefully();
			process.workload.abort();
		}
		else {
			process.kill();
		}
		this.history.processEnded(process.name, System.nanoTime());
	}

	/**
	 * Stops the replica's process, and, for life, deletes its Pod once it has stopped, as
	 * Kubernetes does on a rollout, a scale-down or a Pod deleted with its Node.
	 * @param collectNow for life, whether the garbage collector deletes the Pod's locks at once,
	 * or at its next round, up to a quarter of a second later
	 */
	private void stopReplica(ReplicaSlot slot, boolean gracefully, boolean collectNow) {
		stopProcess(slot, gracefully);
		if (this.pods != null) {
			this.pods.delete(slot, collectNow);
		}
	}

	/** Waits for every election to have a leader; false if one has none after the timeout. */
	private boolean awaitLeaders() {
		return awaitLeaders(ChaosSettings.RECOVERY_TIMEOUT);
	}

	private boolean awaitLeaders(Duration timeout) {
		try {
			await().atMost(timeout)
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(5))
				.until(() -> {
					sampleSpread();
					return this.settings.electionNames().stream().allMatch(this::led);
				});
			return true;
		}
		catch (ConditionTimeoutException ex) {
			List<String> leaderless = this.settings.electionNames()
				.stream()
				.filter((election) -> !led(election))
				.toList();
			logger.warn("{}: no leader in every election {} after the fault was healed: none in {}",
					this.elector.name(), timeout, leaderless);
			leaderless.stream().limit(2).forEach((election) -> this.processes.values().forEach((process) -> {
				String seen = process.candidate.describe(election);
				if (seen != null) {
					logger.info("{}: {} as {} sees it: {}", this.elector.name(), election, process.candidate, seen);
				}
			}));
			return false;
		}
	}

	private boolean led(String election) {
		return this.processes.values().stream().anyMatch((process) -> process.candidate.isLeader(election));
	}

	private boolean ledByAnotherThan(ReplicaSlot slot, String election) {
		return this.processes.values()
			.stream()
			.anyMatch((process) -> process.slot != slot && process.candidate.isLeader(election));
	}

	/**
	 * A replica to aim at, among those running a process and not busy: the one leading the most
	 * elections, or any of them; {@code null} if none is left.
	 */
	private ReplicaSlot target(Random draws, boolean aimedAtLeader, Set<ReplicaSlot> busy) {
		int any = draws.nextInt(this.slots.size());
		List<ReplicaSlot> live = this.slots.stream()
			.filter((slot) -> this.processes.containsKey(slot) && !busy.contains(slot))
			.toList();
		if (live.isEmpty()) {
			return null;
		}
		ReplicaSlot anyLive = live.get(any % live.size());
		if (!aimedAtLeader) {
			return anyLive;
		}
		ReplicaSlot leader = anyLive;
		long most = 0;
		for (ReplicaSlot slot : live) {
			long led = electionsLedBy(slot).size();
			if (led > most) {
				leader = slot;
				most = led;
			}
		}
		return leader;
	}

	/**
	 * For balanced shards, an empty replica slot a replica may join in, not busy; {@code null}
	 * when none is left. Only the slots left empty at the start: a stopped replica's slot waits
	 * for the process its fault starts.
	 */
	private ReplicaSlot spareSlot(Set<ReplicaSlot> busy) {
		return this.slots.subList(this.settings.replicas(), this.slots.size())
			.stream()
			.filter((slot) -> !this.processes.containsKey(slot) && !busy.contains(slot))
			.findFirst()
			.orElse(null);
	}

	/** The replicas running a process, in order; a duplicate identity's twin is no replica. */
	private List<ReplicaSlot> liveReplicas() {
		return this.slots.stream().filter(this.processes::containsKey).toList();
	}

	/**
	 * For balanced shards, records how evenly the live replicas hold the shards now: the most
	 * shards one holds less the fewest, a replica that holds none counting as zero.
	 */
	private void sampleSpread() {
		if (!this.settings.balancedShards()) {
			return;
		}
		List<Integer> held = liveReplicas().stream().map((slot) -> electionsLedBy(slot).size()).toList();
		if (!held.isEmpty()) {
			this.history.spreadSampled(System.nanoTime(),
					Collections.max(held) - Collections.min(held));
		}
	}

	private List<String> electionsLedBy(ReplicaSlot slot) {
		Process process = this.processes.get(slot);
		if (process == null) {
			return List.of();
		}
		return this.settings.electionNames().stream().filter(process.candidate::isLeader).toList();
	}

	/** A non-empty part of the elections, each in it with even odds; none of none. */
	private static List<String> someOf(List<String> elections, Random draws) {
		if (elections.isEmpty()) {
			return elections;
		}
		List<String> some = elections.stream().filter((election) -> draws.nextBoolean()).toList();
		return some.isEmpty() ? List.of(elections.get(draws.nextInt(elections.size()))) : some;
	}

	private List<String> leaseNames(List<String> elections) {
		return elections.stream().map(this.settings::leaseName).toList();
	}

	private static Duration millisBetween(Random random, long min, long max) {
		return between(min, max, random.nextDouble());
	}

	private static Duration between(long minMillis, long maxMillis, double fraction) {
		return Duration.ofMillis(minMillis + Math.round((maxMillis - minMillis) * fraction));
	}

	/** The run's own waiting between faults: part of the workload, not an assertion. */
	private static void idle(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Chaos run interrupted", ex);
		}
	}

	/** A replica's link: for balanced shards, one that takes a connection per shard's watch in its stride. */
	private NetworkLink link(NioReactor reactor) {
		return this.settings.balancedShards() ? NetworkLink.openForManyConnections(reactor, this.server.port())
				: NetworkLink.open(reactor, this.server.port());
	}

	private static NioReactor newReactor() {
		try {
			return new NioReactor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A running process of a replica and its leader-only work. */
	private record Process(ReplicaSlot slot, String name, Candidate candidate, LeaderOnlyWorkload workload) {

		/** The process dies: its work, its elector and its connections. */
		void kill() {
			this.workload.abort();
			this.candidate.kill();
			this.slot.link().resetConnections();
		}

	}

	/**
	 * A fault to inject while another is held.
	 *
	 * @param afterShare when, as a share of the held fault's duration after its injection
	 * @param seed seeds everything about it
	 */
	private record PlannedFault(double afterShare, long seed) {

	}

	/**
	 * An injected fault being held: how it reads in the report, which replica it acts on, how
	 * long it lasts (and, for some, what must have happened before it ends), what heals it, and
	 * what to repeat while it lasts.
	 */
	private static final class Injection {

		private final FaultKind kind;

		private final String description;

		private final Set<ReplicaSlot> affected;

		/** The replicas it acts on for a while, beside its target, e.g. the leaders a gap cuts off. */
		private Supplier<List<ReplicaSlot>> alsoAffected = List::of;

		private final long startedAt = System.nanoTime();

		private final Duration duration;

		private final Runnable heal;

		private boolean healed;

		/** Whether it is healed at the end of its duration, though held beyond it, until its condition holds. */
		private boolean healedAtItsTime;

		private BooleanSupplier until = () -> true;

		/** How long it may be held, at most, waiting for its condition. */
		private long limitNanos = ChaosSettings.RECOVERY_TIMEOUT.toNanos();

		private Runnable repeat;

		private long everyNanos;

		private long nextRepeatAt = this.startedAt;

		/** @param target the replica it acts on; {@code null} for none */
		Injection(FaultKind kind, String description, ReplicaSlot target, Duration duration, Runnable heal) {
			this.kind = kind;
			this.description = description;
			this.affected = (target != null) ? Set.of(target) : Set.of();
			this.duration = duration;
			this.heal = heal;
		}

		/** The replicas it acts on now: its target, and those it acts on for a while. */
		Set<ReplicaSlot> affected() {
			Set<ReplicaSlot> affected = new HashSet<>(this.affected);
			affected.addAll(this.alsoAffected.get());
			return affected;
		}

		/** Acts, for a while, on the replicas given too. */
		Injection alsoAffecting(Supplier<List<ReplicaSlot>> replicas) {
			this.alsoAffected = replicas;
			return this;
		}

		/** Repeats the action from now on, every so often, while the fault lasts. */
		Injection repeating(Runnable action, Duration every) {
			this.repeat = action;
			this.everyNanos = every.toNanos();
			return this;
		}

		/**
		 * Lasts, beyond its duration, until the condition holds, or at most
		 * {@link ChaosSettings#RECOVERY_TIMEOUT}.
		 */
		Injection until(BooleanSupplier condition) {
			this.until = condition;
			return this;
		}

		/** Lasts, beyond its duration, until the condition holds, or at most the given time. */
		Injection until(BooleanSupplier condition, Duration limit) {
			this.limitNanos = limit.toNanos();
			return until(condition);
		}

		/**
		 * Is healed at the end of its duration, but lasts, as a fault held, until the condition
		 * holds, or at most {@link ChaosSettings#RECOVERY_TIMEOUT}: until what it set off is over.
		 */
		Injection healedThenHeldUntil(BooleanSupplier condition) {
			this.healedAtItsTime = true;
			return until(condition);
		}

		/** Whether it is to be healed now, before it is over. */
		boolean healedAtItsTime(long now) {
			return this.healedAtItsTime && !this.healed && now - this.startedAt - this.duration.toNanos() >= 0;
		}

		void healOnce() {
			if (!this.healed) {
				this.healed = true;
				this.heal.run();
			}
		}

		boolean over(long now) {
			long held = now - this.startedAt;
			return held - this.duration.toNanos() >= 0
					&& (this.until.getAsBoolean() || held - this.limitNanos >= 0);
		}

		void repeatIfDue(long now) {
			if (this.repeat != null && now - this.nextRepeatAt >= 0) {
				this.repeat.run();
				this.nextRepeatAt = now + this.everyNanos;
			}
		}

	}

	/**
	 * A foreign writer, say a controller or a kubectl loop, that keeps changing an annotation
	 * of every Lease: each write makes a new resourceVersion, so that a write at the version
	 * just read conflicts.
	 */
	private static final class ConflictStorm {

		private final ForeignWriter writer;

		private final List<String> leases;

		private final Duration every;

		private final Thread thread;

		private volatile boolean running = true;

		private ConflictStorm(ChaosServer server, List<String> leases, Duration every) {
			this.writer = ForeignWriter.open(server, "conflict-storm");
			this.leases = leases;
			this.every = every;
			this.thread = new Thread(this::write, "conflict-storm");
			this.thread.setDaemon(true);
		}

		static ConflictStorm start(ChaosServer server, List<String> leases, Duration every) {
			ConflictStorm storm = new ConflictStorm(server, leases, every);
			storm.thread.start();
			return storm;
		}

		void stop() {
			this.running = false;
			try {
				this.thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.writer.close();
		}

		private void write() {
			long writes = 0;
			while (this.running) {
				for (String lease : this.leases) {
					this.writer.annotate(lease, "chaos/foreign-writes", String.valueOf(++writes));
				}
				idle(this.every);
			}
		}

	}

}
