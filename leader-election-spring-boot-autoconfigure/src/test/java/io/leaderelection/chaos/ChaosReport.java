package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.leaderelection.chaos.ChaosOutcome.FaultStats;

/** Chaos outcomes as Markdown tables, side by side per elector. */
final class ChaosReport {

	/** Gate overlaps listed per elector and kind of fault; the counts cover them all. */
	private static final int EXAMPLES = 3;

	private ChaosReport() {
	}

	static String markdown(List<ChaosOutcome> outcomes) {
		ChaosSettings settings = outcomes.get(0).settings();
		StringBuilder report = new StringBuilder();
		report.append(String.format("Seed %d; %d replicas, each campaigning in %d elections (one Lease each); "
				+ "lease %d ms, renew deadline %d ms, retry %d ms.%n%n", settings.seed(), settings.replicas(),
				settings.elections(), ChaosSettings.LEASE_DURATION.toMillis(),
				ChaosSettings.RENEW_DEADLINE.toMillis(), ChaosSettings.RETRY_PERIOD.toMillis()));
		report.append("| elector | ran | faults | transitions | gate overlaps (count, longest) "
				+ "| leader-only execution overlaps (count, longest) of executions "
				+ "| fencing token regressions | unavailability p50 / p99 / max (interruptions) |\n");
		report.append("|---|---|---|---|---|---|---|---|\n");
		for (ChaosOutcome outcome : outcomes) {
			report.append(String.format("| %s | %d s | %d | %d | %s | %s of %d | %s | %s |%n", outcome.elector(),
					outcome.ran().toSeconds(), outcome.faultsInjected(), outcome.transitions(),
					overlaps(outcome.gateOverlaps().count(), outcome.gateOverlaps().longest()),
					overlaps(outcome.executionOverlaps().count(), outcome.executionOverlaps().longest()),
					outcome.executions(),
					(outcome.tokenRegressions() != null) ? outcome.tokenRegressions() : "n/a (no token)",
					distribution(outcome.unavailability())));
		}
		report.append("\nBy kind of fault. Unavailability: from the fault to the next gate open, for each election "
				+ "whose term open at the fault ended before the next fault; how those terms ended.\n\n");
		report.append("| fault | elector | injected | gate overlaps after it (count, longest) "
				+ "| unavailability p50 / p99 / max (interruptions) | interrupted terms ended by |\n");
		report.append("|---|---|---|---|---|---|\n");
		for (FaultKind kind : FaultKind.values()) {
			for (ChaosOutcome outcome : outcomes) {
				FaultStats stats = outcome.faults().get(kind);
				if (stats != null) {
					report.append(String.format("| %s | %s | %d | %s | %s | %s |%n", kind.label(), outcome.elector(),
							stats.injected(), overlaps(stats.overlaps().size(), stats.longestOverlap()),
							distribution(stats.unavailability()), endings(stats.interruptedTermsEndedBy())));
				}
			}
		}
		for (ChaosOutcome outcome : outcomes) {
			if (outcome.gateOverlaps().count() > 0) {
				report.append(String.format("%nGate overlaps of %s, the first %d after each kind of fault:%n%n",
						outcome.elector(), EXAMPLES));
				outcome.faults().forEach((kind, stats) -> stats.overlaps()
					.stream()
					.limit(EXAMPLES)
					.forEach((scenario) -> report.append("- ").append(scenario).append('\n')));
			}
		}
		return report.toString();
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
	private static Duration percentile(List<Duration> sorted, double fraction) {
		int rank = (int) Math.ceil(fraction * sorted.size());
		return sorted.get(Math.max(0, rank - 1));
	}

	private static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis < 10_000) ? millis + " ms" : String.format("%.1f s", millis / 1000.0);
	}

}
