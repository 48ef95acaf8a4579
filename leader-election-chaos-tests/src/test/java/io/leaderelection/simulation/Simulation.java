package io.leaderelection.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionSettings;

/**
 * One run of the deterministic simulation, all drawn from its seed: replicas of the election
 * engine in lease mode, each on its own clock running up to {@link #CLOCK_RATE_ERROR} fast or slow,
 * against {@link ApiServerModel} over a {@link Network}, with leader-only calls and a
 * once-per-window job, and faults ({@link Fault}) injected alone or mixed until the quiet end of
 * the run, in which none are. {@link Checks} checks every run.
 * <p>
 * Timings are those of the chaos suite, scaled down from client-go's: lease duration 1 s, renew
 * deadline 666 ms, retry period 133 ms, renewals every 333 ms; the drain timeout is drawn per seed
 * between 400 ms and 2 s, shorter or longer than the lease duration (the default, 20 s, is longer
 * than client-go's 15 s), so that a term lost while its drain waits may be followed by a new one
 * of the same process before the drain ends.
 */
final class Simulation {

	static final String JOB = "report";

	/** The largest rate error of a replica's monotonic clock: 0.1% fast or slow. */
	static final double CLOCK_RATE_ERROR = 0.001;

	static final Duration LEASE_DURATION = Duration.ofMillis(1000);

	static final Duration RENEW_DEADLINE = Duration.ofMillis(666);

	static final Duration RETRY_PERIOD = Duration.ofMillis(133);

	static final Duration RENEW_PERIOD = Duration.ofMillis(333);

	private static final ElectionSettings ELECTION = new ElectionSettings("default", "simulation", "lease",
			LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD)
		.renewingEvery(RENEW_PERIOD);

	/** The longest a broken watch stream goes unnoticed (5 s) and is then resumed (1 s). */
	private static final long LONGEST_UNNOTICED_WATCH_BREAK_NANOS = 6_000_000_000L;

	private static final long LONGEST_FAULT_NANOS = 8_000_000_000L;

	private final long seed;

	private final long durationNanos;

	private final long quietFromNanos;

	private final SplittableRandom random;

	private final EventLoop loop = new EventLoop();

	private final Trace trace = new Trace();

	private final Network network;

	private final ApiServerModel server;

	private final Checks checks;

	private final SimulatedProcess[] processes;

	private final int[] generations;

	private final List<Episode> episodes = new ArrayList<>();

	/** Whether the processes' clocks run off true time (most seeds) or all exactly. */
	private final boolean driftingClocks;

	/** How late a process's task may run, so that tasks due about the same time run in either order. */
	private final long dispatchJitterNanos;

	private final Duration drainTimeout;

	Simulation(long seed, Duration duration) {
		this.seed = seed;
		this.durationNanos = duration.toNanos();
		this.quietFromNanos = this.durationNanos - Math.min(30_000_000_000L, this.durationNanos / 3);
		this.random = new SplittableRandom(seed);
		int replicas = 2 + this.random.nextInt(4);
		int instances = 1 + this.random.nextInt(3);
		this.network = new Network(this.random.split(), replicas, instances);
		this.checks = new Checks(this, this.trace);
		this.server = new ApiServerModel(this.loop, this.network, this.trace, this.checks, instances);
		this.processes = new SimulatedProcess[replicas];
		this.generations = new int[replicas];
		this.driftingClocks = this.random.nextInt(5) != 0;
		this.dispatchJitterNanos = (this.random.nextInt(4) == 0) ? 0 : this.random.nextLong(3_000_000L);
		this.drainTimeout = Duration.ofMillis(400 + this.random.nextInt(1600));
	}

	// ---- what the parts share

	EventLoop loop() {
		return this.loop;
	}

	ApiServerModel server() {
		return this.server;
	}

	Checks checks() {
		return this.checks;
	}

	ElectionSettings settings() {
		return ELECTION;
	}

	long dispatchJitterNanos() {
		return this.dispatchJitterNanos;
	}

	Duration drainTimeout() {
		return this.drainTimeout;
	}

	/** A cooperative step's longest: a quarter of the lease duration less the renew deadline. */
	long longestStepNanos() {
		return (LEASE_DURATION.toNanos() - RENEW_DEADLINE.toNanos()) / 4;
	}

	Duration windowAtLeast() {
		return Duration.ofSeconds(2);
	}

	Duration windowAtMost() {
		return Duration.ofSeconds(3);
	}

	long quietFromNanos() {
		return this.quietFromNanos;
	}

	/**
	 * How soon after faults stop a leader must be there. The last version of the Lease is stored
	 * at the latest when the last message sent before then arrives ({@link Network#LONGEST_DELAY_NANOS});
	 * a follower sees it within a broken watch's longest unnoticed time, a poll (1.2 retry periods)
	 * and a round trip; it claims it once unchanged for a lease duration on its own clock (at most
	 * (1+e)/(1-e) of one in true time), and its claim takes a round trip; one retry period of slack
	 * for a claim lost to another follower's, whose winner then leads.
	 */
	long livenessBoundNanos() {
		long roundTrip = 2 * (this.network.slowestHealthyNanos() + this.server.longestCacheLagNanos());
		return Network.LONGEST_DELAY_NANOS + LONGEST_UNNOTICED_WATCH_BREAK_NANOS
				+ (long) (1.2 * RETRY_PERIOD.toNanos()) + 2 * roundTrip
				+ (long) (LEASE_DURATION.toNanos() * (1 + CLOCK_RATE_ERROR) / (1 - CLOCK_RATE_ERROR))
				+ RETRY_PERIOD.toNanos();
	}

	// ---- the run

	Outcome run() {
		for (int slot = 0; slot < this.processes.length; slot++) {
			spawn(slot);
		}
		planFaults();
		this.loop.at(this.quietFromNanos, null, () -> {
			this.network.faultsOn = false;
			this.trace.add(this.loop.now(), "world", "faults stop");
		});
		this.loop.runUntil(this.durationNanos);
		List<SimulatedProcess> live = new ArrayList<>();
		for (SimulatedProcess process : this.processes) {
			if (process.alive()) {
				live.add(process);
			}
		}
		this.checks.finish(this.durationNanos, live);
		return new Outcome(this.seed, this.durationNanos, List.copyOf(this.checks.violations()), this.trace,
				this.loop.eventsRun(), this.checks.grants(), Map.copyOf(this.checks.leaderlessByCause()),
				this.checks.longestLeaderlessAfterFaults());
	}

	private void spawn(int slot) {
		double rate = this.driftingClocks ? 1 + (this.random.nextDouble() * 2 - 1) * CLOCK_RATE_ERROR : 1;
		SimulatedProcess process = new SimulatedProcess(this, slot, this.generations[slot]++, rate,
				this.random.nextLong());
		this.processes[slot] = process;
		this.trace.add(this.loop.now(), process.identity(), "starts, clock rate " + rate);
		process.boot(this.random.nextLong(1_500_000_000L));
	}

	/**
	 * Draws the faults: a quarter of the seeds one kind alone, the others all kinds mixed, at a
	 * rate drawn per seed; every fault over before the quiet end of the run begins.
	 */
	private void planFaults() {
		Fault[] kinds = Fault.values();
		Fault alone = (this.random.nextInt(4) == 0) ? kinds[this.random.nextInt(kinds.length)] : null;
		long meanGap = 200_000_000L + this.random.nextLong(4_000_000_000L);
		long at = this.random.nextLong(meanGap);
		while (at < this.quietFromNanos) {
			Fault kind = (alone != null) ? alone : kinds[this.random.nextInt(kinds.length)];
			// every fault is over when faults stop: the liveness bound counts from that moment
			long duration = Math.min(drawDuration(kind), this.quietFromNanos - at - shutdownNanos(kind));
			if (duration < 0) {
				break;
			}
			int target = this.random.nextInt(kind.targetsInstance() ? this.server.instanceCount() : this.processes.length);
			boolean onTheLeader = this.random.nextBoolean();
			this.loop.at(at, null, () -> inject(kind, duration, target, onTheLeader));
			at += (long) (-Math.log(1 - this.random.nextDouble()) * meanGap);
		}
	}

	/** How long a shutdown may take before its process exits; a new one starts only after. */
	private long shutdownNanos(Fault kind) {
		return (kind == Fault.SHUTDOWN) ? this.drainTimeout.plus(RENEW_DEADLINE).toNanos() + 500_000_000L : 0;
	}

	private long drawDuration(Fault kind) {
		return switch (kind) {
			case PAUSE -> (this.random.nextInt(3) == 0) ? this.random.nextLong(3_000_000_000L)
					: this.random.nextLong(300_000_000L);
			case CRASH, SHUTDOWN -> 200_000_000L + this.random.nextLong(5_000_000_000L);
			case NOT_READY -> (this.random.nextBoolean()) ? this.random.nextLong(300_000_000L)
					: this.random.nextLong(3_000_000_000L);
			default -> 50_000_000L + this.random.nextLong(
					(this.random.nextInt(3) == 0) ? LONGEST_FAULT_NANOS - 50_000_000L : 2_000_000_000L);
		};
	}

	private void inject(Fault kind, long duration, int drawn, boolean onTheLeader) {
		int target = (kind.targetsReplica() && onTheLeader) ? leaderSlotOr(drawn) : drawn;
		SimulatedProcess process = kind.targetsReplica() ? this.processes[target] : null;
		if (process != null && !process.alive()) {
			return;
		}
		String who = (process != null) ? process.identity() : kind.targetsInstance() ? "api-" + target : "world";
		this.trace.add(this.loop.now(), who, kind + " for " + Checks.millis(duration));
		if (kind != Fault.PAUSE) {
			this.episodes.add(new Episode(kind, target, this.loop.now(), this.loop.now() + duration));
		}
		switch (kind) {
			case CUT_REPLICA -> during(duration, this.network.replicaCuts, target);
			case SLOW_REPLICA -> during(duration, this.network.replicaSlowdowns, target);
			case CUT_INSTANCE -> during(duration, this.network.instanceCuts, target);
			case SLOW_INSTANCE -> during(duration, this.network.instanceSlowdowns, target);
			case LOSSY_NETWORK -> {
				this.network.lossyEpisodes++;
				this.loop.after(duration, null, () -> this.network.lossyEpisodes--);
			}
			case STALE_READS -> {
				this.network.staleReadEpisodes++;
				this.loop.after(duration, null, () -> this.network.staleReadEpisodes--);
			}
			case LAGGING_CACHES -> {
				this.network.laggingCacheEpisodes++;
				this.loop.after(duration, null, () -> this.network.laggingCacheEpisodes--);
			}
			case END_WATCHES -> this.server.endWatches(target);
			case PAUSE -> process.pauseAfterSteps(this.random.nextInt(20), duration);
			case CRASH -> {
				process.crash();
				this.loop.after(duration, null, () -> spawn(target));
			}
			case SHUTDOWN -> shutDown(process, duration);
			case NOT_READY -> {
				process.engine.stop(true, RevocationCause.NOT_READY);
				process.schedule(process.engine::start, duration);
			}
			case STEP_DOWN -> process.engine.stepDown(ELECTION.name());
			case DELETE_LEASE -> {
				this.checks.leaseDeleted();
				this.server.delete(ELECTION.leaseName());
			}
			case EDIT_LABELS -> this.server.editLabels(ELECTION.leaseName());
		}
	}

	/** A pause drawn earlier begins now, after the steps it waited for. */
	void paused(SimulatedProcess process, long duration) {
		this.trace.add(this.loop.now(), process.identity(), "paused for " + Checks.millis(duration));
		this.episodes.add(new Episode(Fault.PAUSE, process.slot(), this.loop.now(), this.loop.now() + duration));
	}

	private void during(long duration, int[] counts, int target) {
		counts[target]++;
		this.loop.after(duration, null, () -> counts[target]--);
	}

	/**
	 * Stops the engine with a release, as a context closing does, and ends the process once
	 * that is done or Spring's shutdown phase would have run out; starts a new one after a while.
	 */
	private void shutDown(SimulatedProcess process, long restartAfter) {
		Runnable exit = () -> {
			if (process.alive()) {
				this.checks.ended(process, "exited");
				process.crash();
				this.loop.after(restartAfter, null, () -> spawn(process.slot()));
			}
		};
		process.engine.stop(true).whenComplete((ignored, failure) -> exit.run());
		process.schedule(exit, shutdownNanos(Fault.SHUTDOWN));
	}

	private int leaderSlotOr(int drawn) {
		for (SimulatedProcess process : this.processes) {
			if (process.alive() && process.engine.isLeader(ELECTION.name())) {
				return process.slot();
			}
		}
		return drawn;
	}

	/** The fault on the replica (or on all) at the moment, to tell what ended a gate; {@code null} when none. */
	String faultOn(int slot, String identity, long at) {
		for (int index = this.episodes.size() - 1; index >= 0; index--) {
			Episode episode = this.episodes.get(index);
			boolean onIt = episode.kind.targetsReplica() ? episode.target == slot : !episode.kind.targetsInstance()
					|| this.server.instanceCount() == 1;
			if (onIt && episode.from <= at && (at <= episode.to || episode.kind == Fault.CRASH
					|| episode.kind == Fault.SHUTDOWN || episode.kind == Fault.STEP_DOWN) && at - episode.from < LONGEST_FAULT_NANOS) {
				return episode.kind.name().toLowerCase().replace('_', ' ');
			}
		}
		return null;
	}

	private record Episode(Fault kind, int target, long from, long to) {
	}

}
