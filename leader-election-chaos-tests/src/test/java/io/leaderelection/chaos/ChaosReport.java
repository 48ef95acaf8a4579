package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.leaderelection.chaos.ChaosOutcome.FaultStats;
import io.leaderelection.chaos.ChaosOutcome.LeaderWork;
import io.leaderelection.chaos.ChaosOutcome.LeaseWrites;
import io.leaderelection.chaos.ChaosOutcome.Overlaps;

/** Chaos outcomes as Markdown tables, side by side per elector. */
final class ChaosReport {

	private ChaosReport() {
	}

	static String markdown(List<ChaosOutcome> outcomes) {
		ChaosSettings settings = outcomes.get(0).settings();
		StringBuilder report = new StringBuilder();
		String campaigning = settings.balancedShards()
				? String.format("%d replicas (and up to %d more joining), each campaigning in the %d shards of one "
						+ "election, balanced (one Lease each, and one member Lease per replica)", settings.replicas(),
						settings.spareReplicas(), settings.elections())
				: String.format("%d replicas, each campaigning in %d elections (one Lease each)", settings.replicas(),
						settings.elections());
		report.append(String.format("Seed %d; %s; "
				+ "lease %d ms, renew deadline %d ms, retry %d ms, drain timeout %d ms; leader-only jobs of %d to "
				+ "%d ms, half cooperative, half opaque.%n%n", settings.seed(), campaigning,
				ChaosSettings.LEASE_DURATION.toMillis(),
				ChaosSettings.RENEW_DEADLINE.toMillis(), ChaosSettings.RETRY_PERIOD.toMillis(),
				ChaosSettings.DRAIN_TIMEOUT.toMillis(), LeaderOnlyWorkload.SHORTEST_JOB_MILLIS,
				LeaderOnlyWorkload.LONGEST_JOB_MILLIS));
		report.append("| elector | ran | faults (held with another) | transitions | gate overlaps (count, longest) "
				+ "| fencing token regressions | unavailability p50 / p99 / max (interruptions) |\n");
		report.append("|---|---|---|---|---|---|---|\n");
		for (ChaosOutcome outcome : outcomes) {
			report.append(String.format("| %s | %d s | %d (%d) | %d | %s | %s | %s |%n", outcome.elector(),
					outcome.ran().toSeconds(), outcome.faultsInjected(), outcome.faultsHeldTogether(),
					outcome.transitions(), overlaps(outcome.gateOverlaps()), orNoToken(outcome.tokenRegressions()),
					distribution(outcome.unavailability())));
		}
		leaderTime(report, outcomes);
		report.append("\nLeader-only jobs and the Leases. Opaque jobs overlapping are told apart by how the earlier "
				+ "job's term ended: given up (step-down, yield, graceful stop, preferred holder) or lost; fence "
				+ "violations are overlaps after a loss whose later job's fencing token was not higher. A release "
				+ "while a job ran is a release a replica wrote while a job of its process still ran in that "
				+ "election. Reverted edits and cleared preferredHolder count elector writes that dropped or "
				+ "changed labels, annotations, `spec.preferredHolder` or `spec.strategy` of the version they "
				+ "replaced.\n\n");
		report.append("| elector | cooperative step overlaps (count, longest) of steps "
				+ "| opaque job overlaps after a voluntary end | after a loss (count, longest) of opaque jobs "
				+ "| fence violations | releases while a job ran | reverted foreign edits "
				+ "| cleared preferredHolder or strategy |\n");
		report.append("|---|---|---|---|---|---|---|---|\n");
		for (ChaosOutcome outcome : outcomes) {
			LeaderWork work = outcome.work();
			LeaseWrites writes = outcome.leaseWrites();
			report.append(String.format("| %s | %s of %d | %s | %s of %d | %s | %d | %d | %d |%n", outcome.elector(),
					overlaps(work.stepOverlaps()), work.steps(), overlaps(work.opaqueOverlapsAfterVoluntaryEnd()),
					overlaps(work.opaqueOverlapsAfterLoss()), work.opaqueJobs(),
					(work.fenceViolations() != null) ? work.fenceViolations().count() : "n/a (no token)",
					work.releasesDuringJobs().count(), writes.revertedForeignEdits().count(),
					writes.clearedPreferredHolders().count()));
		}
		report.append("\nBy kind of fault. Overlaps after a fault: those that began while it was the latest fault. "
				+ "Unavailability: from the fault to the next gate open, for each election whose term open at the "
				+ "fault ended before the next fault; how those terms ended.\n\n");
		report.append("| fault | elector | injected | gate overlaps after it (count, longest) "
				+ "| opaque job overlaps after it (voluntary end, loss) "
				+ "| unavailability p50 / p99 / max (interruptions) | interrupted terms ended by |\n");
		report.append("|---|---|---|---|---|---|---|\n");
		for (FaultKind kind : FaultKind.values()) {
			for (ChaosOutcome outcome : outcomes) {
				FaultStats stats = outcome.faults().get(kind);
				if (stats != null) {
					report.append(String.format("| %s | %s | %d | %s | %d, %d | %s | %s |%n", kind.label(),
							outcome.elector(), stats.injected(), overlaps(stats.overlaps().size(), stats.longestOverlap()),
							stats.opaqueOverlapsAfterVoluntaryEnd(), stats.opaqueOverlapsAfterLoss(),
							distribution(stats.unavailability()), endings(stats.interruptedTermsEndedBy())));
				}
			}
		}
		if (settings.balancedShards()) {
			shards(report, outcomes);
		}
		for (ChaosOutcome outcome : outcomes) {
			if (outcome.gateOverlaps().count() > 0) {
				report.append(String.format("%nGate overlaps of %s, the first %d after each kind of fault:%n%n",
						outcome.elector(), ChaosOutcome.EXAMPLES));
				outcome.faults().forEach((kind, stats) -> stats.overlaps()
					.stream()
					.limit(ChaosOutcome.EXAMPLES)
					.forEach((scenario) -> report.append("- ").append(scenario).append('\n')));
				report.append(String.format("%nThe first %d gate overlaps of %s in their election's timeline (terms "
						+ "as the processes reported them, Lease versions as the API server stored them, the other "
						+ "requests it answered about the Lease, faults):%n%n",
						outcome.overlapTimelines().size(), outcome.elector()));
				outcome.overlapTimelines().forEach((timeline) -> report.append("- ").append(timeline).append('\n'));
			}
			examples(report, outcome, "overlapping leader-only jobs", outcome.work().jobOverlaps().examples());
			if (outcome.work().jobTokenRegressions() != null) {
				examples(report, outcome, "jobs that began with a lower fencing token",
						outcome.work().jobTokenRegressions().examples());
			}
			examples(report, outcome, "cooperative step overlaps", outcome.work().stepOverlaps().examples());
			examples(report, outcome, "opaque job overlaps after a voluntary end",
					outcome.work().opaqueOverlapsAfterVoluntaryEnd().examples());
			examples(report, outcome, "opaque job overlaps after a loss",
					outcome.work().opaqueOverlapsAfterLoss().examples());
			if (outcome.work().fenceViolations() != null) {
				examples(report, outcome, "fence violations", outcome.work().fenceViolations().examples());
			}
			examples(report, outcome, "releases while a job ran", outcome.work().releasesDuringJobs().examples());
			examples(report, outcome, "reverted foreign edits",
					outcome.leaseWrites().revertedForeignEdits().examples());
			examples(report, outcome, "cleared preferredHolder or strategy",
					outcome.leaseWrites().clearedPreferredHolders().examples());
		}
		return report.toString();
	}

	/**
	 * Two runs of leader-only work at once, jobs beginning with a lower fencing token than one
	 * before, the time with two gates open and the time without a leader, side by side; then the
	 * time without a leader by how the term before it ended and by what the Lease showed, one row
	 * per cause, one column per elector.
	 */
	private static void leaderTime(StringBuilder report, List<ChaosOutcome> outcomes) {
		report.append("\nLeader-only work and leaders over time. Overlapping jobs: jobs of leader-only work of two "
				+ "processes of one election running at once, whatever their kind and however the earlier one's "
				+ "term ended, each job taken whole (a cooperative one from its first gate read to its last step), "
				+ "on the JVM's monotonic clock. Lower fencing token: jobs that began with a fencing token lower "
				+ "than a job of their election that began before them. Time with two gates open, and without a "
				+ "leader (no gate open): per election from its first grant to the end of the run, summed over the "
				+ "elections.\n\n");
		report.append("| elector | jobs | overlapping jobs (count, longest) | jobs with a lower fencing token "
				+ "| time with two gates open | time without a leader (stretches, longest) |\n");
		report.append("|---|---|---|---|---|---|\n");
		for (ChaosOutcome outcome : outcomes) {
			LeaderWork work = outcome.work();
			ChaosOutcome.LeaderTime time = outcome.leaderTime();
			report.append(String.format("| %s | %d | %s | %s | %s (%s) | %s of %s (%d, %s) |%n", outcome.elector(),
					work.jobs(), overlaps(work.jobOverlaps()),
					(work.jobTokenRegressions() != null) ? String.valueOf(work.jobTokenRegressions().count())
							: "n/a (no token)",
					format(time.twoGatesOpen()), percent(time.share(time.twoGatesOpen())),
					percent(time.share(time.withoutLeader())), format(time.observed()), time.gaps(),
					format(time.longestGap())));
		}
		report.append("\nTime without a leader, by how the term before it ended, and by what the Lease showed "
				+ "meanwhile, as the API server stored it: missing, without holder, held by a process that had "
				+ "ended, held by a holder that wrote it again within the stretch with its gate closed (its "
				+ "renewals land, too late to keep its gate open; or it drains after a step-down), held and not "
				+ "written again (its holder cut off, frozen or failing: until it expires or is taken), or claimed "
				+ "by the next leader whose gate is about to open. Shares of the time looked at.\n\n");
		report.append("| time without a leader |");
		outcomes.forEach((outcome) -> report.append(' ').append(outcome.elector()).append(" |"));
		report.append('\n').append("|---|").append("---|".repeat(outcomes.size())).append('\n');
		causes(report, outcomes, "after a term ended by ", ChaosOutcome.LeaderTime::withoutLeaderAfter);
		causes(report, outcomes, "while ", ChaosOutcome.LeaderTime::withoutLeaderWhile);
	}

	/** One row per cause any outcome has, the largest first, with each outcome's share of the time. */
	private static void causes(StringBuilder report, List<ChaosOutcome> outcomes, String prefix,
			Function<ChaosOutcome.LeaderTime, Map<String, Duration>> byCause) {
		Map<String, Duration> total = new TreeMap<>();
		outcomes.forEach((outcome) -> byCause.apply(outcome.leaderTime()).forEach((cause, time) -> total.merge(cause,
				time, Duration::plus)));
		total.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Duration>comparingByValue().reversed())
			.forEach((cause) -> {
				report.append("| ").append(prefix).append(cause.getKey()).append(" |");
				for (ChaosOutcome outcome : outcomes) {
					Duration time = byCause.apply(outcome.leaderTime()).get(cause.getKey());
					report.append(' ')
						.append((time != null) ? percent(outcome.leaderTime().share(time)) + " (" + format(time) + ")"
								: "–")
						.append(" |");
				}
				report.append('\n');
			});
	}

	private static String percent(double share) {
		return String.format("%.1f %%", share * 100);
	}

	/**
	 * For balanced shards: every check shard by shard, with the shard's transitions and
	 * hand-overs, then how evenly the live replicas held the shards, per fault window.
	 */
	private static void shards(StringBuilder report, List<ChaosOutcome> outcomes) {
		report.append("\nShard by shard. Grants: terms begun, the first one included; transitions: those after the "
				+ "first. Handed over: terms ended to balance the group (`HANDED_OVER`). Overlapping leader-only "
				+ "work: cooperative steps of two processes at once, opaque jobs of two processes at once after a "
				+ "voluntary end (a hand-over is one), and after a loss, with the fence violations among those.\n\n");
		report.append("| shard | elector | grants | transitions | handed over | gate overlaps "
				+ "| fencing token regressions | cooperative step overlaps "
				+ "| opaque job overlaps after a voluntary end | after a loss | fence violations |\n");
		report.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (ChaosOutcome outcome : outcomes) {
			outcome.elections().forEach((shard, counts) -> report.append(String.format(
					"| %s | %s | %d | %d | %d | %d | %s | %d | %d | %d | %s |%n", shard, outcome.elector(),
					counts.grants(), counts.transitions(), counts.handedOver(), counts.gateOverlaps(),
					orNoToken(counts.tokenRegressions()), counts.stepOverlaps(),
					counts.opaqueOverlapsAfterVoluntaryEnd(), counts.opaqueOverlapsAfterLoss(),
					orNoToken(counts.fenceViolations()))));
		}
		report.append("\nSpread of the shards over the live replicas (the processes running): the most shards one "
				+ "held less the fewest, sampled as the run went (every hold tick of a fault, while waiting for "
				+ "leaders, and before each fault). Per fault window, from a fault to the next one: the spread at "
				+ "its end, just before the next fault, and the highest in it. Informative, not a pass criterion.\n\n");
		report.append("| fault | elector | windows | spread at the window's end p50 / p99 / max "
				+ "| at the end: how many windows each | highest in the window p50 / p99 / max |\n");
		report.append("|---|---|---|---|---|---|\n");
		for (ChaosOutcome outcome : outcomes) {
			ChaosOutcome.Spread spread = outcome.spread();
			if (spread == null) {
				continue;
			}
			report.append(String.format("| every fault (%d samples) | %s | %d | %s | %s | %s |%n", spread.samples(),
					outcome.elector(), spread.atWindowEnd().size(), spreadDistribution(spread.atWindowEnd()),
					spreadCounts(spread.atWindowEnd()), spreadDistribution(spread.highestInWindow())));
			outcome.faults().forEach((kind, stats) -> {
				if (!stats.spreadAtWindowEnd().isEmpty()) {
					report.append(String.format("| %s | %s | %d | %s | %s | %s |%n", kind.label(), outcome.elector(),
							stats.spreadAtWindowEnd().size(), spreadDistribution(stats.spreadAtWindowEnd()),
							spreadCounts(stats.spreadAtWindowEnd()),
							spreadDistribution(stats.highestSpreadInWindow())));
				}
			});
		}
	}

	private static String spreadDistribution(List<Integer> spreads) {
		if (spreads.isEmpty()) {
			return "–";
		}
		List<Integer> sorted = new ArrayList<>(spreads);
		sorted.sort(null);
		return String.format("%d / %d / %d", percentile(sorted, 0.50), percentile(sorted, 0.99),
				sorted.get(sorted.size() - 1));
	}

	/** How many windows ended with each spread, e.g. {@code 0: 12, 1: 30, 2: 4}. */
	private static String spreadCounts(List<Integer> spreads) {
		return spreads.stream()
			.collect(Collectors.groupingBy((spread) -> spread, TreeMap::new, Collectors.counting()))
			.entrySet()
			.stream()
			.map((count) -> count.getKey() + ": " + count.getValue())
			.collect(Collectors.joining(", "));
	}

	private static void examples(StringBuilder report, ChaosOutcome outcome, String what, List<String> examples) {
		if (!examples.isEmpty()) {
			report.append(String.format("%nThe first %s of %s:%n%n", what, outcome.elector()));
			examples.forEach((example) -> report.append("- ").append(example).append('\n'));
		}
	}

	private static String overlaps(Overlaps overlaps) {
		return overlaps(overlaps.count(), overlaps.longest());
	}

	private static String orNoToken(Integer count) {
		return (count != null) ? String.valueOf(count) : "n/a (no token)";
	}

	private static String overlaps(int count, Duration longest) {
		return (count == 0) ? "0" : count + ", " + format(longest);
	}

	private static String endings(Map<String, Integer> endings) {
		return endings.isEmpty() ? "–"
				: endings.entrySet()
					.stream()
					.map((ending) -> ending.getKey() + " " + ending.getValue())
					.collect(Collectors.joining(", "));
	}

	private static String distribution(Collection<Duration> samples) {
		if (samples.isEmpty()) {
			return "– (0)";
		}
		List<Duration> sorted = new ArrayList<>(samples);
		sorted.sort(null);
		return String.format("%s / %s / %s (%d)", format(percentile(sorted, 0.50)), format(percentile(sorted, 0.99)),
				format(sorted.get(sorted.size() - 1)), sorted.size());
	}

	/** The nearest-rank percentile. */
	private static <T> T percentile(List<T> sorted, double fraction) {
		int rank = (int) Math.ceil(fraction * sorted.size());
		return sorted.get(Math.max(0, rank - 1));
	}

	private static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis < 10_000) ? millis + " ms" : String.format("%.1f s", millis / 1000.0);
	}

}
