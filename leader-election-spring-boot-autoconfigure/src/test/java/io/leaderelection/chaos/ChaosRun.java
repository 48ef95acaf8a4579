package io.leaderelection.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.awaitility.core.ConditionTimeoutException;
import org.netcrusher.core.reactor.NioReactor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.awaitility.Awaitility.await;

/**
 * One chaos run of one elector: replicas campaign on a CRUD API server, each through its own
 * link, while faults are injected one at a time, each chosen, aimed and sized by the seeded
 * random generator. After each fault is healed the run waits, up to
 * {@link ChaosSettings#RECOVERY_TIMEOUT}, for every election to have a leader again, then idles
 * briefly and injects the next. The seed fixes the sequence of kinds, durations, magnitudes and
 * whether a fault aims at the leader; which replica leads at that moment is up to the run.
 */
final class ChaosRun {

	private static final Logger logger = LoggerFactory.getLogger(ChaosRun.class);

	/**
	 * How often a fault aims at the replica leading the most elections rather than at any
	 * replica: faults on followers rarely move leadership.
	 */
	private static final double AIMED_AT_LEADER = 0.75;

	private static final Duration ONE_HOUR = Duration.ofHours(1);

	private final Elector elector;

	private final ChaosSettings settings;

	private final Random random;

	private final LeadershipHistory history = new LeadershipHistory();

	private final List<ReplicaSlot> slots = new ArrayList<>();

	/** The process running in each replica; a stopped replica has none. Driver thread only. */
	private final Map<ReplicaSlot, Process> processes = new LinkedHashMap<>();

	private ChaosApiServer server;

	ChaosRun(Elector elector, ChaosSettings settings) {
		this.elector = elector;
		this.settings = settings;
		this.random = new Random(settings.seed());
	}

	ChaosOutcome run() {
		logger.info("Chaos run of {} with seed {} (set -Dchaos.seed to repeat it): {} replicas, {} elections, "
				+ "until {} transitions or {}", this.elector.name(), this.settings.seed(), this.settings.replicas(),
				this.settings.elections(), this.settings.transitions(), this.settings.timeLimit());
		this.server = ChaosApiServer.start();
		NioReactor reactor = newReactor();
		try {
			for (int i = 0; i < this.settings.replicas(); i++) {
				this.slots.add(new ReplicaSlot("r" + i, NetworkLink.open(reactor, this.server.port())));
			}
			long startedAt = System.nanoTime();
			this.slots.forEach(this::startProcess);
			if (!awaitLeaders()) {
				throw new IllegalStateException(this.elector.name() + " elected no leader in every election");
			}
			long endAt = startedAt + this.settings.timeLimit().toNanos();
			int injected = 0;
			while (this.history.transitions() < this.settings.transitions() && System.nanoTime() - endAt < 0) {
				idle(millisBetween(0, 2 * ChaosSettings.RETRY_PERIOD.toMillis()));
				injectFault(++injected);
			}
			return this.history.outcome(this.elector.name(), this.settings, startedAt, System.nanoTime());
		}
		finally {
			this.processes.values().forEach(Process::kill);
			this.slots.forEach(ReplicaSlot::close);
			reactor.close();
			this.server.close();
		}
	}

	private void injectFault(int number) {
		FaultKind kind = FaultKind.values()[this.random.nextInt(FaultKind.values().length)];
		boolean aimedAtLeader = this.random.nextDouble() < AIMED_AT_LEADER;
		ReplicaSlot anyReplica = this.slots.get(this.random.nextInt(this.slots.size()));
		double magnitude = this.random.nextDouble();
		boolean ahead = this.random.nextBoolean();
		ReplicaSlot target = aimedAtLeader ? leaderOf(anyReplica) : anyReplica;
		String on = "on " + target.name() + " leading " + electionsLedBy(target);
		long injectedAt = System.nanoTime();
		Injection injection = switch (kind) {
			case GRACEFUL_STOP -> {
				Duration down = millisBetween(100, 1000);
				stopProcess(target, true);
				yield new Injection(on + ", down " + down.toMillis() + " ms", down, () -> startProcess(target));
			}
			case ABRUPT_STOP -> {
				Duration down = millisBetween(100, 1000);
				stopProcess(target, false);
				yield new Injection(on + ", down " + down.toMillis() + " ms", down, () -> startProcess(target));
			}
			case BLACK_HOLE -> {
				Duration duration = millisBetween(200, 3000);
				target.link().blackHole();
				yield new Injection(on + " for " + duration.toMillis() + " ms", duration, target.link()::restore);
			}
			case CONNECTION_RESETS -> {
				Duration duration = millisBetween(500, 2000);
				Duration every = between(50, 150, magnitude);
				yield new Injection(on + " every " + every.toMillis() + " ms for " + duration.toMillis() + " ms",
						duration, () -> {
						}, target.link()::resetConnections, every);
			}
			case LATENCY -> {
				Duration duration = millisBetween(1000, 4000);
				Duration latency = between(100, 3000, magnitude);
				target.link().delay(latency);
				yield new Injection(latency.toMillis() + " ms " + on + " for " + duration.toMillis() + " ms",
						duration, target.link()::removeDelay);
			}
			case SERVER_RESTART -> {
				Duration down = millisBetween(200, 3000);
				this.server.stop();
				yield new Injection("down " + down.toMillis() + " ms", down, this.server::restart);
			}
			case CONFLICT_STORM -> {
				Duration duration = millisBetween(500, 3000);
				Duration every = between(5, 50, magnitude);
				ConflictStorm storm = ConflictStorm.start(this.server, leaseNames(), every);
				yield new Injection("a write to each Lease every " + every.toMillis() + " ms for "
						+ duration.toMillis() + " ms", duration, storm::stop);
			}
			case SERVER_ERRORS -> {
				Duration duration = millisBetween(500, 3000);
				ChaosApiServer.Answer errors = this.server.answer(ChaosApiServer.from(target.name()),
						() -> ChaosApiServer.status(500, "InternalError", "injected by the chaos run"));
				yield new Injection(on + " for " + duration.toMillis() + " ms", duration, errors::close);
			}
			case CLOCK_SHIFT -> {
				Duration duration = millisBetween(1000, 4000);
				// from one second to an hour, as likely a few seconds as a few minutes
				Duration offset = Duration.ofMillis((long) Math.pow(ONE_HOUR.toMillis() / 1000.0, magnitude) * 1000);
				Duration shift = ahead ? offset : offset.negated();
				target.shiftClock(shift);
				yield new Injection((ahead ? "+" : "-") + offset.toSeconds() + " s " + on + " for "
						+ duration.toMillis() + " ms", duration, () -> target.shiftClock(Duration.ZERO));
			}
			case PAUSE -> {
				Duration duration = millisBetween(200, 3000);
				target.pause().pauseFor(duration);
				yield new Injection(duration.toMillis() + " ms " + on, duration, () -> {
				});
			}
		};
		this.history.faultInjected(kind, injection.description, injectedAt);
		logger.info("{} fault {}: {} {} ({} transitions so far)", this.elector.name(), number, kind.label(),
				injection.description, this.history.transitions());
		injection.hold();
		injection.heal.run();
		awaitLeaders();
	}

	private void startProcess(ReplicaSlot slot) {
		Candidate candidate = this.elector.start(slot, this.settings, this.history, this.random.nextLong());
		LeaderOnlyWorkload workload = LeaderOnlyWorkload.start(candidate, this.settings.electionNames(), slot.pause(),
				this.history);
		this.processes.put(slot, new Process(slot, candidate, workload));
	}

	/**
	 * Stops the replica's process. Its leader-only work stops first, as the auto-configuration
	 * drains {@code @LeaderOnly} work before it releases.
	 */
	private void stopProcess(ReplicaSlot slot, boolean gracefully) {
		Process process = this.processes.remove(slot);
		if (gracefully) {
			process.workload.stop();
			process.candidate.stopGracefully();
		}
		else {
			process.kill();
		}
	}

	/** Waits for every election to have a leader; false if one has none after the timeout. */
	private boolean awaitLeaders() {
		try {
			await().atMost(ChaosSettings.RECOVERY_TIMEOUT)
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(5))
				.until(() -> this.settings.electionNames().stream().allMatch(this::led));
			return true;
		}
		catch (ConditionTimeoutException ex) {
			logger.warn("{}: no leader in every election {} after the fault was healed", this.elector.name(),
					ChaosSettings.RECOVERY_TIMEOUT);
			return false;
		}
	}

	private boolean led(String election) {
		return this.processes.values().stream().anyMatch((process) -> process.candidate.isLeader(election));
	}

	/** The replica leading the most elections, or the given one when none leads. */
	private ReplicaSlot leaderOf(ReplicaSlot otherwise) {
		ReplicaSlot leader = otherwise;
		long most = 0;
		for (ReplicaSlot slot : this.processes.keySet()) {
			long led = electionsLedBy(slot).size();
			if (led > most) {
				leader = slot;
				most = led;
			}
		}
		return leader;
	}

	private List<String> electionsLedBy(ReplicaSlot slot) {
		Process process = this.processes.get(slot);
		if (process == null) {
			return List.of();
		}
		return this.settings.electionNames().stream().filter(process.candidate::isLeader).toList();
	}

	private List<String> leaseNames() {
		return this.settings.electionNames().stream().map(this.settings::leaseName).toList();
	}

	private Duration millisBetween(long min, long max) {
		return between(min, max, this.random.nextDouble());
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

	private static NioReactor newReactor() {
		try {
			return new NioReactor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A running process of a replica and its leader-only work. */
	private record Process(ReplicaSlot slot, Candidate candidate, LeaderOnlyWorkload workload) {

		/** The process dies: its work, its elector and its connections. */
		void kill() {
			this.workload.stop();
			this.candidate.kill();
			this.slot.link().resetConnections();
		}

	}

	/**
	 * An injected fault being held: how it reads in the report, how long it lasts, what heals
	 * it, and what to repeat while it lasts.
	 */
	private record Injection(String description, Duration duration, Runnable heal, Runnable repeat,
			Duration every) {

		Injection(String description, Duration duration, Runnable heal) {
			this(description, duration, heal, null, duration);
		}

		void hold() {
			long endAt = System.nanoTime() + this.duration.toNanos();
			long left;
			while ((left = endAt - System.nanoTime()) > 0) {
				if (this.repeat != null) {
					this.repeat.run();
				}
				idle(Duration.ofNanos(Math.min(left, this.every.toNanos())));
			}
		}

	}

	/**
	 * A foreign writer, say a controller or a kubectl loop, that keeps changing an annotation
	 * of every Lease: each write makes a new resourceVersion, so that a write at the version
	 * just read conflicts.
	 */
	private static final class ConflictStorm {

		private final KubernetesClient client;

		private final List<String> leases;

		private final Duration every;

		private final Thread thread;

		private volatile boolean running = true;

		private ConflictStorm(ChaosApiServer server, List<String> leases, Duration every) {
			this.client = server.client("conflict-storm");
			this.leases = leases;
			this.every = every;
			this.thread = new Thread(this::write, "conflict-storm");
			this.thread.setDaemon(true);
		}

		static ConflictStorm start(ChaosApiServer server, List<String> leases, Duration every) {
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
			this.client.close();
		}

		private void write() {
			long writes = 0;
			while (this.running) {
				for (String lease : this.leases) {
					String patch = "{\"metadata\":{\"annotations\":{\"chaos/foreign-writes\":\"" + (++writes) + "\"}}}";
					try {
						this.client.leases()
							.inNamespace(ChaosSettings.NAMESPACE)
							.withName(lease)
							.patch(PatchContext.of(PatchType.JSON_MERGE), patch);
					}
					catch (RuntimeException ex) {
						// a Lease not created yet: nothing to conflict with
					}
				}
				idle(this.every);
			}
		}

	}

}
