package io.leaderelection.simulation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionRuntime;
import io.leaderelection.engine.ElectionScheduler;
import io.leaderelection.engine.LeaderCalls;
import io.leaderelection.engine.MonotonicClock;
import io.leaderelection.engine.WindowedRun;

/**
 * One replica's process: an {@link ElectionEngine} on its own monotonic clock, which runs a
 * drawn rate off true time, and its own scheduler on the event loop, running leader-only calls
 * through {@link LeaderCalls} as {@code @LeaderOnly} does and a once-per-window job. A pause
 * holds its events while its clock runs on; a crash drops them.
 */
final class SimulatedProcess implements MonotonicClock, ElectionScheduler, ElectionListener {

	static final Instant EPOCH = Instant.parse("2026-11-29T00:00:00Z");

	private final Simulation world;

	private final EventLoop loop;

	private final int slot;

	private final String identity;

	/** How fast this process's clock runs against true time. */
	private final double rate;

	private final long clockOffset;

	private final long born;

	private final Duration wallClockSkew;

	private final Random random;

	private final GatedWork work = new GatedWork();

	final ElectionEngine engine;

	private boolean alive = true;

	private long pausedUntil;

	/** A pause to come after this many more steps of this process, so that pauses fall between any two steps. */
	private int stepsBeforePause = -1;

	private long pauseToCome;

	SimulatedProcess(Simulation world, int slot, int generation, double rate, long seed) {
		this.world = world;
		this.loop = world.loop();
		this.slot = slot;
		this.identity = "r" + slot + "." + generation;
		this.rate = rate;
		this.random = new Random(seed);
		this.clockOffset = this.random.nextLong() >>> 2;
		this.born = this.loop.now();
		this.wallClockSkew = Duration.ofSeconds(this.random.nextInt(7200) - 3600);
		ElectionRuntime runtime = new ElectionRuntime(this, this, wallClock(), (task) -> schedule(task, 0),
				this.random);
		this.engine = new ElectionEngine(this.identity, List.of(world.settings()),
				(settings) -> world.server().client(this, settings.leaseName()), runtime, List.of(this), this.work,
				world.drainTimeout());
	}

	int slot() {
		return this.slot;
	}

	String identity() {
		return this.identity;
	}

	boolean alive() {
		return this.alive;
	}

	long pausedUntil() {
		return this.pausedUntil;
	}

	// ---- time

	@Override
	public long nanoTime() {
		return this.clockOffset + (long) ((this.loop.now() - this.born) * this.rate);
	}

	/** The first true moment at which this clock reads the given value or later. */
	long trueTimeOf(long local) {
		long at = this.born + (long) Math.ceil((local - this.clockOffset) / this.rate);
		while (this.clockOffset + (long) ((at - this.born) * this.rate) < local) {
			at++;
		}
		return at;
	}

	/**
	 * Runs the task after the delay on this clock, and late by up to the seed's dispatch jitter:
	 * the engine's scheduler has two threads, so of the tasks due about the same time either may
	 * run first.
	 */
	@Override
	public Cancellable schedule(Runnable task, long delayNanos) {
		long due = trueTimeOf(nanoTime() + Math.max(0, delayNanos));
		long jitter = this.world.dispatchJitterNanos();
		return this.loop.at(due + ((jitter > 0) ? this.random.nextLong(jitter) : 0), this, task)::cancel;
	}

	private Clock wallClock() {
		return new Clock() {
			@Override
			public ZoneId getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(ZoneId zone) {
				return this;
			}

			@Override
			public Instant instant() {
				return EPOCH.plusNanos((long) (SimulatedProcess.this.loop.now() * SimulatedProcess.this.rate))
					.plus(SimulatedProcess.this.wallClockSkew);
			}
		};
	}

	/** After every step this process ran: its gate may have opened, moved or closed. */
	void afterStep() {
		this.world.checks().gateAfterStep(this);
		if (this.stepsBeforePause >= 0 && this.stepsBeforePause-- == 0) {
			long until = Math.min(this.loop.now() + this.pauseToCome, this.world.quietFromNanos());
			if (until > this.loop.now()) {
				pause(until - this.loop.now());
			}
		}
	}

	// ---- life

	/** Follows the Lease at once, as the starter does while the application starts, then campaigns. */
	void boot(long startupNanos) {
		this.engine.follow();
		schedule(this.engine::start, startupNanos);
		scheduleCall();
		scheduleWindowedCall();
	}

	/** Pauses the process right after the given number of its next steps, wherever they are. */
	void pauseAfterSteps(int steps, long forNanos) {
		this.stepsBeforePause = steps;
		this.pauseToCome = forNanos;
	}

	void pause(long forNanos) {
		this.world.paused(this, forNanos);
		this.world.checks().paused(this);
		this.pausedUntil = Math.max(this.pausedUntil, this.loop.now() + forNanos);
	}

	void crash() {
		this.world.checks().ended(this, "crashed");
		this.alive = false;
	}

	// ---- leader work

	/** A leader-only call now and then, as a timer calling a {@code @LeaderOnly} method would. */
	private void scheduleCall() {
		schedule(() -> {
			leaderOnlyCall();
			scheduleCall();
		}, (long) (-Math.log(1 - this.random.nextDouble()) * 200_000_000L));
	}

	private void scheduleWindowedCall() {
		schedule(() -> {
			windowedCall();
			scheduleWindowedCall();
		}, 100_000_000L + this.random.nextLong(400_000_000L));
	}

	/**
	 * Enters the gate as {@code LeaderOnlyGatedCalls} does: registers the call, reads the gate,
	 * and runs it as a call that returned a future. Most calls are cooperative: steps each
	 * shorter than the lease duration less the renew deadline, each started only while the gate
	 * is open. Some are opaque: one step up to the drain timeout, which no gate stops.
	 */
	private void leaderOnlyCall() {
		String election = this.world.settings().name();
		LeaderCalls.Call call = this.work.enter(election, false, "job");
		if (call == null) {
			return;
		}
		if (!this.engine.isLeader(election)) {
			call.exit();
			return;
		}
		call.returned();
		long token = this.engine.status(election).fencingToken();
		if (this.random.nextInt(5) == 0) {
			long length = 1 + this.random.nextLong(this.world.drainTimeout().toNanos() * 7 / 8);
			Checks.Work step = this.world.checks().workStarted(this, token, Checks.Kind.OPAQUE_CALL);
			schedule(() -> {
				this.world.checks().workEnded(step);
				call.ended();
			}, length);
		}
		else {
			runSteps(call, token, 1 + this.random.nextInt(12));
		}
	}

	private void runSteps(LeaderCalls.Call call, long token, int stepsLeft) {
		if (stepsLeft == 0 || !this.engine.isLeader(this.world.settings().name())) {
			call.ended();
			return;
		}
		Checks.Work step = this.world.checks().workStarted(this, token, Checks.Kind.STEP);
		schedule(() -> {
			this.world.checks().workEnded(step);
			runSteps(call, token, stepsLeft - 1);
		}, 1 + this.random.nextLong(this.world.longestStepNanos()));
	}

	/** A call of a once-per-window job: registered as leader work until its run ends. */
	private void windowedCall() {
		String election = this.world.settings().name();
		LeaderCalls.Call call = this.work.enter(election, false, "window job");
		if (call == null) {
			return;
		}
		if (!this.engine.isLeader(election)) {
			call.exit();
			return;
		}
		call.returned();
		long startTakenAt = this.loop.now();
		CompletableFuture<Optional<WindowedRun>> started = this.engine.startInWindow(election, null, Simulation.JOB,
				this.world.windowAtLeast(), this.world.windowAtMost());
		started.whenComplete((run, failure) -> {
			if (failure != null || run.isEmpty()) {
				call.ended();
				return;
			}
			Checks.Work running = this.world.checks().windowRunStarted(this, run.get().fencingToken(), startTakenAt);
			schedule(() -> {
				this.world.checks().workEnded(running);
				run.get().end();
				call.ended();
			}, 1 + this.random.nextLong(this.world.windowAtMost().toNanos() * 4 / 5));
		});
	}

	// ---- what the engine tells

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		this.world.checks().granted(this, fencingToken);
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		this.world.checks().revoked(this, cause);
	}

	/** Gated work the engine starts on a grant and stops when the gate closes, beside the calls. */
	private final class GatedWork extends LeaderCalls {

		@Override
		public void start(String election) {
			SimulatedProcess.this.world.checks().serviceStarted(SimulatedProcess.this);
		}

		@Override
		public void stop(String election) {
			SimulatedProcess.this.world.checks().serviceStopped(SimulatedProcess.this);
		}

	}

}
