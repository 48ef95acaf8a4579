package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.leaderelection.chaos.ChaosOutcome.FaultStats;
import io.leaderelection.chaos.ChaosOutcome.Overlaps;

/** Chaos outcomes as Markdown tables, side by side per elector. */
final class ChaosReport {

	/** Overlap scenarios listed per elector; the count covers them all. */
	private static final int SCENARIOS_LISTED = 25;

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
					overlaps(outcome.gateOverlaps()), overlaps(outcome.executionOverlaps()), outcome.executions(),
					(outcome.tokenRegressions() != null) ? outcome.tokenRegressions() : "n/a (no token)",
					distribution(outcome.unavailability())));
		}
		report.append("\nBy kind of fault (unavailability: from the fault to the next gate open, for each "
				+ "election whose leader lost its term before the next fault):\n\n");
		report.append("| fault | elector | injected | gate overlaps after it | unavailability p50 / p99 / max "
				+ "(interruptions) |\n");
		report.append("|---|---|---|---|---|\n");
		for (FaultKind kind : FaultKind.values()) {
			for (ChaosOutcome outcome : outcomes) {
				FaultStats stats = outcome.faults().get(kind);
				if (stats != null) {
					report.append(String.format("| %s | %s | %d | %d | %s |%n", kind.label(), outcome.elector(),
							stats.injected(), stats.overlaps(), distribution(stats.unavailability())));
				}
			}
		}
		for (ChaosOutcome outcome : outcomes) {
			List<String> scenarios = outcome.overlapScenarios();
			if (!scenarios.isEmpty()) {
				report.append(String.format("%nGate overlaps of %s (%d; the first %d):%n%n", outcome.elector(),
						scenarios.size(), Math.min(scenarios.size(), SCENARIOS_LISTED)));
				scenarios.stream().limit(SCENARIOS_LISTED).forEach((scenario) -> report.append("- ")
					.append(scenario)
					.append('\n'));
			}
		}
		return report.toString();
	}

	private static String overlaps(Overlaps overlaps) {
		return (overlaps.count() == 0) ? "0" : overlaps.count() + ", " + format(overlaps.longest());
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
