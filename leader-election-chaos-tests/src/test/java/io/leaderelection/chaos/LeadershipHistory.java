package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.leaderelection.chaos.ChaosOutcome.ElectionCounts;
import io.leaderelection.chaos.ChaosOutcome.FaultStats;
import io.leaderelection.chaos.ChaosOutcome.LeaderWork;
import io.leaderelection.chaos.ChaosOutcome.LeaseWrites;
import io.leaderelection.chaos.ChaosOutcome.Overlaps;
import io.leaderelection.chaos.ChaosOutcome.Spread;
import io.leaderelection.chaos.ChaosOutcome.Violations;
import io.leaderelection.kubernetes.KubernetesLeaseStore;

/**
 * Everything that happened in a chaos run, on the JVM's monotonic clock that every replica
 * shares: each term of leadership (gate open to gate closed) of each process, each step of a
 * cooperative leader-only job, each opaque job and each job whole with the fencing token it
 * began with, each version of every Lease as the API server stored it, each process's end, and
 * each injected fault and step of one. From it, {@link #outcome} finds overlaps (of gates, steps
 * and jobs), fencing token regressions (of terms and of jobs), releases written while a job of
 * the releasing replica still ran, foreign edits that an elector's write undid, the
 * unavailability after each fault, and the time without a leader and with two
 * ({@link LeaderTimes}); all of it also election by election. For balanced shards, it also keeps the spread of the shards over the live replicas
 * as the run samples it, and tells it per fault window.
 * <p>
 * Everything is recorded per process, not per identity: two processes given one identity that
 * both lead show as an overlap.
 */
final class LeadershipHistory {

	/**
	 * How long before the recorded end of its term a job may have read the gate open: the engine
	 * reads its clock for the gate-close time just before it closes the gate. Terms of one
	 * process are always much further apart.
	 */
	private static final long GATE_READ_TOLERANCE = Duration.ofMillis(1).toNanos();

	/** How long before a gate overlap its timeline begins, at most, and how long after the overlap it ends. */
	private static final long TIMELINE_BEFORE_SECONDS = 4;

	private static final long TIMELINE_AFTER_SECONDS = 1;

	/** How the engine tells a term ended by a hand-over to balance a group. */
	private static final String HANDED_OVER = "HANDED_OVER";

	private final List<Term> terms = new ArrayList<>();

	private final Map<String, List<Span>> steps = new LinkedHashMap<>();

	private final Map<String, List<Span>> opaqueJobs = new LinkedHashMap<>();

	/** Every job of leader-only work of each election, cooperative or opaque, whole. */
	private final Map<String, List<Job>> jobs = new LinkedHashMap<>();

	/** The replica each process runs in. */
	private final Map<String, String> replicaOfProcess = new HashMap<>();

	/** The identity each process campaigns with: its name, but for a duplicate identity's twin or for life. */
	private final Map<String, String> identityOfProcess = new HashMap<>();

	/** When each process that has ended, stopped or killed, ended. */
	private final Map<String, Long> processEndedAt = new HashMap<>();

	/** The holder of every version of each election's Lease stored, and every deletion, in order. */
	private final Map<String, List<LeaderTimes.HolderVersion>> holders = new HashMap<>();

	/**
	 * The steps of faults that act in several steps (a cut, a freeze, a deletion, a heal), each
	 * as its fault with the step told: for the timelines, and so that what follows a step is laid
	 * to its fault.
	 */
	private final List<FaultStep> faultSteps = new ArrayList<>();

	private final Set<String> replicas = new HashSet<>();

	/** The last version stored of each election's Lease; none while it is missing. */
	private final Map<String, LeaseVersion> leaseVersions = new HashMap<>();

	private final List<LeaseWrite> releases = new ArrayList<>();

	private final List<LeaseWrite> revertedEdits = new ArrayList<>();

	private final List<LeaseWrite> clearedPreferredHolders = new ArrayList<>();

	private final List<InjectedFault> faults = new ArrayList<>();

	private final Set<String> electionsEverLed = new HashSet<>();

	/** Every request about each election's Lease the API server answered, described, in order. */
	private final Map<String, List<Event>> requests = new HashMap<>();

	/** Every version of each election's Lease stored, and every deletion, described, in order. */
	private final Map<String, List<Event>> storedVersions = new HashMap<>();

	/** The spread of balanced shards over the live replicas, as sampled, in order of time. */
	private final List<SpreadSample> spreadSamples = new ArrayList<>();

	private int transitions;

	/**
	 * A process started in the replica; its writes carry the replica's name.
	 * @param identity the identity it campaigns with, which the Leases it holds name
	 */
	synchronized void processStarted(String process, String replica, String identity) {
		this.replicaOfProcess.put(process, replica);
		this.identityOfProcess.put(process, identity);
		this.replicas.add(replica);
	}

	/** The process stopped or was killed: from now on it writes nothing. */
	synchronized void processEnded(String process, long at) {
		this.processEndedAt.put(process, at);
	}

	/** A term began: the process may run leader-only work from this moment. */
	synchronized void opened(String process, String election, Long fencingToken, long at) {
		if (!this.electionsEverLed.add(election)) {
			this.transitions++;
		}
		this.terms.add(new Term(process, election, fencingToken, at));
	}

	/**
	 * The process's term in the election, if open, ended at the given moment.
	 * @param reason why, e.g. {@code RENEW_DEADLINE_PASSED}
	 * @param voluntary whether leadership was given up (step-down, yield, graceful stop, preferred
	 * holder) rather than lost
	 */
	synchronized void closed(String process, String election, long at, String reason, boolean voluntary) {
		for (int i = this.terms.size() - 1; i >= 0; i--) {
			Term term = this.terms.get(i);
			if (term.process.equals(process) && term.election.equals(election) && term.closedAt == null) {
				term.closedAt = at;
				term.closedBecause = reason;
				term.voluntary = voluntary;
				return;
			}
		}
	}

	/** A step of a cooperative job ran, from just before its gate read to its end. */
	synchronized void stepRan(String process, String election, long start, long end) {
		this.steps.computeIfAbsent(election, (key) -> new ArrayList<>()).add(new Span(process, start, end));
	}

	/** An opaque job ran, from just before its only gate read to its end. */
	synchronized void opaqueJobRan(String process, String election, long start, long end) {
		this.opaqueJobs.computeIfAbsent(election, (key) -> new ArrayList<>()).add(new Span(process, start, end));
	}

	/**
	 * A job of leader-only work ran, cooperative or opaque, from just before its first gate read
	 * to the end of its work.
	 * @param fencingToken the fencing token it read as it began; {@code null} when its elector
	 * has none or it read none
	 */
	synchronized void jobRan(String process, String election, long start, long end, Long fencingToken) {
		this.jobs.computeIfAbsent(election, (key) -> new ArrayList<>()).add(new Job(process, start, end, fencingToken));
	}

	/**
	 * The API server stored a version of the election's Lease, in the order it stored them. A
	 * version a replica wrote must carry over what others own from the version it replaced, so
	 * that no version ever lacks an edit made before it; one that names no holder after one that
	 * did is a release.
	 * @param writer the client that wrote it: a replica's name, or a foreign writer's
	 * @param version the version stored; {@code null} when the Lease was deleted
	 */
	synchronized void leaseWritten(String election, String writer, LeaseVersion version, long at) {
		this.holders.computeIfAbsent(election, (key) -> new ArrayList<>())
			.add(new LeaderTimes.HolderVersion(at, writer, (version != null) ? version.holder() : null,
					version == null));
		LeaseVersion before = (version != null) ? this.leaseVersions.put(election, version)
				: this.leaseVersions.remove(election);
		if (before == null || version == null || !this.replicas.contains(writer)) {
			return;
		}
		String reverted = before.editsUndoneBy(version);
		if (reverted != null) {
			this.revertedEdits.add(new LeaseWrite(election, writer, at, reverted));
		}
		String cleared = before.coordinationUndoneBy(version);
		if (cleared != null) {
			this.clearedPreferredHolders.add(new LeaseWrite(election, writer, at, cleared));
		}
		if (before.hasHolder() && !version.hasHolder()) {
			this.releases.add(new LeaseWrite(election, writer, at, "released " + before.holder()));
		}
	}

	/**
	 * The API server stored a version of the election's Lease, or deleted it, as the timeline of
	 * a gate overlap tells it.
	 * @param writer the client that wrote it
	 * @param what the version, e.g. its holder and resourceVersion; {@code null} for a deletion
	 */
	synchronized void versionStored(String election, String writer, String what, long at) {
		this.storedVersions.computeIfAbsent(election, (key) -> new ArrayList<>())
			.add(new Event(at, writer, what));
	}

	/**
	 * The API server answered a request about the election's Lease, as the timeline of a gate
	 * overlap tells it (a write that succeeded is told by {@link #versionStored}).
	 * @param client the client that sent it
	 * @param what the request and its answer, e.g. {@code POST answered 409}
	 */
	synchronized void leaseRequested(String election, String client, String what, long at) {
		this.requests.computeIfAbsent(election, (key) -> new ArrayList<>()).add(new Event(at, client, what));
	}

	/**
	 * A fault was injected at the given moment.
	 * @param heldWithAnother whether it was injected while another fault was held
	 */
	synchronized void faultInjected(FaultKind kind, String description, long at, boolean heldWithAnother) {
		this.faults.add(new InjectedFault(kind, description, at, heldWithAnother));
	}

	/**
	 * A fault that acts in steps took one, e.g. {@code r2 frozen}, {@code r2 thawed}: the
	 * timelines of overlaps tell it, and overlaps that begin after it, before any other fault or
	 * step, are laid to that fault.
	 * @param kind the fault's kind
	 * @param description the fault as its injection described it
	 */
	synchronized void faultStep(FaultKind kind, String description, String what, long at) {
		this.faultSteps.add(new FaultStep(kind, what, description, at));
	}

	/**
	 * The run sampled the spread of balanced shards: the most shards a live replica held less
	 * the fewest.
	 */
	synchronized void spreadSampled(long at, int spread) {
		this.spreadSamples.add(new SpreadSample(at, spread));
	}

	/** Terms begun after the first one of each election. */
	synchronized int transitions() {
		return this.transitions;
	}

	/** What the run shows, counting terms still open as open until the run ended. */
	synchronized ChaosOutcome outcome(String elector, ChaosSettings settings, long startedAt, long endedAt) {
		Map<String, List<Term>> byElection = new TreeMap<>();
		Map<String, List<Term>> byProcessAndElection = new HashMap<>();
		for (Term term : this.terms) {
			byElection.computeIfAbsent(term.election, (key) -> new ArrayList<>()).add(term);
			byProcessAndElection.computeIfAbsent(term.process + " in " + term.election, (key) -> new ArrayList<>())
				.add(term);
		}
		Comparator<Term> byOpening = Comparator.comparingLong((Term term) -> term.openedAt);
		byElection.values().forEach((terms) -> terms.sort(byOpening));
		byProcessAndElection.values().forEach((terms) -> terms.sort(byOpening));
		boolean tokens = !this.terms.isEmpty() && this.terms.stream().allMatch((term) -> term.fencingToken != null);
		Map<FaultKind, FaultStats> faults = new EnumMap<>(FaultKind.class);
		List<Integer> spreadAtWindowEnd = new ArrayList<>();
		List<Integer> highestSpreadInWindow = new ArrayList<>();
		for (int i = 0; i < this.faults.size(); i++) {
			InjectedFault fault = this.faults.get(i);
			long windowEnd = (i + 1 < this.faults.size()) ? this.faults.get(i + 1).at : endedAt;
			FaultStats stats = faults.computeIfAbsent(fault.kind, (kind) -> new FaultStats());
			stats.countInjection();
			for (List<Term> terms : byElection.values()) {
				interrupt(stats, terms, fault.at, windowEnd, endedAt);
			}
			int[] spread = spreadBetween(fault.at, windowEnd);
			if (spread != null) {
				stats.spread(spread[0], spread[1]);
				spreadAtWindowEnd.add(spread[0]);
				highestSpreadInWindow.add(spread[1]);
			}
		}
		List<Overlaps.Overlap> gateOverlaps = new ArrayList<>();
		List<Overlaps.Overlap> stepOverlaps = new ArrayList<>();
		List<Overlaps.Overlap> afterVoluntaryEnd = new ArrayList<>();
		List<Overlaps.Overlap> afterLoss = new ArrayList<>();
		List<String> fenceViolations = new ArrayList<>();
		List<String> releasesDuringJobs = new ArrayList<>();
		Integer tokenRegressions = tokens ? 0 : null;
		long stepCount = 0;
		long opaqueJobCount = 0;
		long jobCount = 0;
		List<Overlaps.Overlap> jobOverlaps = new ArrayList<>();
		List<String> jobTokenRegressions = new ArrayList<>();
		LeaderTimes leaderTimes = new LeaderTimes(this.identityOfProcess, this.processEndedAt, this.replicas, endedAt);
		Map<String, ElectionCounts> perElection = new TreeMap<>(LeadershipHistory::byNameThenNumber);
		Set<String> elections = new TreeSet<>(byElection.keySet());
		elections.addAll(this.steps.keySet());
		elections.addAll(this.opaqueJobs.keySet());
		elections.addAll(this.jobs.keySet());
		for (String election : elections) {
			List<Term> terms = byElection.getOrDefault(election, List.of());
			leaderTimes.count(terms.stream().map((term) -> term.spanUntil(endedAt)).toList(),
					this.holders.getOrDefault(election, List.of()));
			List<Job> jobsHere = this.jobs.getOrDefault(election, List.of());
			jobCount += jobsHere.size();
			jobOverlaps.addAll(Overlaps.find(election, jobsHere.stream().map(Job::span).toList()));
			if (tokens) {
				jobTokenRegressions.addAll(jobTokenRegressions(election, jobsHere, startedAt));
			}
			List<Overlaps.Overlap> termOverlaps = Overlaps.find(election,
					terms.stream().map((term) -> term.span(endedAt)).toList());
			gateOverlaps.addAll(termOverlaps);
			int regressionsHere = tokens ? tokenRegressions(terms) : 0;
			if (tokens) {
				tokenRegressions += regressionsHere;
			}
			SpansByStart steps = new SpansByStart(this.steps.get(election));
			SpansByStart opaque = new SpansByStart(this.opaqueJobs.get(election));
			stepCount += steps.spans.size();
			opaqueJobCount += opaque.spans.size();
			List<Overlaps.Overlap> stepOverlapsHere = Overlaps.find(election, steps.spans);
			stepOverlaps.addAll(stepOverlapsHere);
			int afterVoluntaryEndHere = 0;
			int afterLossHere = 0;
			int fenceViolationsHere = 0;
			for (Overlaps.Overlap overlap : Overlaps.find(election, opaque.spans)) {
				Term earlier = termOf(byProcessAndElection, overlap.open(), election);
				Term later = termOf(byProcessAndElection, overlap.began(), election);
				boolean voluntary = earlier != null && earlier.closedAt != null && earlier.voluntary;
				(voluntary ? afterVoluntaryEnd : afterLoss).add(overlap);
				if (voluntary) {
					afterVoluntaryEndHere++;
				}
				else {
					afterLossHere++;
				}
				FaultStats cause = statsOfFaultInEffect(faults, overlap.at());
				if (cause != null) {
					cause.opaqueJobsOverlapped(voluntary);
				}
				if (!voluntary && tokens && earlier != null && later != null
						&& later.fencingToken <= earlier.fencingToken) {
					fenceViolationsHere++;
					fenceViolations.add(describeJobOverlap(overlap, earlier, startedAt) + "; fencing token "
							+ later.fencingToken + " after " + earlier.fencingToken);
				}
			}
			int handedOver = (int) terms.stream().filter((term) -> HANDED_OVER.equals(term.closedBecause)).count();
			perElection.put(election, new ElectionCounts(terms.size(), Math.max(0, terms.size() - 1),
					termOverlaps.size(), tokens ? regressionsHere : null, stepOverlapsHere.size(),
					afterVoluntaryEndHere, afterLossHere, tokens ? fenceViolationsHere : null, handedOver));
			for (LeaseWrite release : this.releases) {
				if (release.election.equals(election)) {
					String job = jobRunningAt(release, steps, opaque, startedAt);
					if (job != null) {
						releasesDuringJobs.add(release.describe(startedAt) + " while " + job);
					}
				}
			}
		}
		List<String> scenarios = new ArrayList<>();
		List<String> timelines = gateOverlaps.stream()
			.sorted(Comparator.comparingLong(Overlaps.Overlap::at))
			.limit(ChaosOutcome.EXAMPLES)
			.map((overlap) -> timeline(overlap, byElection.get(overlap.election()), startedAt))
			.toList();
		for (Overlaps.Overlap overlap : gateOverlaps) {
			InjectedFault cause = faultInEffectAt(overlap.at());
			String scenario = overlap.describe(startedAt) + " after "
					+ ((cause != null) ? cause.kind.label() + " (" + cause.description + ")" : "the start");
			if (cause != null) {
				faults.get(cause.kind).overlapped(overlap.length(), scenario);
			}
			scenarios.add(scenario);
		}
		Function<Overlaps.Overlap, String> describeJobOverlap = (overlap) -> describeJobOverlap(overlap,
				termOf(byProcessAndElection, overlap.open(), overlap.election()), startedAt);
		LeaderWork work = new LeaderWork(stepCount, Overlaps.of(stepOverlaps, (overlap) -> overlap.describe(startedAt)),
				opaqueJobCount, Overlaps.of(afterVoluntaryEnd, describeJobOverlap),
				Overlaps.of(afterLoss, describeJobOverlap), tokens ? Violations.of(fenceViolations) : null,
				Violations.of(releasesDuringJobs), jobCount, Overlaps.of(jobOverlaps, describeJobOverlap),
				tokens ? Violations.of(jobTokenRegressions) : null);
		LeaseWrites leaseWrites = new LeaseWrites(
				Violations.of(this.revertedEdits.stream().map((write) -> write.describe(startedAt)).toList()),
				Violations.of(this.clearedPreferredHolders.stream().map((write) -> write.describe(startedAt)).toList()));
		int heldTogether = (int) this.faults.stream().filter(InjectedFault::heldWithAnother).count();
		return new ChaosOutcome(elector, settings, Duration.ofNanos(endedAt - startedAt), this.transitions, faults,
				heldTogether, Overlaps.of(gateOverlaps, (overlap) -> overlap.describe(startedAt)), tokenRegressions,
				work, leaderTimes.leaderTime(), leaseWrites, scenarios, timelines, perElection,
				this.spreadSamples.isEmpty() ? null
						: new Spread(spreadAtWindowEnd, highestSpreadInWindow, this.spreadSamples.size()));
	}

	/**
	 * What happened in the election of a gate overlap, from a second before the earlier term
	 * began (or {@value #TIMELINE_BEFORE_SECONDS} s before the overlap, if that is later) to
	 * {@value #TIMELINE_AFTER_SECONDS} s after the overlap: the terms begun and ended, with their
	 * fencing tokens and why they ended, every version of its Lease stored or deleted, every
	 * other request the API server answered about it, and every fault injected, in order of time;
	 * and before that, when each of the two processes' replicas last read the Lease and last had
	 * a watch of it accepted.
	 */
	private String timeline(Overlaps.Overlap overlap, List<Term> terms, long startedAt) {
		long from = Math.max(overlap.open().start() - 1_000_000_000L,
				overlap.at() - TIMELINE_BEFORE_SECONDS * 1_000_000_000L);
		long to = overlap.at() + overlap.length().toNanos() + TIMELINE_AFTER_SECONDS * 1_000_000_000L;
		List<Event> events = new ArrayList<>();
		for (Term term : terms) {
			if (term.openedAt - from >= 0 && term.openedAt - to < 0) {
				events.add(new Event(term.openedAt, term.process,
						"gate opened, fencing token " + term.fencingToken));
			}
			if (term.closedAt != null && term.closedAt - from >= 0 && term.closedAt - to < 0) {
				events.add(new Event(term.closedAt, term.process, "gate closed: " + term.closedBecause));
			}
		}
		for (Event version : this.storedVersions.getOrDefault(overlap.election(), List.of())) {
			if (version.at - from >= 0 && version.at - to < 0) {
				events.add(new Event(version.at, version.writer,
						(version.what != null) ? "stored " + version.what : "deleted the Lease"));
			}
		}
		List<Event> requests = this.requests.getOrDefault(overlap.election(), List.of());
		for (Event request : requests) {
			if (request.at - from >= 0 && request.at - to < 0) {
				events.add(request);
			}
		}
		for (InjectedFault fault : this.faults) {
			if (fault.at - from >= 0 && fault.at - to < 0) {
				events.add(new Event(fault.at, "fault", fault.kind.label() + " " + fault.description));
			}
		}
		for (FaultStep step : this.faultSteps) {
			if (step.at - from >= 0 && step.at - to < 0) {
				events.add(new Event(step.at, "fault", step.what));
			}
		}
		events.sort(Comparator.comparingLong(Event::at));
		StringBuilder timeline = new StringBuilder(overlap.describe(startedAt)).append(':');
		for (String process : List.of(overlap.open().owner(), overlap.began().owner())) {
			String replica = this.replicaOfProcess.get(process);
			timeline.append(String.format("%n  - before %.3f s, %s (in %s) last read the Lease %s, last had a watch "
					+ "of it accepted %s", (from - startedAt) / 1e9, process, replica,
					lastBefore(requests, replica, "GET answered 200", from, startedAt),
					lastBefore(requests, replica, "watch answered 101", from, startedAt)));
		}
		for (Event event : events) {
			timeline.append(String.format("%n  - %.3f s %s: %s", (event.at - startedAt) / 1e9, event.writer,
					event.what));
		}
		return timeline.toString();
	}

	/** When the replica's last request of the kind was answered before the moment, described. */
	private static String lastBefore(List<Event> requests, String replica, String what, long before,
			long startedAt) {
		for (int i = requests.size() - 1; i >= 0; i--) {
			Event request = requests.get(i);
			if (request.at - before < 0 && request.writer != null && request.writer.equals(replica)
					&& request.what.startsWith(what)) {
				return String.format("at %.3f s", (request.at - startedAt) / 1e9);
			}
		}
		return "never";
	}

	/**
	 * The last and the highest spread of balanced shards sampled in a fault window, from its
	 * fault to the next; {@code null} if none was sampled in it. Samples are taken in order of
	 * time, on the run's driver thread.
	 */
	private int[] spreadBetween(long from, long to) {
		int low = 0;
		int high = this.spreadSamples.size();
		while (low < high) {
			int middle = (low + high) >>> 1;
			if (this.spreadSamples.get(middle).at - from < 0) {
				low = middle + 1;
			}
			else {
				high = middle;
			}
		}
		int last = -1;
		int highest = -1;
		for (int i = low; i < this.spreadSamples.size() && this.spreadSamples.get(i).at - to < 0; i++) {
			last = this.spreadSamples.get(i).spread;
			highest = Math.max(highest, last);
		}
		return (last < 0) ? null : new int[] { last, highest };
	}

	/**
	 * Elections by name, with the numbers in them compared as numbers, so that
	 * {@code shards-2-of-32} comes before {@code shards-10-of-32}.
	 */
	private static int byNameThenNumber(String one, String other) {
		String[] these = one.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
		String[] those = other.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
		for (int i = 0; i < Math.min(these.length, those.length); i++) {
			boolean numbers = these[i].chars().allMatch(Character::isDigit)
					&& those[i].chars().allMatch(Character::isDigit);
			int compared = numbers ? Long.compare(Long.parseLong(these[i]), Long.parseLong(those[i]))
					: these[i].compareTo(those[i]);
			if (compared != 0) {
				return compared;
			}
		}
		return Integer.compare(these.length, those.length);
	}

	/**
	 * Counts the fault's interruption of an election, if the term open at the time of the fault
	 * ended before the next fault (or none was open): how long after the fault the next term
	 * began, and why the interrupted term ended.
	 */
	private static void interrupt(FaultStats stats, List<Term> terms, long faultAt, long windowEnd, long endedAt) {
		Term holding = null;
		Term next = null;
		for (Term term : terms) {
			if (term.openedAt <= faultAt && (term.closedAt == null || term.closedAt > faultAt)) {
				holding = term;
			}
			else if (term.openedAt > faultAt && next == null) {
				next = term;
			}
		}
		if (holding != null && (holding.closedAt == null || holding.closedAt >= windowEnd)) {
			return;
		}
		stats.interrupted(Duration.ofNanos(((next != null) ? next.openedAt : endedAt) - faultAt),
				(holding != null) ? holding.closedBecause : "no leader at the fault");
	}

	/**
	 * The jobs that began with a fencing token lower than one a job of the election began with
	 * before them, described: a downstream system fenced by the token would refuse their writes
	 * only if the token rose. Jobs that read no token are left out.
	 */
	private static List<String> jobTokenRegressions(String election, List<Job> jobs, long startedAt) {
		List<Job> byStart = new ArrayList<>(jobs);
		byStart.sort(Comparator.comparingLong(Job::start));
		List<String> regressions = new ArrayList<>();
		Job highest = null;
		for (Job job : byStart) {
			if (job.fencingToken() == null) {
				continue;
			}
			if (highest != null && job.fencingToken() < highest.fencingToken()) {
				regressions.add(String.format("%s: %s's job began at %.3f s with fencing token %d, after %s's began at "
						+ "%.3f s with %d", election, job.process(), (job.start() - startedAt) / 1e9, job.fencingToken(),
						highest.process(), (highest.start() - startedAt) / 1e9, highest.fencingToken()));
			}
			else if (highest == null || job.fencingToken() > highest.fencingToken()) {
				highest = job;
			}
		}
		return regressions;
	}

	/** Terms whose fencing token is not above the one before. */
	private static int tokenRegressions(List<Term> terms) {
		int regressions = 0;
		for (int i = 1; i < terms.size(); i++) {
			if (terms.get(i).fencingToken <= terms.get(i - 1).fencingToken) {
				regressions++;
			}
		}
		return regressions;
	}

	/**
	 * The term a job ran in: of its process's terms in its election, the first that had not
	 * ended when the job was about to read the gate and had begun before the job ended;
	 * {@code null} if none.
	 */
	private static Term termOf(Map<String, List<Term>> byProcessAndElection, Span job, String election) {
		for (Term term : byProcessAndElection.getOrDefault(job.owner() + " in " + election, List.of())) {
			if (term.openedAt - job.end() > 0) {
				return null;
			}
			if (term.closedAt == null || term.closedAt - (job.start() - GATE_READ_TOLERANCE) >= 0) {
				return term;
			}
		}
		return null;
	}

	/**
	 * A job of the releasing replica's process that had begun and not ended when the release
	 * was stored, described; {@code null} if none.
	 */
	private String jobRunningAt(LeaseWrite release, SpansByStart steps, SpansByStart opaqueJobs, long runStartedAt) {
		Predicate<Span> ofWriter = (span) -> release.writer.equals(this.replicaOfProcess.get(span.owner()));
		Span step = steps.runningAt(release.at, ofWriter);
		if (step != null) {
			return step.owner() + "'s cooperative step " + step.describeTimes(runStartedAt) + " ran";
		}
		Span job = opaqueJobs.runningAt(release.at, ofWriter);
		return (job != null) ? job.owner() + "'s opaque job " + job.describeTimes(runStartedAt) + " ran" : null;
	}

	private static String describeJobOverlap(Overlaps.Overlap overlap, Term earlier, long startedAt) {
		String ended = (earlier == null) ? "outside any term"
				: (earlier.closedAt == null) ? "in a term still open" : "in a term ended by " + earlier.closedBecause;
		return overlap.describe(startedAt) + " (the earlier job ran " + ended + ")";
	}

	private FaultStats statsOfFaultInEffect(Map<FaultKind, FaultStats> stats, long at) {
		InjectedFault fault = faultInEffectAt(at);
		return (fault != null) ? stats.get(fault.kind) : null;
	}

	/** The latest fault injected, or step of a fault taken, by the moment; {@code null} if none. */
	private InjectedFault faultInEffectAt(long at) {
		InjectedFault inEffect = null;
		for (InjectedFault fault : this.faults) {
			if (fault.at <= at) {
				inEffect = fault;
			}
		}
		for (FaultStep step : this.faultSteps) {
			if (step.at <= at && (inEffect == null || step.at > inEffect.at)) {
				inEffect = step.asFault();
			}
		}
		return inEffect;
	}

	/** Spans sorted by start, to find those running at a given moment. */
	private static final class SpansByStart {

		private final List<Span> spans;

		/** No span lasted longer, so none that began earlier than this before a moment runs then. */
		private final long longest;

		SpansByStart(List<Span> spans) {
			this.spans = (spans != null) ? new ArrayList<>(spans) : new ArrayList<>();
			this.spans.sort(Comparator.comparingLong(Span::start));
			this.longest = this.spans.stream().mapToLong((span) -> span.end() - span.start()).max().orElse(0);
		}

		/** A span matching the filter that had begun and not ended at the moment; {@code null} if none. */
		Span runningAt(long at, Predicate<Span> filter) {
			for (int i = firstStartingAtOrAfter(at) - 1; i >= 0 && this.spans.get(i).start() >= at - this.longest; i--) {
				Span span = this.spans.get(i);
				if (span.end() > at && filter.test(span)) {
					return span;
				}
			}
			return null;
		}

		private int firstStartingAtOrAfter(long at) {
			int low = 0;
			int high = this.spans.size();
			while (low < high) {
				int middle = (low + high) >>> 1;
				if (this.spans.get(middle).start() < at) {
					low = middle + 1;
				}
				else {
					high = middle;
				}
			}
			return low;
		}

	}

	/** Something a process held from start to end: a term, a cooperative step or an opaque job. */
	record Span(String owner, long start, long end) {

		/** Its start and end in seconds from the start of the run. */
		String describeTimes(long runStartedAt) {
			return String.format("%.3f–%.3f s", (this.start - runStartedAt) / 1e9, (this.end - runStartedAt) / 1e9);
		}

	}

	/**
	 * What an elector must carry over, unchanged, from the version of a Lease it writes on: its
	 * labels and annotations, and the spec fields of coordinated election (KEP-4355), which
	 * others own; and the holder, to tell a release.
	 */
	record LeaseVersion(String holder, Map<String, String> labels, Map<String, String> annotations,
			String preferredHolder, String strategy) {

		LeaseVersion {
			labels = (labels != null) ? Map.copyOf(labels) : Map.of();
			annotations = (annotations != null) ? Map.copyOf(annotations) : Map.of();
		}

		static LeaseVersion of(Lease lease) {
			ObjectMeta metadata = (lease.getMetadata() != null) ? lease.getMetadata() : new ObjectMeta();
			LeaseSpec spec = (lease.getSpec() != null) ? lease.getSpec() : new LeaseSpec();
			// the run a holder names is the holder's own, each holder writing its own over the one before
			Map<String, String> annotations = (metadata.getAnnotations() != null)
					? new HashMap<>(metadata.getAnnotations()) : new HashMap<>();
			annotations.remove(KubernetesLeaseStore.HOLDER_INSTANCE_ANNOTATION);
			return new LeaseVersion(spec.getHolderIdentity(), metadata.getLabels(), annotations,
					spec.getPreferredHolder(), spec.getStrategy());
		}

		boolean hasHolder() {
			return this.holder != null && !this.holder.isEmpty();
		}

		/** The labels and annotations of this version that the later one lacks or changed; {@code null} if none. */
		String editsUndoneBy(LeaseVersion later) {
			List<String> undone = new ArrayList<>();
			undone.addAll(entriesUndone("label", this.labels, later.labels));
			undone.addAll(entriesUndone("annotation", this.annotations, later.annotations));
			return undone.isEmpty() ? null : String.join(", ", undone);
		}

		/** The coordinated-election fields of this version that the later one lacks or changed; {@code null} if none. */
		String coordinationUndoneBy(LeaseVersion later) {
			List<String> undone = new ArrayList<>();
			if (this.preferredHolder != null && !this.preferredHolder.equals(later.preferredHolder)) {
				undone.add("spec.preferredHolder " + this.preferredHolder + " became " + later.preferredHolder);
			}
			if (this.strategy != null && !this.strategy.equals(later.strategy)) {
				undone.add("spec.strategy " + this.strategy + " became " + later.strategy);
			}
			return undone.isEmpty() ? null : String.join(", ", undone);
		}

		private static List<String> entriesUndone(String what, Map<String, String> before, Map<String, String> after) {
			return before.entrySet()
				.stream()
				.filter((entry) -> !Objects.equals(entry.getValue(), after.get(entry.getKey())))
				.map((entry) -> what + " " + entry.getKey() + "=" + entry.getValue() + " became "
						+ after.get(entry.getKey()))
				.sorted()
				.toList();
		}

	}

	/** A version of an election's Lease a replica wrote, and what is wrong with it. */
	private record LeaseWrite(String election, String writer, long at, String what) {

		String describe(long runStartedAt) {
			return String.format("%s: a write by %s at %.3f s: %s", this.election, this.writer,
					(this.at - runStartedAt) / 1e9, this.what);
		}

	}

	/**
	 * A job of leader-only work, from just before its first gate read to the end of its work.
	 * @param fencingToken the token it read as it began; {@code null} when none
	 */
	private record Job(String process, long start, long end, Long fencingToken) {

		Span span() {
			return new Span(this.process, this.start, this.end);
		}

	}

	private record InjectedFault(FaultKind kind, String description, long at, boolean heldWithAnother) {

	}

	/** A step a fault took, e.g. {@code r2 thawed}, of the fault injected as described. */
	private record FaultStep(FaultKind kind, String what, String faultDescription, long at) {

		/** The fault, as what follows the step is laid to. */
		InjectedFault asFault() {
			return new InjectedFault(this.kind, this.what + ", a step of: " + this.faultDescription, this.at, false);
		}

	}

	private record SpreadSample(long at, int spread) {

	}

	/**
	 * Something that happened at a moment, and who did it: a Lease version stored, a request
	 * answered, a term begun or ended, a fault.
	 */
	private record Event(long at, String writer, String what) {

	}

	private static final class Term {

		private final String process;

		private final String election;

		private final Long fencingToken;

		private final long openedAt;

		private Long closedAt;

		private String closedBecause;

		private boolean voluntary;

		private Term(String process, String election, Long fencingToken, long openedAt) {
			this.process = process;
			this.election = election;
			this.fencingToken = fencingToken;
			this.openedAt = openedAt;
		}

		private Span span(long endedAt) {
			return new Span(this.process, this.openedAt, (this.closedAt != null) ? this.closedAt : endedAt);
		}

		private LeaderTimes.TermSpan spanUntil(long endedAt) {
			return new LeaderTimes.TermSpan(this.process, this.openedAt,
					(this.closedAt != null) ? this.closedAt : endedAt, this.closedBecause);
		}

	}

}
