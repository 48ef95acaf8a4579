package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.leaderelection.chaos.LeadershipHistory.Span;

/**
 * What one chaos run of one elector showed.
 *
 * @param elector the elector's name
 * @param settings the run's settings
 * @param ran how long faults were injected
 * @param transitions terms of leadership begun after the first one of each election
 * @param faults per kind of fault: how often injected, the unavailability it caused, the
 * overlaps that began while it was the latest fault
 * @param gateOverlaps terms of two candidates open at once in one election
 * @param executionOverlaps leader-only executions of two candidates running at once in one
 * election
 * @param executions how many leader-only executions ran
 * @param tokenRegressions terms whose fencing token was not above the previous term's;
 * {@code null} for an elector without fencing tokens
 * @param overlapScenarios each gate overlap with the fault that preceded it
 */
record ChaosOutcome(String elector, ChaosSettings settings, Duration ran, int transitions,
		Map<FaultKind, FaultStats> faults, Overlaps gateOverlaps, Overlaps executionOverlaps, long executions,
		Integer tokenRegressions, List<String> overlapScenarios) {

	int faultsInjected() {
		return this.faults.values().stream().mapToInt(FaultStats::injected).sum();
	}

	/** The unavailability after every fault that interrupted leadership, whatever its kind. */
	List<Duration> unavailability() {
		return this.faults.values().stream().flatMap((stats) -> stats.unavailability().stream()).toList();
	}

	/** How one kind of fault went. */
	static final class FaultStats {

		private int injected;

		private final List<Duration> unavailability = new ArrayList<>();

		private final Map<String, Integer> interruptedTermsEndedBy = new TreeMap<>();

		private final List<String> overlaps = new ArrayList<>();

		private Duration longestOverlap = Duration.ZERO;

		void countInjection() {
			this.injected++;
		}

		/** The fault interrupted an election: the next term began this long after it. */
		void interrupted(Duration unavailability, String termEndedBy) {
			this.unavailability.add(unavailability);
			this.interruptedTermsEndedBy.merge(termEndedBy, 1, Integer::sum);
		}

		/** A gate overlap began while the fault was the latest one. */
		void overlapped(Duration length, String scenario) {
			this.overlaps.add(scenario);
			this.longestOverlap = (length.compareTo(this.longestOverlap) > 0) ? length : this.longestOverlap;
		}

		int injected() {
			return this.injected;
		}

		/** Per interrupted election: from the fault to the next gate open. */
		List<Duration> unavailability() {
			return this.unavailability;
		}

		/** Why the terms it interrupted ended, e.g. {@code RENEW_DEADLINE_PASSED}, and how often. */
		Map<String, Integer> interruptedTermsEndedBy() {
			return this.interruptedTermsEndedBy;
		}

		/** The gate overlaps that began while it was the latest fault. */
		List<String> overlaps() {
			return this.overlaps;
		}

		Duration longestOverlap() {
			return this.longestOverlap;
		}

	}

	/**
	 * Spans of different replicas that were open at once in one election.
	 *
	 * @param count how many spans began while another replica's was open
	 * @param longest the longest time two spans were open together
	 */
	record Overlaps(int count, Duration longest) {

		static Overlaps of(List<Overlap> overlaps) {
			return new Overlaps(overlaps.size(),
					overlaps.stream().map(Overlap::length).max(Comparator.naturalOrder()).orElse(Duration.ZERO));
		}

		/**
		 * Every span that began while a span of another replica was still open: sweeps the
		 * spans in order of start, keeping the farthest-reaching span and the farthest-reaching
		 * one of any other replica.
		 */
		static List<Overlap> find(String election, List<Span> spans) {
			List<Span> sorted = new ArrayList<>(spans);
			sorted.sort(Comparator.comparingLong(Span::start));
			List<Overlap> overlaps = new ArrayList<>();
			Span farthest = null;
			Span farthestOfAnother = null;
			for (Span span : sorted) {
				Span other = (farthest != null && !farthest.owner().equals(span.owner())) ? farthest
						: farthestOfAnother;
				if (other != null && span.start() < other.end()) {
					long together = Math.min(span.end(), other.end()) - span.start();
					overlaps.add(new Overlap(election, other, span, Duration.ofNanos(together)));
				}
				if (farthest == null || span.end() > farthest.end()) {
					if (farthest != null && !farthest.owner().equals(span.owner())) {
						farthestOfAnother = farthest;
					}
					farthest = span;
				}
				else if (!farthest.owner().equals(span.owner())
						&& (farthestOfAnother == null || span.end() > farthestOfAnother.end())) {
					farthestOfAnother = span;
				}
			}
			return overlaps;
		}

		/** A span that began while another replica's was open. */
		record Overlap(String election, Span open, Span began, Duration length) {

			long at() {
				return this.began.start();
			}

			String describe(long runStartedAt) {
				return String.format("%s: %s began at %.3f s while %s was open, together %d ms", this.election,
						this.began.owner(), (this.began.start() - runStartedAt) / 1e9, this.open.owner(),
						this.length.toMillis());
			}

		}

	}

}
