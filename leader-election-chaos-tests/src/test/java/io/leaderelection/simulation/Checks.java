package io.leaderelection.simulation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.GateProbe;

/**
 * The checks of every run, on true time:
 * <ul>
 * <li>never two gates of the election open at the same instant (each gate read exactly, to the
 * nanosecond its deadline passes);
 * <li>never leader work of two terms under way at once: cooperative steps (each shorter than the
 * lease duration less the renew deadline, started only with the gate open) and the gated work the
 * engine starts on a grant and stops when the gate closes, always; opaque calls (up to the drain
 * timeout, which no gate stops) against work that began after their process released the Lease,
 * as a release waits for them. Work stretched by a pause of its process counts until the pause began: what
 * it does after is what fencing tokens are for;
 * <li>gated work started twice in one process without a stop between;
 * <li>fencing tokens of the election strictly rising with every grant;
 * <li>at most one start of the once-per-window job per window: two starts at least its shortest
 * window apart, less what the clocks' rate error can take, and none while an earlier run may
 * still be running; unless a foreign client deleted the Lease in between, which takes the record
 * of the run along before any other replica may have seen it;
 * <li>liveness: once faults stop, a leader within {@link Simulation#livenessBoundNanos()}.
 * </ul>
 * It also splits leaderless time by what ended the gate before it.
 */
final class Checks {

	enum Kind {

		STEP, OPAQUE_CALL, GATED_WORK, WINDOW_RUN

	}

	private final Simulation world;

	private final Trace trace;

	private final List<Violation> violations = new ArrayList<>();

	private final Map<String, GateState> gates = new LinkedHashMap<>();

	private final List<Gate> closedGates = new ArrayList<>();

	private final List<Work> work = new ArrayList<>();

	private final Map<String, Work> gatedWork = new LinkedHashMap<>();

	/** How each term's gate was closed by the engine, by identity and token. */
	private final Map<String, RevocationCause> revocations = new LinkedHashMap<>();

	private final Map<String, Long> lastTokens = new LinkedHashMap<>();

	private long highestToken = Long.MIN_VALUE;

	private final Map<String, Long> leaderlessByCause = new TreeMap<>();

	private long grants;

	/** The longest the election went without a leader once faults had stopped. */
	private long longestLeaderlessAfterFaults;

	/** When each process wrote a release of the Lease it held, by identity. */
	private final Map<String, List<Long>> releases = new LinkedHashMap<>();

	/** When foreign clients deleted the Lease: a deletion takes the windows recorded in it along. */
	private final List<Long> deletions = new ArrayList<>();

	Checks(Simulation world, Trace trace) {
		this.world = world;
		this.trace = trace;
	}

	List<Violation> violations() {
		return this.violations;
	}

	Map<String, Long> leaderlessByCause() {
		return this.leaderlessByCause;
	}

	long grants() {
		return this.grants;
	}

	long longestLeaderlessAfterFaults() {
		return this.longestLeaderlessAfterFaults;
	}

	private long now() {
		return this.world.loop().now();
	}

	private void violation(long at, String what) {
		this.violations.add(new Violation(at, what));
		this.trace.add(at, "CHECK", "VIOLATION " + what);
	}

	// ---- gates

	/** Reads the process's gate after one of its steps: it opens and moves only in steps, and closes in them or at its deadline. */
	void gateAfterStep(SimulatedProcess process) {
		if (!process.alive()) {
			return;
		}
		String election = this.world.settings().name();
		long closesAtLocal = GateProbe.gateClosesAt(process.engine, election, process.nanoTime());
		GateState state = this.gates.get(process.identity());
		long now = now();
		if (state != null && state.closesAt <= now) {
			closeGate(process, state, state.closesAt);
			state = null;
		}
		if (closesAtLocal == GateProbe.CLOSED) {
			if (state != null) {
				closeGate(process, state, now);
			}
			return;
		}
		long closesAt = process.trueTimeOf(closesAtLocal);
		if (state == null) {
			Long token = process.engine.status(election).fencingToken();
			state = new GateState(now, (token != null) ? token : -1);
			this.gates.put(process.identity(), state);
			this.trace.add(now, process.identity(), "gate opens, token " + state.token);
			gateOpened(process, state.token);
		}
		state.closesAt = closesAt;
	}

	private void closeGate(SimulatedProcess process, GateState state, long at) {
		this.gates.remove(process.identity());
		this.closedGates.add(new Gate(process.identity(), process.slot(), state.token, state.since, at));
		this.trace.add(at, process.identity(), "gate closed");
	}

	/**
	 * Checked as the gate opens, not when the listeners hear of it, which a pause may delay. A
	 * gate that passed its deadline during a pause opens again in the same term when a renewal
	 * sent before the deadline is answered after the pause: safe, as that renewal was stored
	 * before any follower could have seen its version expire, and no new term.
	 */
	private void gateOpened(SimulatedProcess process, long token) {
		Long last = this.lastTokens.get(process.identity());
		if (last != null && last == token) {
			return;
		}
		this.grants++;
		if (token <= this.highestToken) {
			violation(now(), process.identity() + " opened its gate with fencing token " + token + ", not above "
					+ this.highestToken + " of a gate opened before");
		}
		this.highestToken = Math.max(this.highestToken, token);
		this.lastTokens.put(process.identity(), token);
	}

	void granted(SimulatedProcess process, long token) {
		this.trace.add(now(), process.identity(), "granted, token " + token);
	}

	void revoked(SimulatedProcess process, RevocationCause cause) {
		Long token = this.lastTokens.get(process.identity());
		this.revocations.put(process.identity() + "/" + token, cause);
		this.trace.add(now(), process.identity(), "revoked: " + cause);
	}

	void released(String identity) {
		this.releases.computeIfAbsent(identity, (ignored) -> new ArrayList<>()).add(now());
	}

	void leaseDeleted() {
		this.deletions.add(now());
	}

	// ---- leader work

	Work workStarted(SimulatedProcess process, long token, Kind kind) {
		Work started = new Work(process.identity(), token, kind, now());
		this.work.add(started);
		return started;
	}

	/**
	 * A run of the once-per-window job handed out, counted from the moment its start was taken,
	 * which the window is counted from, not from when its recording was answered.
	 */
	Work windowRunStarted(SimulatedProcess process, long token, long startTakenAt) {
		this.trace.add(now(), process.identity(), "window run starts (taken at " + millis(startTakenAt) + "), token " + token);
		Work started = new Work(process.identity(), token, Kind.WINDOW_RUN, startTakenAt);
		this.work.add(started);
		return started;
	}

	void workEnded(Work ended) {
		if (ended.end < 0) {
			ended.end = now();
		}
	}

	void serviceStarted(SimulatedProcess process) {
		Work running = this.gatedWork.get(process.identity());
		if (running != null && running.end < 0) {
			violation(now(), process.identity() + " started its gated work again while it was running (since "
					+ millis(running.start) + ")");
			return;
		}
		// the work lane starts it before the listeners hear of the grant
		GateState gate = this.gates.get(process.identity());
		Long token = (gate != null) ? Long.valueOf(gate.token) : this.lastTokens.get(process.identity());
		Work started = workStarted(process, (token != null) ? token : -1, Kind.GATED_WORK);
		this.gatedWork.put(process.identity(), started);
		this.trace.add(now(), process.identity(), "gated work starts");
	}

	void serviceStopped(SimulatedProcess process) {
		Work running = this.gatedWork.get(process.identity());
		if (running != null) {
			workEnded(running);
		}
		this.trace.add(now(), process.identity(), "gated work stops");
	}

	/** The process paused: its work under way counts until now; what it does after the pause is fenced. */
	void paused(SimulatedProcess process) {
		for (Work each : this.work) {
			if (each.end < 0 && each.identity.equals(process.identity())) {
				each.end = now();
				each.fenced = true;
			}
		}
	}

	/** The process ended (crashed, or exited after its shutdown): its gate and work end with it. */
	void ended(SimulatedProcess process, String how) {
		this.trace.add(now(), process.identity(), how);
		GateState state = this.gates.get(process.identity());
		if (state != null) {
			closeGate(process, state, Math.min(state.closesAt, now()));
		}
		for (Work each : this.work) {
			if (each.end < 0 && each.identity.equals(process.identity())) {
				each.end = now();
			}
		}
	}

	// ---- at the end of a run

	void finish(long end, List<SimulatedProcess> live) {
		for (SimulatedProcess process : live) {
			GateState state = this.gates.get(process.identity());
			if (state != null) {
				closeGate(process, state, Math.min(state.closesAt, end));
			}
		}
		for (Work each : this.work) {
			if (each.end < 0) {
				each.end = end;
			}
		}
		checkGates();
		checkWork();
		checkWindows();
		checkLiveness(end);
	}

	private void checkGates() {
		List<Gate> sorted = new ArrayList<>(this.closedGates);
		sorted.sort(Comparator.comparingLong(Gate::start));
		for (int one = 0; one < sorted.size(); one++) {
			Gate first = sorted.get(one);
			for (int other = one + 1; other < sorted.size() && sorted.get(other).start < first.end; other++) {
				Gate second = sorted.get(other);
				if (!second.identity.equals(first.identity) && second.end > second.start) {
					violation(second.start, "two gates open at once: " + first.identity + " (token " + first.token + ", "
							+ millis(first.start) + " to " + millis(first.end) + ") and " + second.identity + " (token "
							+ second.token + ", from " + millis(second.start) + ")");
				}
			}
		}
	}

	private void checkWork() {
		List<Work> sorted = new ArrayList<>(this.work);
		sorted.removeIf((each) -> each.kind == Kind.WINDOW_RUN);
		sorted.sort(Comparator.comparingLong((Work each) -> each.start));
		for (int one = 0; one < sorted.size(); one++) {
			Work first = sorted.get(one);
			for (int other = one + 1; other < sorted.size() && sorted.get(other).start < first.end; other++) {
				Work second = sorted.get(other);
				if (second.sameTermAs(first) || second.end <= second.start || unchecked(first, second)) {
					continue;
				}
				violation(second.start, "leader work of two terms under way at once: " + first + " and " + second);
				return;
			}
		}
	}

	/**
	 * An opaque call is checked against work that began after its process released the Lease:
	 * a release waits for it. Of a term lost instead (expired, deleted, or left to expire when
	 * the drain ran out), nothing waits for it, and its overlap is for fencing tokens to catch.
	 */
	private boolean unchecked(Work opaque, Work later) {
		if (opaque.kind != Kind.OPAQUE_CALL) {
			return false;
		}
		List<Long> released = this.releases.getOrDefault(opaque.identity, List.of());
		return released.stream().noneMatch((at) -> opaque.start <= at && at <= later.start);
	}

	private void checkWindows() {
		List<Work> runs = new ArrayList<>(this.work);
		runs.removeIf((each) -> each.kind != Kind.WINDOW_RUN);
		runs.sort(Comparator.comparingLong((Work each) -> each.start));
		long atLeast = (long) (this.world.windowAtLeast().toNanos() * (1 - 2 * Simulation.CLOCK_RATE_ERROR)) - 1_000_000;
		long atMost = (long) (this.world.windowAtMost().toNanos() * (1 - 2 * Simulation.CLOCK_RATE_ERROR)) - 1_000_000;
		for (int index = 1; index < runs.size(); index++) {
			Work before = runs.get(index - 1);
			Work run = runs.get(index);
			if (deletedBetween(before.start, run.start)) {
				// a replica that never saw the run's record before the Lease was deleted cannot know of it
				continue;
			}
			if (run.start - before.start < atLeast) {
				violation(run.start, "two starts of the once-per-window job within its window: " + before + " and " + run);
			}
			else if (run.start < before.end && !before.fenced && run.start - before.start < atMost) {
				violation(run.start, "a start of the once-per-window job while its run before may still run: " + before
						+ " and " + run);
			}
		}
	}

	private boolean deletedBetween(long from, long to) {
		return this.deletions.stream().anyMatch((at) -> from <= at && at <= to);
	}

	/**
	 * Once faults stop, a leader within the bound; splits the leaderless time of the whole run by
	 * what ended the gate before it (a fault on its replica, else the engine's cause).
	 */
	private void checkLiveness(long end) {
		List<Gate> sorted = new ArrayList<>(this.closedGates);
		sorted.sort(Comparator.comparingLong(Gate::start));
		long coveredUntil = 0;
		String cause = "start-up";
		long quietFrom = this.world.quietFromNanos();
		long bound = this.world.livenessBoundNanos();
		for (Gate gate : sorted) {
			if (gate.start > coveredUntil) {
				leaderless(coveredUntil, gate.start, cause, quietFrom, bound);
			}
			if (gate.end > coveredUntil) {
				coveredUntil = gate.end;
				cause = causeOfEnd(gate);
			}
		}
		if (end > coveredUntil) {
			leaderless(coveredUntil, end, cause, quietFrom, bound);
		}
	}

	private void leaderless(long from, long to, String cause, long quietFrom, long bound) {
		this.leaderlessByCause.merge(cause, to - from, Long::sum);
		if (to > quietFrom) {
			this.longestLeaderlessAfterFaults = Math.max(this.longestLeaderlessAfterFaults, to - Math.max(from, quietFrom));
		}
		if (to > quietFrom && to - Math.max(from, quietFrom) > bound) {
			violation(Math.max(from, quietFrom), "no leader for " + millis(to - Math.max(from, quietFrom))
					+ " after faults stopped at " + millis(quietFrom) + " (bound " + millis(bound) + ")");
		}
	}

	private String causeOfEnd(Gate gate) {
		String fault = this.world.faultOn(gate.slot, gate.identity, gate.end);
		if (fault != null) {
			return fault;
		}
		RevocationCause cause = this.revocations.get(gate.identity + "/" + gate.token);
		return (cause != null) ? "engine: " + cause : "engine: deadline passed";
	}

	static String millis(long nanos) {
		return String.format("%.3f ms", nanos / 1e6);
	}

	private static final class GateState {

		private final long since;

		private final long token;

		private long closesAt;

		GateState(long since, long token) {
			this.since = since;
			this.token = token;
		}

	}

	private record Gate(String identity, int slot, long token, long start, long end) {
	}

	record Violation(long at, String what) {
	}

	static final class Work {

		private final String identity;

		private final long token;

		private final Kind kind;

		private final long start;

		private long end = -1;

		private boolean fenced;

		Work(String identity, long token, Kind kind, long start) {
			this.identity = identity;
			this.token = token;
			this.kind = kind;
			this.start = start;
		}

		boolean sameTermAs(Work other) {
			return this.identity.equals(other.identity) && this.token == other.token;
		}

		@Override
		public String toString() {
			return this.kind + " of " + this.identity + " token " + this.token + " (" + millis(this.start) + " to "
					+ millis(this.end) + (this.fenced ? ", paused" : "") + ")";
		}

	}

}
