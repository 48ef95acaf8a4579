package io.leaderelection.chaos;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite: five replicas, each in eight elections, on the CRUD API server while faults
 * are injected one at a time (see {@link ChaosRun}). The short run, part of every build, runs
 * this project's elector until 200 transitions. The seed is printed and can be set with
 * {@code -Dchaos.seed}.
 */
@QuietChaosLogging
class LeaderElectionChaosTest {

	private static final long DEFAULT_SEED = 20261121L;

	private static final int REPLICAS = 5;

	private static final int ELECTIONS = 8;

	@Test
	void shortRunNeverOpensTwoGatesAtOnceOver200Transitions() {
		ChaosSettings settings = new ChaosSettings(seed(), REPLICAS, ELECTIONS, 200, Duration.ofMinutes(4));
		ChaosOutcome outcome = new ChaosRun(new EngineElector(), settings).run();
		System.out.println(ChaosReport.markdown(List.of(outcome)));
		assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(200);
		assertNeverTwoLeaders(outcome);
		assertThat(outcome.faults()).as("kinds of fault injected").containsOnlyKeys(FaultKind.values());
	}

	private static void assertNeverTwoLeaders(ChaosOutcome outcome) {
		assertThat(outcome.gateOverlaps().count()).as("gate overlaps: %s", outcome.overlapScenarios()).isZero();
		assertThat(outcome.executionOverlaps().count()).as("leader-only execution overlaps").isZero();
		assertThat(outcome.tokenRegressions()).as("fencing token regressions").isZero();
	}

	private static long seed() {
		return Long.getLong("chaos.seed", DEFAULT_SEED);
	}

}
