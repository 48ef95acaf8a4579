package io.leaderelection.engine.rules;

import java.time.Duration;
import java.time.Instant;

import io.leaderelection.store.LeaseRecord;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a replica observes of its Lease, on its own: versions and since when, absence as an
 * unbroken run of observations, and what earlier versions leave behind.
 */
class ObservationTests {

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	private static final Duration LEASE_DURATION = Duration.ofSeconds(15);

	/** Client-go's retry period with its jitter (2.4 s) plus a read's timeout (10 s). */
	private static final Duration MAX_READ_SPACING = Duration.ofMillis(12_400);

	private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

	private final Observation observation = new Observation(LEASE_DURATION, MAX_READ_SPACING);

	@Nested
	class UnbrokenRuns {

		private final UnbrokenRun run = new UnbrokenRun(2 * SECOND);

		@Test
		void beginsAtItsFirstObservationAndLastsWhileObservationsComeWithinTheSpacing() {
			assertThat(this.run.running()).isFalse();
			assertThat(this.run.seen(10 * SECOND, false)).as("begins").isTrue();
			assertThat(this.run.seen(12 * SECOND, false)).isFalse();
			assertThat(this.run.seen(14 * SECOND, false)).isFalse();
			assertThat(this.run.lastedAt(15 * SECOND)).isEqualTo(5 * SECOND);
			assertThat(this.run.untilLasted(8 * SECOND, 15 * SECOND)).isEqualTo(3 * SECOND);
			assertThat(this.run.untilLasted(4 * SECOND, 15 * SECOND)).isZero();
		}

		@Test
		void anObservationFurtherApartThanTheSpacingBeginsANewRun() {
			this.run.seen(10 * SECOND, false);
			assertThat(this.run.seen(12 * SECOND + 1, false)).isTrue();
			assertThat(this.run.lastedAt(13 * SECOND)).isEqualTo(SECOND - 1);
		}

		@Test
		void anObservationFollowedSinceTheLastOneContinuesTheRunHoweverLongAgoThatWas() {
			this.run.seen(10 * SECOND, false);
			assertThat(this.run.seen(60 * SECOND, true)).isFalse();
			assertThat(this.run.lastedAt(60 * SECOND)).isEqualTo(50 * SECOND);
		}

		@Test
		void endedRunsLastNothingAndTheNextObservationBeginsAnother() {
			this.run.seen(10 * SECOND, false);
			this.run.end();
			assertThat(this.run.running()).isFalse();
			assertThat(this.run.lastedAt(11 * SECOND)).isZero();
			assertThat(this.run.untilLasted(4 * SECOND, 11 * SECOND)).isEqualTo(4 * SECOND);
			assertThat(this.run.seen(11 * SECOND, true)).as("nothing to follow on from").isTrue();
			assertThat(this.run.lastedAt(12 * SECOND)).isEqualTo(SECOND);
		}

		@Test
		void anObservationThatCompletedBeforeTheLastOneDoesNotMoveItBack() {
			this.run.seen(10 * SECOND, false);
			this.run.seen(11 * SECOND, false);
			this.run.seen(10 * SECOND + SECOND / 2, false);
			assertThat(this.run.lastSeenNanos()).isEqualTo(11 * SECOND);
		}

	}

	@Nested
	class Absence {

		@Test
		void readsThatFindTheLeaseMissingWithinTheSpacingMakeOneRun() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.observeAbsent(2 * SECOND);
			ObservationTests.this.observation.observeAbsent(4 * SECOND);
			assertThat(ObservationTests.this.observation.missing()).isTrue();
			assertThat(ObservationTests.this.observation.missingWithoutGap()).isTrue();
			assertThat(ObservationTests.this.observation.untilMissingFor(LEASE_DURATION.toNanos(), 5 * SECOND))
				.isEqualTo(10 * SECOND);
		}

		@Test
		void aGapEndsTheRunAndTheNextReadBeginsAnother() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.gap();
			assertThat(ObservationTests.this.observation.current()).isFalse();
			assertThat(ObservationTests.this.observation.missingWithoutGap()).isFalse();
			ObservationTests.this.observation.observeAbsent(20 * SECOND);
			assertThat(ObservationTests.this.observation.current()).isTrue();
			assertThat(ObservationTests.this.observation.missingWithoutGap()).as("a gap came while it was missing")
				.isFalse();
			assertThat(ObservationTests.this.observation.untilMissingFor(LEASE_DURATION.toNanos(), 21 * SECOND))
				.isEqualTo(14 * SECOND);
		}

		@Test
		void readsFurtherApartThanTheSpacingBeginANewRun() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.observeAbsent(MAX_READ_SPACING.toNanos() + 1);
			assertThat(ObservationTests.this.observation.untilMissingFor(LEASE_DURATION.toNanos(),
					MAX_READ_SPACING.toNanos() + 1))
				.isEqualTo(LEASE_DURATION.toNanos());
		}

		@Test
		void aWatchOpenThroughoutCarriesTheRunAcrossASilenceLongerThanTheSpacing() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.watchOpened(SECOND / 2);
			ObservationTests.this.observation.observeAbsent(SECOND);
			ObservationTests.this.observation.observeAbsent(30 * SECOND);
			assertThat(ObservationTests.this.observation.untilMissingFor(LEASE_DURATION.toNanos(), 30 * SECOND))
				.isZero();
		}

		@Test
		void aWatchOpenedAfterTheLastReadDoesNotCarryTheStretchBeforeIt() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.watchOpened(20 * SECOND);
			ObservationTests.this.observation.observeAbsent(20 * SECOND);
			assertThat(ObservationTests.this.observation.untilMissingFor(LEASE_DURATION.toNanos(), 20 * SECOND))
				.isEqualTo(LEASE_DURATION.toNanos());
		}

		@Test
		void aWatchThatEndedIsAGap() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.watchOpened(SECOND);
			ObservationTests.this.observation.watchEnded();
			assertThat(ObservationTests.this.observation.watched()).isFalse();
			assertThat(ObservationTests.this.observation.missingWithoutGap()).isFalse();
		}

		@Test
		void aWatchClosedByTheReplicaLeavesTheRunToItsReads() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.watchOpened(0);
			ObservationTests.this.observation.watchClosed();
			assertThat(ObservationTests.this.observation.missingWithoutGap()).isTrue();
			ObservationTests.this.observation.observeAbsent(30 * SECOND);
			assertThat(ObservationTests.this.observation.untilMissingFor(LEASE_DURATION.toNanos(), 30 * SECOND))
				.isEqualTo(LEASE_DURATION.toNanos());
		}

		@Test
		void aVersionSeenEndsTheRunAndForgetsTheGap() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.gap();
			ObservationTests.this.observation.observe(held("a", 15, 1, "uid-1", "5"), SECOND);
			assertThat(ObservationTests.this.observation.missing()).isFalse();
			ObservationTests.this.observation.observeAbsent(2 * SECOND);
			assertThat(ObservationTests.this.observation.missingWithoutGap()).isTrue();
			assertThat(ObservationTests.this.observation.untilMissingFor(LEASE_DURATION.toNanos(), 2 * SECOND))
				.isEqualTo(LEASE_DURATION.toNanos());
		}

		@Test
		void aCreateRefusedBecauseTheLeaseExistedIsAGapWhileMissing() {
			ObservationTests.this.observation.observeAbsent(0);
			ObservationTests.this.observation.existedUnseen();
			ObservationTests.this.observation.observeAbsent(SECOND);
			assertThat(ObservationTests.this.observation.missingWithoutGap()).isFalse();
		}

		@Test
		void aLeaseNeverReadIsNotKnownToBeMissing() {
			assertThat(ObservationTests.this.observation.anythingSeen()).isFalse();
			assertThat(ObservationTests.this.observation.missing()).isFalse();
			ObservationTests.this.observation.gap();
			ObservationTests.this.observation.observeAbsent(0);
			assertThat(ObservationTests.this.observation.missingWithoutGap()).as("no gap while it was known missing")
				.isTrue();
		}

		@Test
		void remembersTheVersionLastSeenHeldBeforeTheLeaseWentMissing() {
			LeaseRecord held = held("a", 15, 1, "uid-1", "5");
			ObservationTests.this.observation.observe(held, 0);
			ObservationTests.this.observation.observeAbsent(SECOND);
			ObservationTests.this.observation.observeAbsent(2 * SECOND);
			assertThat(ObservationTests.this.observation.heldBeforeMissing()).isSameAs(held);
			ObservationTests.this.observation.observe(released(1, "uid-2", "9"), 3 * SECOND);
			ObservationTests.this.observation.observeAbsent(4 * SECOND);
			assertThat(ObservationTests.this.observation.heldBeforeMissing()).as("last seen released").isNull();
		}

	}

	@Nested
	class Versions {

		@Test
		void aVersionIsSeenFromItsFirstObservationAndAnOlderOneIsIgnored() {
			LeaseRecord five = held("a", 15, 1, "uid-1", "5");
			assertThat(ObservationTests.this.observation.observe(five, SECOND)).isTrue();
			assertThat(ObservationTests.this.observation.observe(five, 3 * SECOND)).isTrue();
			assertThat(ObservationTests.this.observation.observedAtNanos()).isEqualTo(SECOND);
			assertThat(ObservationTests.this.observation.observe(held("b", 15, 2, "uid-1", "4"), 4 * SECOND)).isFalse();
			assertThat(ObservationTests.this.observation.lastSeen()).isSameAs(five);
			assertThat(ObservationTests.this.observation.untilExpiry(4 * SECOND)).isEqualTo(12 * SECOND);
		}

		@Test
		void aVersionExpiresAfterItsHoldersLeaseDuration() {
			ObservationTests.this.observation.observe(held("a", 40, 1, "uid-1", "5"), 0);
			assertThat(ObservationTests.this.observation.untilExpiry(0)).isEqualTo(40 * SECOND);
			ObservationTests.this.observation.observe(held("a", 5, 1, "uid-1", "6"), 0);
			assertThat(ObservationTests.this.observation.untilExpiry(0)).isEqualTo(5 * SECOND);
		}

		@Test
		void aVersionWithoutHolderWaitsAtLeastOursAndTheLastHoldersLeaseDuration() {
			ObservationTests.this.observation.observe(held("a", 40, 1, "uid-1", "5"), 0);
			ObservationTests.this.observation.observeAbsent(SECOND);
			LeaseRecord free = new LeaseRecord(null, 15, null, null, 1, null, "uid-2", "7", null);
			ObservationTests.this.observation.observe(free, 2 * SECOND);
			assertThat(ObservationTests.this.observation.untilExpiry(2 * SECOND)).isEqualTo(40 * SECOND);
			assertThat(ObservationTests.this.observation.missingHoldersLeaseDurationNanos()).isEqualTo(40 * SECOND);
		}

		@Test
		void aForLifeLockCountsOurLeaseDurationForWhenItGoesMissing() {
			ObservationTests.this.observation.observe(held("pod-0", LeaseRecord.FOR_LIFE_LEASE_DURATION_SECONDS, 1,
					"uid-1", "5"), 0);
			assertThat(ObservationTests.this.observation.missingHoldersLeaseDurationNanos())
				.isEqualTo(LEASE_DURATION.toNanos());
		}

		@Test
		void aReleaseOfTheObjectLastSeenHeldIsTakenAtOnceUnlessAnotherIsPreferred() {
			ObservationTests.this.observation.observe(held("a", 15, 1, "uid-1", "5"), 0);
			ObservationTests.this.observation.observe(released(1, "uid-1", "6"), SECOND);
			assertThat(ObservationTests.this.observation.releasedFor("b")).isTrue();
			LeaseRecord preferring = new LeaseRecord("", 1, NOW, NOW, 1, "c", "uid-1", "7", null);
			ObservationTests.this.observation.observe(preferring, 2 * SECOND);
			assertThat(ObservationTests.this.observation.releasedFor("b")).isFalse();
			assertThat(ObservationTests.this.observation.releasedFor("c")).isTrue();
		}

		@Test
		void aReleasedLeaseThatWentMissingOrIsAnotherObjectWasNotReleasedByItsHolder() {
			ObservationTests.this.observation.observe(held("a", 15, 1, "uid-1", "5"), 0);
			ObservationTests.this.observation.observe(released(1, "uid-2", "8"), SECOND);
			assertThat(ObservationTests.this.observation.releasedFor("b")).as("created again").isFalse();
			ObservationTests.this.observation.observe(held("a", 15, 2, "uid-2", "9"), 2 * SECOND);
			ObservationTests.this.observation.observeAbsent(3 * SECOND);
			ObservationTests.this.observation.observe(released(2, "uid-3", "11"), 4 * SECOND);
			assertThat(ObservationTests.this.observation.releasedFor("b")).as("missing in between").isFalse();
		}

		@Test
		void theNextTransitionsCountIsOneMoreThanAnySeen() {
			assertThat(ObservationTests.this.observation.nextTransitions()).isZero();
			ObservationTests.this.observation.observe(held("a", 15, 6, "uid-1", "5"), 0);
			ObservationTests.this.observation.observe(held("b", 15, 2, "uid-2", "9"), 0);
			assertThat(ObservationTests.this.observation.nextTransitions()).isEqualTo(7);
			assertThat(ObservationTests.this.observation.highestTransitionsSeen()).isEqualTo(6);
		}

	}

	private static LeaseRecord held(String holder, int leaseDurationSeconds, int transitions, String uid,
			String resourceVersion) {
		return new LeaseRecord(holder, leaseDurationSeconds, NOW, NOW, transitions, null, uid, resourceVersion, null);
	}

	private static LeaseRecord released(int transitions, String uid, String resourceVersion) {
		return new LeaseRecord("", 1, NOW, NOW, transitions, null, uid, resourceVersion, null);
	}

}
