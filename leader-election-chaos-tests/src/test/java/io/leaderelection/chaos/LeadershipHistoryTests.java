package io.leaderelection.chaos;

import java.time.Duration;
import java.util.Map;

import io.leaderelection.chaos.ChaosOutcome.FaultStats;
import io.leaderelection.chaos.ChaosOutcome.LeaderTime;
import io.leaderelection.chaos.ChaosOutcome.LeaderWork;
import io.leaderelection.chaos.ChaosOutcome.Violations;
import io.leaderelection.chaos.LeadershipHistory.LeaseVersion;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

/**
 * Tests for {@link LeadershipHistory}: the checker that the chaos runs rely on, fed with terms,
 * leader-only jobs, Lease versions and faults at chosen times (in milliseconds from 0, as
 * nanoseconds). Each check is shown to count what it is meant to, and only that.
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
	void stepsOfTwoProcessesAtOnceOverlapEvenWhenTheirTermsDoNot() {
		term("a", 1L, 0, 100);
		term("b", 2L, 100, 200);
		this.history.stepRan("a", "e0", millis(95), millis(105));
		this.history.stepRan("b", "e0", millis(101), millis(102));
		this.history.stepRan("b", "e0", millis(150), millis(151));
		ChaosOutcome outcome = outcome(300);
		assertThat(outcome.gateOverlaps().count()).isZero();
		assertThat(outcome.work().stepOverlaps().count()).isEqualTo(1);
		assertThat(outcome.work().stepOverlaps().longest()).isEqualTo(Duration.ofMillis(1));
		assertThat(outcome.work().stepOverlaps().examples()).singleElement()
			.asString()
			.startsWith("e0: b began at 0.101 s while a was open");
		assertThat(outcome.work().steps()).isEqualTo(3);
	}

	@Test
	void twoProcessesWithOneIdentityThatBothLeadOverlap() {
		term("ours-r0-1", 1L, 0, 300);
		term("ours-r0-1@twin", 2L, 100, 200);
		assertThat(outcome(400).gateOverlaps().count()).isEqualTo(1);
	}

	@Test
	void opaqueJobsOverlappingAfterTheEarlierOnesTermWasGivenUpAreToldApartFromThoseAfterALoss() {
		term("a", 1L, 0, 100, "STEPPED_DOWN", true);
		term("b", 2L, 150, 300, "RENEW_DEADLINE_PASSED", false);
		openTerm("c", 3L, 400);
		this.history.opaqueJobRan("a", "e0", millis(50), millis(200));
		this.history.opaqueJobRan("b", "e0", millis(160), millis(170));
		this.history.opaqueJobRan("b", "e0", millis(250), millis(450));
		this.history.opaqueJobRan("c", "e0", millis(410), millis(420));
		this.history.opaqueJobRan("c", "e0", millis(500), millis(600));
		LeaderWork work = outcome(700).work();
		assertThat(work.opaqueJobs()).isEqualTo(5);
		assertThat(work.opaqueOverlapsAfterVoluntaryEnd().count()).isEqualTo(1);
		assertThat(work.opaqueOverlapsAfterVoluntaryEnd().longest()).isEqualTo(Duration.ofMillis(10));
		assertThat(work.opaqueOverlapsAfterVoluntaryEnd().examples()).singleElement()
			.asString()
			.contains("b began at 0.160 s while a was open")
			.endsWith("(the earlier job ran in a term ended by STEPPED_DOWN)");
		assertThat(work.opaqueOverlapsAfterLoss().count()).isEqualTo(1);
		assertThat(work.opaqueOverlapsAfterLoss().longest()).isEqualTo(Duration.ofMillis(10));
		assertThat(work.fenceViolations().count()).isZero();
		assertThat(work.stepOverlaps().count()).isZero();
	}

	@Test
	void aJobCountsInTheTermItReadTheGateInEvenWhenItsProcessLeadsAgainBeforeItEnds() {
		term("a", 1L, 0, 100, "RENEW_DEADLINE_PASSED", false);
		term("b", 2L, 150, 250, "STEPPED_DOWN", true);
		term("a", 3L, 300, 350, "STEPPED_DOWN", true);
		this.history.opaqueJobRan("a", "e0", millis(90), millis(400));
		this.history.opaqueJobRan("b", "e0", millis(200), millis(210));
		LeaderWork work = outcome(500).work();
		assertThat(work.opaqueOverlapsAfterLoss().count()).isEqualTo(1);
		assertThat(work.opaqueOverlapsAfterVoluntaryEnd().count()).isZero();
	}

	@Test
	void aJobReadingTheGateJustAsItsTermEndedCountsInThatTerm() {
		term("a", 1L, 0, 100, "STEPPED_DOWN", true);
		openTerm("b", 2L, 150);
		this.history.opaqueJobRan("a", "e0", Duration.ofMillis(100).plusNanos(500_000).toNanos(), millis(200));
		this.history.opaqueJobRan("b", "e0", millis(160), millis(170));
		LeaderWork work = outcome(300).work();
		assertThat(work.opaqueOverlapsAfterVoluntaryEnd().count()).isEqualTo(1);
	}

	@Test
	void anOverlapAfterALossWhoseLaterJobHasNoHigherTokenViolatesTheFence() {
		term("a", 7L, 0, 100, "LEASE_DELETED", false);
		term("b", 7L, 150, 300, "STEPPED_DOWN", true);
		this.history.opaqueJobRan("a", "e0", millis(50), millis(200));
		this.history.opaqueJobRan("b", "e0", millis(160), millis(170));
		LeaderWork work = outcome(400).work();
		assertThat(work.opaqueOverlapsAfterLoss().count()).isEqualTo(1);
		assertThat(work.fenceViolations().count()).isEqualTo(1);
		assertThat(work.fenceViolations().examples()).singleElement()
			.asString()
			.endsWith("fencing token 7 after 7");
	}

	@Test
	void withoutTokensTheFenceIsNotChecked() {
		term("a", null, 0, 100, "onStopLeading", false);
		openTerm("b", null, 150);
		this.history.opaqueJobRan("a", "e0", millis(50), millis(200));
		this.history.opaqueJobRan("b", "e0", millis(160), millis(170));
		LeaderWork work = outcome(300).work();
		assertThat(work.opaqueOverlapsAfterLoss().count()).isEqualTo(1);
		assertThat(work.fenceViolations()).isNull();
	}

	@Test
	void aReleaseWrittenWhileAJobOfTheReleasingReplicasProcessRanIsCounted() {
		this.history.processStarted("a", "r0", "a");
		this.history.processStarted("b", "r1", "b");
		written("r0", version("a"), 0);
		this.history.opaqueJobRan("a", "e0", millis(50), millis(300));
		this.history.opaqueJobRan("b", "e0", millis(350), millis(450));
		this.history.stepRan("a", "e0", millis(500), millis(501));
		written("r0", version(""), 200);
		written("r1", version("b"), 250);
		written("r1", version(""), 400);
		written("r0", version("a"), 450);
		written("r0", version(""), 600);
		Violations releases = outcome(700).work().releasesDuringJobs();
		assertThat(releases.count()).isEqualTo(2);
		assertThat(releases.examples()).containsExactly(
				"e0: a write by r0 at 0.200 s: released a while a's opaque job 0.050–0.300 s ran",
				"e0: a write by r1 at 0.400 s: released b while b's opaque job 0.350–0.450 s ran");
	}

	@Test
	void aReleaseWhileAnotherReplicasJobRunsOrAfterTheJobsEndedIsNotCounted() {
		this.history.processStarted("a", "r0", "a");
		this.history.processStarted("b", "r1", "b");
		written("r0", version("a"), 0);
		this.history.opaqueJobRan("a", "e0", millis(50), millis(100));
		this.history.stepRan("a", "e0", millis(100), millis(101));
		this.history.opaqueJobRan("b", "e0", millis(150), millis(300));
		written("r0", version(""), 200);
		assertThat(outcome(400).work().releasesDuringJobs().count()).isZero();
	}

	@Test
	void aReleaseDuringACooperativeStepIsCountedToo() {
		this.history.processStarted("a", "r0", "a");
		written("r0", version("a"), 0);
		this.history.stepRan("a", "e0", millis(199), millis(201));
		written("r0", version(""), 200);
		assertThat(outcome(300).work().releasesDuringJobs().examples()).singleElement()
			.asString()
			.endsWith("while a's cooperative step 0.199–0.201 s ran");
	}

	@Test
	void anElectorWriteThatDropsOrChangesAForeignLabelOrAnnotationRevertsAnEdit() {
		this.history.processStarted("a", "r0", "a");
		written("r0", version("a"), 0);
		written("foreign-writer", version("a", Map.of("team", "x"), Map.of("note", "1")), 10);
		written("r0", version("a", Map.of("team", "x"), Map.of("note", "1")), 20);
		written("r0", version("a", Map.of(), Map.of("note", "1")), 30);
		written("foreign-writer", version("a", Map.of("team", "y"), Map.of("note", "2")), 40);
		written("r0", version("a", Map.of("team", "y"), Map.of("note", "1")), 50);
		Violations reverted = outcome(100).leaseWrites().revertedForeignEdits();
		assertThat(reverted.count()).isEqualTo(2);
		assertThat(reverted.examples()).containsExactly("e0: a write by r0 at 0.030 s: label team=x became null",
				"e0: a write by r0 at 0.050 s: annotation note=2 became 1");
	}

	@Test
	void foreignWritesAndTheFirstVersionAfterADeletionRevertNothing() {
		this.history.processStarted("a", "r0", "a");
		written("foreign-writer", version("a", Map.of("team", "x"), Map.of()), 0);
		written("foreign-writer", version("a"), 10);
		written("r0", version("a", Map.of("team", "x"), Map.of()), 20);
		written("foreign-writer", null, 30);
		written("r0", version("a"), 40);
		assertThat(outcome(100).leaseWrites().revertedForeignEdits().count()).isZero();
	}

	@Test
	void anElectorWriteThatDropsThePreferredHolderOrStrategyClearsIt() {
		this.history.processStarted("a", "r0", "a");
		written("r0", version("a"), 0);
		written("foreign-writer", preferring("a", "b", "OldestEmulationVersion"), 10);
		written("r0", preferring("a", "b", "OldestEmulationVersion"), 20);
		written("r0", preferring("a", "b", null), 30);
		written("foreign-writer", preferring("a", "c", "OldestEmulationVersion"), 40);
		written("r0", version("a"), 50);
		written("foreign-writer", version("a"), 60);
		written("r0", version("a"), 70);
		Violations cleared = outcome(100).leaseWrites().clearedPreferredHolders();
		assertThat(cleared.count()).isEqualTo(2);
		assertThat(cleared.examples()).containsExactly(
				"e0: a write by r0 at 0.030 s: spec.strategy OldestEmulationVersion became null",
				"e0: a write by r0 at 0.050 s: spec.preferredHolder c became null, "
						+ "spec.strategy OldestEmulationVersion became null");
		assertThat(outcome(100).leaseWrites().revertedForeignEdits().count()).isZero();
	}

	@Test
	void faultsInjectedWhileAnotherWasHeldAreCounted() {
		openTerm("a", 1L, 0);
		this.history.faultInjected(FaultKind.BLACK_HOLE, "on a", millis(100), false);
		this.history.faultInjected(FaultKind.STEP_DOWN, "on b, while black-holed traffic is held", millis(200), true);
		ChaosOutcome outcome = outcome(300);
		assertThat(outcome.faultsInjected()).isEqualTo(2);
		assertThat(outcome.faultsHeldTogether()).isEqualTo(1);
	}

	@Test
	void anOpaqueJobOverlapIsLaidToTheLatestFaultBeforeIt() {
		term("a", 1L, 0, 100, "RENEW_DEADLINE_PASSED", false);
		term("b", 2L, 150, 300, "STEPPED_DOWN", true);
		this.history.faultInjected(FaultKind.PAUSE, "on a", millis(20), false);
		this.history.opaqueJobRan("a", "e0", millis(50), millis(200));
		this.history.opaqueJobRan("b", "e0", millis(160), millis(170));
		FaultStats pause = outcome(400).faults().get(FaultKind.PAUSE);
		assertThat(pause.opaqueOverlapsAfterLoss()).isEqualTo(1);
		assertThat(pause.opaqueOverlapsAfterVoluntaryEnd()).isZero();
	}

	@Test
	void unavailabilityRunsFromAFaultThatEndsTheTermToTheNextTermAndIgnoresFaultsThatDoNot() {
		term("a", 1L, 0, 1200);
		this.history.faultInjected(FaultKind.CLOCK_SHIFT, "on a follower", millis(500), false);
		this.history.faultInjected(FaultKind.BLACK_HOLE, "on a", millis(1000), false);
		openTerm("b", 2L, 2100);
		this.history.faultInjected(FaultKind.PAUSE, "on b", millis(3000), false);
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
		this.history.faultInjected(FaultKind.PAUSE, "on a", millis(500), false);
		this.history.faultInjected(FaultKind.CLOCK_SHIFT, "+3600 s on b", millis(1000), false);
		openTerm("b", 2L, 1500);
		ChaosOutcome outcome = outcome(3000);
		assertThat(outcome.faults().get(FaultKind.CLOCK_SHIFT).overlaps()).hasSize(1);
		assertThat(outcome.faults().get(FaultKind.CLOCK_SHIFT).longestOverlap()).isEqualTo(Duration.ofMillis(500));
		assertThat(outcome.faults().get(FaultKind.PAUSE).overlaps()).isEmpty();
		assertThat(outcome.overlapScenarios()).singleElement()
			.asString()
			.endsWith("after clock shift (+3600 s on b)");
	}

	@Test
	void jobsOfTwoProcessesAtOnceOverlapWhateverTheirKindAndHowTheEarlierOnesTermEnded() {
		term("a", 1L, 0, 100, "STEPPED_DOWN", true);
		openTerm("b", 2L, 100);
		this.history.jobRan("a", "e0", millis(50), millis(120), 1L);
		this.history.jobRan("b", "e0", millis(110), millis(130), 2L);
		this.history.jobRan("b", "e0", millis(140), millis(150), 2L);
		LeaderWork work = outcome(200).work();
		assertThat(work.jobs()).isEqualTo(3);
		assertThat(work.jobOverlaps().count()).isEqualTo(1);
		assertThat(work.jobOverlaps().longest()).isEqualTo(Duration.ofMillis(10));
		assertThat(work.jobOverlaps().examples()).singleElement()
			.asString()
			.startsWith("e0: b began at 0.110 s while a was open, together 10.0 ms")
			.endsWith("(the earlier job ran in a term ended by STEPPED_DOWN)");
		assertThat(work.jobTokenRegressions().count()).isZero();
	}

	@Test
	void aJobBeginningWithATokenLowerThanAJobBeganWithBeforeItIsARegression() {
		term("a", 5L, 0, 100, "LEASE_DELETED", false);
		openTerm("b", 7L, 50);
		this.history.jobRan("a", "e0", millis(10), millis(20), 5L);
		this.history.jobRan("b", "e0", millis(60), millis(70), 7L);
		this.history.jobRan("a", "e0", millis(80), millis(90), 5L);
		this.history.jobRan("b", "e0", millis(95), millis(99), 7L);
		this.history.jobRan("a", "e0", millis(98), millis(99), null);
		Violations regressions = outcome(200).work().jobTokenRegressions();
		assertThat(regressions.count()).isEqualTo(1);
		assertThat(regressions.examples()).containsExactly(
				"e0: a's job began at 0.080 s with fencing token 5, after b's began at 0.060 s with 7");
	}

	@Test
	void jobsOfAnElectorWithoutTokensAreNotCheckedForRegressions() {
		term("a", null, 0, 100);
		this.history.jobRan("a", "e0", millis(10), millis(20), null);
		assertThat(outcome(200).work().jobTokenRegressions()).isNull();
	}

	@Test
	void timeWithTwoGatesOpenIsTheTimeTwoOrMoreWereOpenAtOnce() {
		term("a", 1L, 0, 300);
		term("b", 2L, 200, 400);
		term("c", 3L, 250, 260);
		term("c", 4L, 400, 500);
		LeaderTime time = outcome(500).leaderTime();
		assertThat(time.twoGatesOpen()).isEqualTo(Duration.ofMillis(100));
		assertThat(time.withoutLeader()).isZero();
		assertThat(time.gaps()).isZero();
	}

	@Test
	void timeWithoutALeaderRunsFromTheFirstGrantToTheEndAndIsToldApartByTheTermBeforeAndTheLease() {
		this.history.processStarted("a", "r0", "a");
		this.history.processStarted("b", "r1", "b");
		this.history.processStarted("c", "r2", "c");
		this.history.processStarted("d", "r1", "d");
		// a's renewals land too late: its gate closes at 100, its late renewal is stored at 150,
		// and it leads again at 300
		written("r0", version("a"), 0);
		term("a", 1L, 0, 100, "RENEW_DEADLINE_PASSED", false);
		written("r0", version("a"), 150);
		term("a", 2L, 300, 400, "LEASE_DELETED", false);
		// deleted at 400, created without holder at 500, claimed by b at 550, b leads at 600
		written("foreign-writer", null, 400);
		written("r1", version(""), 500);
		written("r1", version("b"), 550);
		term("b", 3L, 600, 700, "process killed", false);
		written("r1", version("b"), 650);
		this.history.processEnded("b", millis(700));
		// c claims at 850 what b's ended process held, leads at 900 until its renewals fail at 1000
		written("r2", version("c"), 850);
		term("c", 4L, 900, 1000, "RENEW_DEADLINE_PASSED", false);
		// c's process is killed at 1050; d takes its Lease once expired, at 1150, and leads from 1200 on
		this.history.processEnded("c", millis(1050));
		written("r1", version("d"), 1150);
		openTerm("d", 5L, 1200);
		LeaderTime time = outcome(1300).leaderTime();
		assertThat(time.observed()).isEqualTo(Duration.ofMillis(1300));
		assertThat(time.withoutLeader()).isEqualTo(Duration.ofMillis(800));
		assertThat(time.gaps()).isEqualTo(4);
		assertThat(time.longestGap()).isEqualTo(Duration.ofMillis(200));
		assertThat(time.share(time.withoutLeader())).isCloseTo(800.0 / 1300, within(1e-9));
		assertThat(time.withoutLeaderAfter()).containsOnly(entry("RENEW_DEADLINE_PASSED", Duration.ofMillis(400)),
				entry("LEASE_DELETED", Duration.ofMillis(200)), entry("process killed", Duration.ofMillis(200)));
		assertThat(time.withoutLeaderWhile()).containsOnly(
				entry(LeaderTimes.RENEWED + "RENEW_DEADLINE_PASSED", Duration.ofMillis(50)),
				entry(LeaderTimes.CLAIMED, Duration.ofMillis(300)), entry(LeaderTimes.MISSING, Duration.ofMillis(100)),
				entry(LeaderTimes.NO_HOLDER, Duration.ofMillis(50)),
				entry(LeaderTimes.HOLDER_ENDED, Duration.ofMillis(250)),
				entry(LeaderTimes.NOT_RENEWED + "RENEW_DEADLINE_PASSED", Duration.ofMillis(50)));
	}

	@Test
	void anOverlapAfterAStepOfAFaultIsLaidToThatFault() {
		term("a", 1L, 0, 2000);
		this.history.faultInjected(FaultKind.FROZEN_WHILE_MISSING, "r1 frozen once it saw [e0] missing", millis(100),
				false);
		this.history.faultInjected(FaultKind.STEP_DOWN, "of [] on r2", millis(500), true);
		this.history.faultStep(FaultKind.FROZEN_WHILE_MISSING, "r1 frozen once it saw [e0] missing", "r1 thawed",
				millis(1000));
		openTerm("b", 2L, 1100);
		ChaosOutcome outcome = outcome(3000);
		assertThat(outcome.faults().get(FaultKind.FROZEN_WHILE_MISSING).overlaps()).hasSize(1);
		assertThat(outcome.faults().get(FaultKind.STEP_DOWN).overlaps()).isEmpty();
		assertThat(outcome.overlapTimelines()).singleElement().asString().contains("fault: r1 thawed");
	}

	private void term(String process, Long token, long openedAtMillis, long closedAtMillis) {
		term(process, token, openedAtMillis, closedAtMillis, "RENEW_DEADLINE_PASSED", false);
	}

	private void term(String process, Long token, long openedAtMillis, long closedAtMillis, String reason,
			boolean voluntary) {
		openTerm(process, token, openedAtMillis);
		this.history.closed(process, "e0", millis(closedAtMillis), reason, voluntary);
	}

	private void openTerm(String process, Long token, long openedAtMillis) {
		this.history.opened(process, "e0", token, millis(openedAtMillis));
	}

	private void written(String writer, LeaseVersion version, long atMillis) {
		this.history.leaseWritten("e0", writer, version, millis(atMillis));
	}

	private static LeaseVersion version(String holder) {
		return version(holder, Map.of(), Map.of());
	}

	private static LeaseVersion version(String holder, Map<String, String> labels, Map<String, String> annotations) {
		return new LeaseVersion(holder, labels, annotations, null, null);
	}

	private static LeaseVersion preferring(String holder, String preferredHolder, String strategy) {
		return new LeaseVersion(holder, Map.of(), Map.of(), preferredHolder, strategy);
	}

	private ChaosOutcome outcome(long endedAtMillis) {
		return this.history.outcome("elector", SETTINGS, 0, millis(endedAtMillis));
	}

	private static long millis(long millis) {
		return Duration.ofMillis(millis).toNanos();
	}

}
