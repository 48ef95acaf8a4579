package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

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
 * @param faultsHeldTogether how many faults were injected while another one was held
 * @param gateOverlaps terms of two processes open at once in one election
 * @param tokenRegressions terms whose fencing token was not above the previous term's;
 * {@code null} for an elector without fencing tokens
 * @param work how the leader-only jobs went
 * @param leaderTime how much of the time the elections had no leader, and two
 * @param leaseWrites what the electors' writes did to what others wrote in the Leases
 * @param overlapScenarios each gate overlap with the fault that preceded it
 * @param overlapTimelines the first {@value #EXAMPLES} gate overlaps, each with what happened in
 * its election around it: terms, Lease versions stored and deleted, faults
 * @param elections the same counts, election by election (shard by shard), by name
 * @param spread for balanced shards, how evenly the live replicas held them, per fault window;
 * {@code null} when it was not sampled
 */
record ChaosOutcome(String elector, ChaosSettings settings, Duration ran, int transitions,
		Map<FaultKind, FaultStats> faults, int faultsHeldTogether, Overlaps gateOverlaps, Integer tokenRegressions,
		LeaderWork work, LeaderTime leaderTime, LeaseWrites leaseWrites, List<String> overlapScenarios,
		List<String> overlapTimelines, Map<String, ElectionCounts> elections, Spread spread) {

	/** How many failures of each check are described. */
	static final int EXAMPLES = 3;

	int faultsInjected() {
		return this.faults.values().stream().mapToInt(FaultStats::injected).sum();
	}

	/** The unavailability after every fault that interrupted leadership, whatever its kind. */
	List<Duration> unavailability() {
		return this.faults.values().stream().flatMap((stats) -> stats.unavailability().stream()).toList();
	}

	/**
	 * How the leader-only jobs went. Overlapping opaque jobs are told apart by how the term of
	 * the earlier one ended: given up (step-down, yield, graceful stop, preferred holder), when a
	 * release must wait for the job, or lost (renew deadline passed, Lease deleted or taken,
	 * process killed), when the job runs on unknowing, which is what fencing tokens are for.
	 *
	 * @param steps how many steps of cooperative jobs ran
	 * @param stepOverlaps steps of two processes running at once in one election
	 * @param opaqueJobs how many opaque jobs ran
	 * @param opaqueOverlapsAfterVoluntaryEnd opaque jobs of two processes running at once, the
	 * earlier one's term given up
	 * @param opaqueOverlapsAfterLoss opaque jobs of two processes running at once, the earlier
	 * one's term lost
	 * @param fenceViolations of the overlaps after a loss, those whose later job's fencing token
	 * was not above the earlier one's; {@code null} for an elector without fencing tokens
	 * @param releasesDuringJobs releases a replica wrote while a job of its process still ran
	 * in that election
	 * @param jobs how many jobs ran, cooperative and opaque, each as a whole (a cooperative one
	 * from its first gate read to its last step)
	 * @param jobOverlaps jobs of two processes running at once in one election, whatever their
	 * kind and however the earlier one's term ended: two runs of leader-only work at once
	 * @param jobTokenRegressions jobs that began with a fencing token lower than a job of their
	 * election that began before them; {@code null} for an elector without fencing tokens
	 */
	record LeaderWork(long steps, Overlaps stepOverlaps, long opaqueJobs, Overlaps opaqueOverlapsAfterVoluntaryEnd,
			Overlaps opaqueOverlapsAfterLoss, Violations fenceViolations, Violations releasesDuringJobs, long jobs,
			Overlaps jobOverlaps, Violations jobTokenRegressions) {

	}

	/**
	 * How the time of the elections went, summed over them, each from its first grant to the end
	 * of the run (see {@link LeaderTimes}).
	 *
	 * @param observed the time looked at
	 * @param withoutLeader of it, the time no gate of the election was open
	 * @param gaps how many stretches without a leader there were
	 * @param longestGap the longest of them
	 * @param twoGatesOpen the time two gates or more of one election were open at once
	 * @param withoutLeaderAfter the time without a leader by how the term before the stretch
	 * ended, e.g. {@code LEASE_DELETED}
	 * @param withoutLeaderWhile the time without a leader by what the Lease showed meanwhile,
	 * e.g. {@value LeaderTimes#MISSING}
	 */
	record LeaderTime(Duration observed, Duration withoutLeader, int gaps, Duration longestGap, Duration twoGatesOpen,
			Map<String, Duration> withoutLeaderAfter, Map<String, Duration> withoutLeaderWhile) {

		/** The share of the time looked at, from 0 to 1; 0 when none was. */
		double share(Duration part) {
			return this.observed.isZero() ? 0 : (double) part.toNanos() / this.observed.toNanos();
		}

	}

	/**
	 * What happened in one election (one shard): the checks of the run, counted in it alone.
	 *
	 * @param grants terms begun, the first one included
	 * @param transitions terms begun after the first one
	 * @param gateOverlaps terms begun while another process's term was open
	 * @param tokenRegressions terms whose fencing token was not above the previous term's;
	 * {@code null} for an elector without fencing tokens
	 * @param stepOverlaps cooperative steps begun while another process's step ran
	 * @param opaqueOverlapsAfterVoluntaryEnd opaque jobs begun while another process's job of a
	 * term given up ran
	 * @param opaqueOverlapsAfterLoss opaque jobs begun while another process's job of a term lost
	 * ran
	 * @param fenceViolations of those, the ones whose later job's fencing token was not higher;
	 * {@code null} without fencing tokens
	 * @param handedOver terms ended by a hand-over to balance the group ({@code HANDED_OVER})
	 */
	record ElectionCounts(int grants, int transitions, int gateOverlaps, Integer tokenRegressions, int stepOverlaps,
			int opaqueOverlapsAfterVoluntaryEnd, int opaqueOverlapsAfterLoss, Integer fenceViolations,
			int handedOver) {

	}

	/**
	 * How evenly the live replicas (the processes running, a duplicate identity's twin left out)
	 * held the shards of a balanced group: the spread is the most shards any of them held less
	 * the fewest, sampled by the run as it goes. Per fault window, from a fault's injection to
	 * the next one's: the spread at its end, just before the next fault, and the highest sampled
	 * in it.
	 *
	 * @param atWindowEnd the spread at the end of each window
	 * @param highestInWindow the highest spread sampled in each window
	 * @param samples how many samples were taken
	 */
	record Spread(List<Integer> atWindowEnd, List<Integer> highestInWindow, int samples) {

	}

	/**
	 * What the electors' writes did to the parts of the Leases that others own.
	 *
	 * @param revertedForeignEdits writes that dropped or changed a label or annotation of the
	 * version they replaced
	 * @param clearedPreferredHolders writes that dropped or changed {@code spec.preferredHolder}
	 * or {@code spec.strategy} of the version they replaced
	 */
	record LeaseWrites(Violations revertedForeignEdits, Violations clearedPreferredHolders) {

	}

	/**
	 * How often a check failed.
	 *
	 * @param count how many failures
	 * @param examples the first {@value ChaosOutcome#EXAMPLES}, described
	 */
	record Violations(int count, List<String> examples) {

		static Violations of(List<String> violations) {
			return new Violations(violations.size(), violations.stream().limit(EXAMPLES).toList());
		}

	}

	/** How one kind of fault went. */
	static final class FaultStats {

		private int injected;

		private final List<Duration> unavailability = new ArrayList<>();

		private final Map<String, Integer> interruptedTermsEndedBy = new TreeMap<>();

		private final List<String> overlaps = new ArrayList<>();

		private Duration longestOverlap = Duration.ZERO;

		private int opaqueOverlapsAfterVoluntaryEnd;

		private int opaqueOverlapsAfterLoss;

		private final List<Integer> spreadAtWindowEnd = new ArrayList<>();

		private final List<Integer> highestSpreadInWindow = new ArrayList<>();

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

		/** An overlap of opaque jobs began while the fault was the latest one. */
		void opaqueJobsOverlapped(boolean afterVoluntaryEnd) {
			if (afterVoluntaryEnd) {
				this.opaqueOverlapsAfterVoluntaryEnd++;
			}
			else {
				this.opaqueOverlapsAfterLoss++;
			}
		}

		/** The spread of balanced shards in a window the fault opened: at its end, and the highest. */
		void spread(int atWindowEnd, int highestInWindow) {
			this.spreadAtWindowEnd.add(atWindowEnd);
			this.highestSpreadInWindow.add(highestInWindow);
		}

		int injected() {
			return this.injected;
		}

		/** The spread of balanced shards at the end of each window this fault opened; empty if not sampled. */
		List<Integer> spreadAtWindowEnd() {
			return this.spreadAtWindowEnd;
		}

		/** The highest spread of balanced shards sampled in each window this fault opened. */
		List<Integer> highestSpreadInWindow() {
			return this.highestSpreadInWindow;
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

		int opaqueOverlapsAfterVoluntaryEnd() {
			return this.opaqueOverlapsAfterVoluntaryEnd;
		}

		int opaqueOverlapsAfterLoss() {
			return this.opaqueOverlapsAfterLoss;
		}

	}

	/**
	 * Spans of different processes that were open at once in one election.
	 *
	 * @param count how many spans began while another process's was open
	 * @param longest the longest time two spans were open together
	 * @param examples the first {@value ChaosOutcome#EXAMPLES}, described
	 */
	record Overlaps(int count, Duration longest, List<String> examples) {

		static Overlaps of(List<Overlap> overlaps, Function<Overlap, String> describe) {
			return new Overlaps(overlaps.size(),
					overlaps.stream().map(Overlap::length).max(Comparator.naturalOrder()).orElse(Duration.ZERO),
					overlaps.stream().sorted(Comparator.comparingLong(Overlap::at)).limit(EXAMPLES).map(describe).toList());
		}

		/**
		 * Every span that began while a span of another process was still open: sweeps the
		 * spans in order of start, keeping the farthest-reaching span and the farthest-reaching
		 * one of any other process.
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

		/** A span that began while another process's was open. */
		record Overlap(String election, Span open, Span began, Duration length) {

			long at() {
				return this.began.start();
			}

			String describe(long runStartedAt) {
				return String.format("%s: %s began at %.3f s while %s was open, together %.1f ms", this.election,
						this.began.owner(), (this.began.start() - runStartedAt) / 1e9, this.open.owner(),
						this.length.toNanos() / 1e6);
			}

		}

	}

}
