package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.leaderelection.chaos.ChaosOutcome.FaultStats;
import io.leaderelection.chaos.ChaosOutcome.Overlaps;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.RevocationCause;

/**
 * Everything that happened in a chaos run, on the JVM's monotonic clock that every replica
 * shares: each term of leadership (gate open to gate closed), each leader-only execution and
 * each injected fault. From it, {@link #outcome} finds overlaps, fencing token regressions and
 * the unavailability after each fault.
 */
final class LeadershipHistory {

	private final List<Term> terms = new ArrayList<>();

	private final Map<String, List<Span>> executions = new LinkedHashMap<>();

	private final List<InjectedFault> faults = new ArrayList<>();

	private final Set<String> electionsEverLed = new HashSet<>();

	private int transitions;

	/** Records the terms of one of our engines, with the gate times the engine reports. */
	ElectionListener recorder(String identity) {
		return new ElectionListener() {

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				opened(identity, election, fencingToken, gateOpenedAt);
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				closed(identity, election, gateClosedAt, cause.name());
			}

		};
	}

	/** A term began: the candidate may run leader-only work from this moment. */
	synchronized void opened(String identity, String election, Long fencingToken, long at) {
		if (!this.electionsEverLed.add(election)) {
			this.transitions++;
		}
		this.terms.add(new Term(identity, election, fencingToken, at));
	}

	/** The candidate's term in the election, if open, ended at the given moment, for the given reason. */
	synchronized void closed(String identity, String election, long at, String reason) {
		for (int i = this.terms.size() - 1; i >= 0; i--) {
			Term term = this.terms.get(i);
			if (term.identity.equals(identity) && term.election.equals(election) && term.closedAt == null) {
				term.closedAt = at;
				term.closedBecause = reason;
				return;
			}
		}
	}

	synchronized void executed(String identity, String election, long start, long end) {
		this.executions.computeIfAbsent(election, (key) -> new ArrayList<>()).add(new Span(identity, start, end));
	}

	synchronized void faultInjected(FaultKind kind, String description, long at) {
		this.faults.add(new InjectedFault(kind, description, at));
	}

	/** Terms begun after the first one of each election. */
	synchronized int transitions() {
		return this.transitions;
	}

	/** What the run shows, counting terms still open as open until the run ended. */
	synchronized ChaosOutcome outcome(String elector, ChaosSettings settings, long startedAt, long endedAt) {
		Map<String, List<Term>> byElection = new LinkedHashMap<>();
		for (Term term : this.terms) {
			byElection.computeIfAbsent(term.election, (key) -> new ArrayList<>()).add(term);
		}
		byElection.values().forEach((terms) -> terms.sort(Comparator.comparingLong((Term term) -> term.openedAt)));
		List<Overlaps.Overlap> gateOverlaps = new ArrayList<>();
		List<Overlaps.Overlap> executionOverlaps = new ArrayList<>();
		Integer tokenRegressions = 0;
		for (Map.Entry<String, List<Term>> election : byElection.entrySet()) {
			List<Span> gates = election.getValue().stream().map((term) -> term.span(endedAt)).toList();
			gateOverlaps.addAll(Overlaps.find(election.getKey(), gates));
			executionOverlaps
				.addAll(Overlaps.find(election.getKey(), this.executions.getOrDefault(election.getKey(), List.of())));
			Integer regressions = tokenRegressions(election.getValue());
			tokenRegressions = (tokenRegressions == null || regressions == null) ? null
					: tokenRegressions + regressions;
		}
		Map<FaultKind, FaultStats> faults = new EnumMap<>(FaultKind.class);
		for (int i = 0; i < this.faults.size(); i++) {
			InjectedFault fault = this.faults.get(i);
			long windowEnd = (i + 1 < this.faults.size()) ? this.faults.get(i + 1).at : endedAt;
			FaultStats stats = faults.computeIfAbsent(fault.kind, (kind) -> new FaultStats());
			stats.countInjection();
			for (List<Term> terms : byElection.values()) {
				interrupt(stats, terms, fault.at, windowEnd, endedAt);
			}
		}
		List<String> scenarios = new ArrayList<>();
		for (Overlaps.Overlap overlap : gateOverlaps) {
			InjectedFault cause = faultInEffectAt(overlap.at());
			String scenario = overlap.describe(startedAt) + " after "
					+ ((cause != null) ? cause.kind.label() + " (" + cause.description + ")" : "the start");
			if (cause != null) {
				faults.get(cause.kind).overlapped(overlap.length(), scenario);
			}
			scenarios.add(scenario);
		}
		long executionCount = this.executions.values().stream().mapToLong(List::size).sum();
		return new ChaosOutcome(elector, settings, Duration.ofNanos(endedAt - startedAt), this.transitions, faults,
				Overlaps.of(gateOverlaps), Overlaps.of(executionOverlaps), executionCount, tokenRegressions,
				scenarios);
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

	/** Terms whose fencing token is not above the one before; {@code null} without tokens. */
	private static Integer tokenRegressions(List<Term> terms) {
		int regressions = 0;
		for (int i = 0; i < terms.size(); i++) {
			if (terms.get(i).fencingToken == null) {
				return null;
			}
			if (i > 0 && terms.get(i).fencingToken <= terms.get(i - 1).fencingToken) {
				regressions++;
			}
		}
		return regressions;
	}

	private InjectedFault faultInEffectAt(long at) {
		InjectedFault inEffect = null;
		for (InjectedFault fault : this.faults) {
			if (fault.at <= at) {
				inEffect = fault;
			}
		}
		return inEffect;
	}

	/** Something a replica held from start to end: a term, or a leader-only execution. */
	record Span(String owner, long start, long end) {

	}

	private record InjectedFault(FaultKind kind, String description, long at) {

	}

	private static final class Term {

		private final String identity;

		private final String election;

		private final Long fencingToken;

		private final long openedAt;

		private Long closedAt;

		private String closedBecause;

		private Term(String identity, String election, Long fencingToken, long openedAt) {
			this.identity = identity;
			this.election = election;
			this.fencingToken = fencingToken;
			this.openedAt = openedAt;
		}

		private Span span(long endedAt) {
			return new Span(this.identity, this.openedAt, (this.closedAt != null) ? this.closedAt : endedAt);
		}

	}

}
