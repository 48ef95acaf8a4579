package io.leaderelection.chaos;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link LeadershipHistory}: the checker that the chaos runs rely on, fed with terms,
 * executions and faults at chosen times (in milliseconds from 0, as nanoseconds).
 */
class LeadershipHistoryTests {

	private static final ChaosSettings SETTINGS = new ChaosSettings(1, 3, 1, 0, Duration.ZERO);

	private final LeadershipHistory history = new LeadershipHistory();

	@Test
	void termsOneAfterAnotherDoNotOverlapAndCountAsTransitions() {
		term("a", 1L, 0, 100);
		term("b", 2L, 100, 250);
		term("a", 3L, 300, 400);
		ChaosOutcome outcome = outcome(500);
		assertThat(outcome.transitions()).isEqualTo(2);
		assertThat(outcome.gateOverlaps().count()).isZero();
		assertThat(outcome.tokenRegressions()).isZero();
	}

	@Test
	void aTermBegunWhileAnotherReplicasIsOpenIsAnOverlapOfTheTimeTheyShare() {
		term("a", 1L, 0, 300);
		term("b", 2L, 200, 400);
		ChaosOutcome outcome = outcome(500);
		assertThat(outcome.gateOverlaps().count()).isEqualTo(1);
		assertThat(outcome.gateOverlaps().longest()).isEqualTo(Duration.ofMillis(100));
		assertThat(outcome.overlapScenarios()).singleElement().asString().startsWith("e0: b began at 0.200 s while a");
	}

	@Test
	void everyTermBegunWhileAnotherReplicasWasOpenCountsOnce() {
		term("a", 1L, 0, 1000);
		term("b", 2L, 100, 1200);
		term("b", 3L, 1300, 1400);
		term("c", 4L, 500, 600);
		ChaosOutcome outcome = outcome(1500);
		assertThat(outcome.gateOverlaps().count()).isEqualTo(2);
		assertThat(outcome.gateOverlaps().longest()).isEqualTo(Duration.ofMillis(900));
	}

	@Test
	void aTermStillOpenAtTheEndCountsAsOpenUntilThen() {
		openTerm("a", 1L, 0);
		term("b", 2L, 400, 500);
		assertThat(outcome(1000).gateOverlaps().count()).isEqualTo(1);
	}

	@Test
	void aFencingTokenNotAboveThePreviousTermsIsARegression() {
		term("a", 5L, 0, 100);
		term("b", 5L, 200, 300);
		term("c", 4L, 400, 500);
		assertThat(outcome(600).tokenRegressions()).isEqualTo(2);
	}

	@Test
	void termsWithoutTokensAreNotChecked() {
		term("a", null, 0, 100);
		term("b", null, 200, 300);
		assertThat(outcome(400).tokenRegressions()).isNull();
	}

	@Test
	void executionsOfTwoReplicasAtOnceOverlapEvenWhenTheirTermsDoNot() {
		term("a", 1L, 0, 100);
		term("b", 2L, 100, 200);
		this.history.executed("a", "e0", millis(95), millis(105));
		this.history.executed("b", "e0", millis(101), millis(102));
		ChaosOutcome outcome = outcome(300);
		assertThat(outcome.gateOverlaps().count()).isZero();
		assertThat(outcome.executionOverlaps().count()).isEqualTo(1);
		assertThat(outcome.executionOverlaps().longest()).isEqualTo(Duration.ofMillis(1));
		assertThat(outcome.executions()).isEqualTo(2);
	}

	@Test
	void unavailabilityRunsFromAFaultThatEndsTheTermToTheNextTermAndIgnoresFaultsThatDoNot() {
		term("a", 1L, 0, 1200);
		this.history.faultInjected(FaultKind.CLOCK_SHIFT, "on a follower", millis(500));
		this.history.faultInjected(FaultKind.BLACK_HOLE, "on a", millis(1000));
		openTerm("b", 2L, 2100);
		this.history.faultInjected(FaultKind.PAUSE, "on b", millis(3000));
		ChaosOutcome outcome = outcome(4000);
		assertThat(outcome.faultsInjected()).isEqualTo(3);
		assertThat(outcome.faults().get(FaultKind.CLOCK_SHIFT).unavailability()).isEmpty();
		assertThat(outcome.faults().get(FaultKind.BLACK_HOLE).unavailability()).containsExactly(Duration.ofMillis(1100));
		assertThat(outcome.faults().get(FaultKind.BLACK_HOLE).interruptedTermsEndedBy())
			.containsExactly(entry("RENEW_DEADLINE_PASSED", 1));
		assertThat(outcome.faults().get(FaultKind.PAUSE).unavailability()).isEmpty();
		assertThat(outcome.unavailability()).containsExactly(Duration.ofMillis(1100));
	}

	@Test
	void anOverlapIsLaidToTheLatestFaultBeforeIt() {
		term("a", 1L, 0, 2000);
		this.history.faultInjected(FaultKind.PAUSE, "on a", millis(500));
		this.history.faultInjected(FaultKind.CLOCK_SHIFT, "+3600 s on b", millis(1000));
		openTerm("b", 2L, 1500);
		ChaosOutcome outcome = outcome(3000);
		assertThat(outcome.faults().get(FaultKind.CLOCK_SHIFT).overlaps()).hasSize(1);
		assertThat(outcome.faults().get(FaultKind.CLOCK_SHIFT).longestOverlap()).isEqualTo(Duration.ofMillis(500));
		assertThat(outcome.faults().get(FaultKind.PAUSE).overlaps()).isEmpty();
		assertThat(outcome.overlapScenarios()).singleElement()
			.asString()
			.endsWith("after clock shift (+3600 s on b)");
	}

	private void term(String replica, Long token, long openedAtMillis, long closedAtMillis) {
		openTerm(replica, token, openedAtMillis);
		this.history.closed(replica, "e0", millis(closedAtMillis), "RENEW_DEADLINE_PASSED");
	}

	private void openTerm(String replica, Long token, long openedAtMillis) {
		this.history.opened(replica, "e0", token, millis(openedAtMillis));
	}

	private ChaosOutcome outcome(long endedAtMillis) {
		return this.history.outcome("elector", SETTINGS, 0, millis(endedAtMillis));
	}

	private static long millis(long millis) {
		return Duration.ofMillis(millis).toNanos();
	}

}
