package io.leaderelection.simulation;

import java.util.List;
import java.util.Map;

/** What a run of one seed showed. */
record Outcome(long seed, long simulatedNanos, List<Checks.Violation> violations, Trace trace, long events,
		long grants, Map<String, Long> leaderlessByCause, long longestLeaderlessAfterFaults) {

	boolean failed() {
		return !this.violations.isEmpty();
	}

	/** One line that replays the seed, and the timeline around its first violation. */
	String report() {
		Checks.Violation first = this.violations.get(0);
		return "Simulation seed " + this.seed + " failed: " + first.what() + System.lineSeparator()
				+ "Replay: ./mvnw -B -q -pl leader-election-chaos-tests -am test -Dtest=SimulationTests -Dsimulation.seed="
				+ this.seed + " -Dsimulation.seeds=1 -Dsurefire.failIfNoSpecifiedTests=false" + System.lineSeparator()
				+ "Timeline around " + Checks.millis(first.at()) + ":" + System.lineSeparator()
				+ this.trace.around(first.at(), 2_000_000_000L);
	}

}
