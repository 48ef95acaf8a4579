package io.leaderelection.engine.rules;

import java.time.Duration;

import io.leaderelection.store.PodReference;
import io.leaderelection.store.PodState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a for-life follower judges the Pod owning the lock, on its own monotonic clock (here the
 * nanosecond numbers passed in).
 */
class OwnerLivenessTests {

	private static final PodReference OWNER = new PodReference("orders-0", "uid-1");

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	private final OwnerLiveness judge = new OwnerLiveness(null);

	@Test
	void aRunningPodLivesWithNoMomentToWaitFor() {
		OwnerLiveness.Verdict verdict = this.judge.judge(OWNER, running("uid-1"), null, 0);

		assertThat(verdict.gone()).isFalse();
		assertThat(verdict.untilGoneNanos()).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void aPodMissingOrUnderTheSameNameWithAnotherUidIsGone() {
		assertThat(this.judge.judge(OWNER, null, null, 0).goneBecause()).contains("no longer exists");
		assertThat(this.judge.judge(OWNER, running("uid-2"), null, 0).goneBecause())
			.contains("is another Pod now (uid uid-2)");
	}

	@Test
	void aFailedOrSucceededPodIsGone() {
		assertThat(this.judge.judge(OWNER, pod("uid-1", "Failed", false, null, null), null, 0).goneBecause())
			.contains("is Failed");
		assertThat(this.judge.judge(OWNER, pod("uid-1", "Succeeded", false, null, null), null, 0).gone()).isTrue();
	}

	@Test
	void theGracePeriodOfADeletionCountsFromWhenThisFollowerFirstSawIt() {
		PodState terminating = pod("uid-1", "Running", true, 30, null);

		assertThat(this.judge.judge(OWNER, terminating, null, 100 * SECOND).untilGoneNanos()).isEqualTo(30 * SECOND);
		assertThat(this.judge.judge(OWNER, terminating, null, 129 * SECOND).untilGoneNanos()).isEqualTo(SECOND);
		assertThat(this.judge.judge(OWNER, terminating, null, 130 * SECOND).goneBecause())
			.contains("grace period of 30 s has passed");
	}

	@Test
	void aNotReadyNodeCountsOnlyWhereSwitchedOnAndOnlyWhileItStaysNotReady() {
		PodState onNode = pod("uid-1", "Running", false, null, "node-1");
		assertThat(this.judge.judge(OWNER, onNode, false, 0).gone()).isFalse();
		assertThat(this.judge.judge(OWNER, onNode, false, 3600 * SECOND).gone()).isFalse();

		OwnerLiveness optedIn = new OwnerLiveness(Duration.ofSeconds(40));
		assertThat(optedIn.judge(OWNER, onNode, false, 0).untilGoneNanos()).isEqualTo(40 * SECOND);
		assertThat(optedIn.judge(OWNER, onNode, true, 20 * SECOND).gone()).isFalse();
		// Ready again in between: the wait starts over
		assertThat(optedIn.judge(OWNER, onNode, false, 30 * SECOND).untilGoneNanos()).isEqualTo(40 * SECOND);
		assertThat(optedIn.judge(OWNER, onNode, false, 69 * SECOND).gone()).isFalse();
		assertThat(optedIn.judge(OWNER, onNode, false, 70 * SECOND).goneBecause()).contains("NotReady");
	}

	@Test
	void aPodDeletedBecauseItsNodeIsLostCountsOnlyAsOneOnANotReadyNode() {
		PodState evictedFromLostNode = new PodState(OWNER.name(), "uid-1", "Running", true, 30, "node-1", true, false);
		assertThat(this.judge.judge(OWNER, evictedFromLostNode, null, 0).gone()).isFalse();
		assertThat(this.judge.judge(OWNER, evictedFromLostNode, null, 3600 * SECOND).gone()).isFalse();

		OwnerLiveness optedIn = new OwnerLiveness(Duration.ofSeconds(40));
		assertThat(optedIn.judge(OWNER, evictedFromLostNode, null, 0).untilGoneNanos()).isEqualTo(40 * SECOND);
		assertThat(optedIn.judge(OWNER, evictedFromLostNode, null, 40 * SECOND).goneBecause()).contains("NotReady");
	}

	private static PodState running(String uid) {
		return pod(uid, "Running", false, null, null);
	}

	private static PodState pod(String uid, String phase, boolean deleting, Integer grace, String node) {
		return new PodState(OWNER.name(), uid, phase, deleting, grace, node, false, true);
	}

}
