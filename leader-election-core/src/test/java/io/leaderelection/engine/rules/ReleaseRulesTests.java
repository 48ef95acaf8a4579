package io.leaderelection.engine.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.engine.rules.FollowerSteps.ms;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order of a release of our own accord, as scripts: each row a moment of the release and
 * the step that must follow it. "drop" means the term held is let go.
 */
class ReleaseRulesTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                | held  | write | guarded | next
			a lease-mode release gives up what guards its claims first   | true  | true  | true    | give up what guards the claims
			a for-life release is written at once                        | true  | true  | false   | write, read again on a conflict
			a term lost while the calls drained is not released          | false | true  | true    | end NOT_WRITTEN: leadership was lost before the leader work ended
			a stop that does not release leaves the Lease to expire      | true  | false | true    | drop, end NOT_WRITTEN: not released (release-on-shutdown is off): it expires
			""")
	void theCallsUnderWayEnded(String situation, boolean held, boolean write, boolean guarded, String next) {
		assertThat(describe(ReleaseRules.drained(held, write, guarded, "it expires"))).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                | held  | keeps the term until the work ends | next
			a Lease is left to expire                                    | true  | false                              | drop, end NOT_WRITTEN: 2 call(s) still running; the Lease expires a lease duration after its last renewal
			a Lease lost meanwhile has no term to drop                   | false | false                              | end NOT_WRITTEN: 2 call(s) still running; the Lease expires a lease duration after its last renewal
			a lock for life waits on for its calls                       | true  | true                               | -
			""")
	void theCallsUnderWayOutlastTheDrain(String situation, boolean held, boolean keeps, String next) {
		assertThat(describe(ReleaseRules.drainRanOut(held, keeps, "2 call(s) still running; "))).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                | held  | next
			what guards the claims is given up: the release is written   | true  | write, read again on a conflict
			the term was lost meanwhile: nothing is written              | false | end NOT_WRITTEN: leadership was lost before the release
			""")
	void whatGuardsTheClaimsWasGivenUp(String situation, boolean held, String next) {
		assertThat(describe(ReleaseRules.guardGivenUp(held))).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                 | held  | time left before the gate's deadline | next
			time left: the release is written                             | true  | 1                                    | -
			the deadline passed: a replaced replica must not write        | true  | 0                                    | drop, end NOT_WRITTEN: the renew deadline passed before the release
			long past the deadline                                        | true  | -3000                                | drop, end NOT_WRITTEN: the renew deadline passed before the release
			""")
	void aReleaseAboutToBeWritten(String situation, boolean held, long timeLeftMillis, String next) {
		assertThat(describe(ReleaseRules.beforeWrite(held, ms(timeLeftMillis)))).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                   | held  | answer    | read again on a conflict | next
			written: the term is let go                                     | true  | stored    | true                     | released
			a conflict (a renewal answered late) is read again once         | true  | conflict  | true                     | read again
			a second conflict leaves the Lease to expire                    | true  | conflict  | false                    | drop, end NOT_WRITTEN: the release failed: update Lease a/b: changed
			a deletion leaves nothing to release                            | true  | not found | true                     | drop, end NOT_WRITTEN: the release failed: update Lease a/b: gone
			no answer: the Lease expires                                    | true  | no answer | true                     | drop, end NOT_WRITTEN: %s
			a term lost meanwhile, and another won, is not let go           | false | no answer | true                     | end NOT_WRITTEN: %s
			""")
	void theReleasesWriteWasAnswered(String situation, boolean held, String answer, boolean reread, String next) {
		Throwable failure = answer.equals("stored") ? null : FollowerSteps.failure(answer);
		String expected = (failure != null) ? next.replace("%s", "the release failed: " + failure.getMessage()) : next;
		assertThat(describe(ReleaseRules.written(held, failure, reread))).isEqualTo(expected);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                  | held  | of the term | next
			the term's own version: written once more, without a reread    | true  | true        | write
			another term's version is never released; ours is let go       | true  | false       | drop, end NOT_WRITTEN: the Lease no longer holds the term being released
			a term lost meanwhile has nothing to drop                       | false | false       | end NOT_WRITTEN: the Lease no longer holds the term being released
			""")
	void theLeaseWasReadAgainAfterAConflict(String situation, boolean held, boolean ofTheTerm, String next) {
		assertThat(describe(ReleaseRules.reread(held, ofTheTerm))).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                 | answer    | next
			a released lock deleted                                       | deleted   | end WRITTEN
			a released lock already replaced by a follower                | conflict  | end WRITTEN
			a released lock already gone                                  | not found | end WRITTEN
			a lock left behind is replaced by the follower that sees it    | refused   | end WRITTEN: released; the lock could not be deleted: %s; a follower replaces it
			""")
	void aReleasedLocksDeletionWasAnswered(String situation, String answer, String next) {
		Throwable failure = answer.equals("deleted") ? null : FollowerSteps.failure(answer);
		String expected = (failure != null) ? next.replace("%s", failure.getMessage()) : next;
		assertThat(describe(ReleaseRules.lockDeleted(failure))).isEqualTo(expected);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                       | write | next
			a claim won while stepping down is released once the calls end      | true  | -
			a claim won while stopping without release is left to expire        | false | drop, end NOT_WRITTEN: a claim won while stopping is left to expire
			""")
	void aClaimOnItsWayWhenTheElectionStoppedWon(String situation, boolean write, String next) {
		assertThat(describe(ReleaseRules.claimWonWhileStopping(write))).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                 | next
			a claim refused leaves no term to release                     | end NOT_LEADER
			""")
	void aClaimOnItsWayWhenTheElectionStoppedWasRefused(String situation, String next) {
		assertThat(describe(ReleaseRules.claimRefused())).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                 | held  | next
			a step that throws ends the release, and the Lease expires    | true  | drop, end NOT_WRITTEN: the release failed: java.lang.IllegalStateException: boom
			a term lost meanwhile is not let go again                     | false | end NOT_WRITTEN: the release failed: java.lang.IllegalStateException: boom
			""")
	void aStepOfTheReleaseThrew(String situation, boolean held, String next) {
		assertThat(describe(ReleaseRules.threw(held, new IllegalStateException("boom")))).isEqualTo(next);
	}

	@Test
	void aReleasedLeaseIsOver() {
		assertThat(describe(ReleaseRules.leaseReleased())).isEqualTo("end WRITTEN");
	}

	@Test
	void aReleasedLockWhoseDeletionThrewIsLeftToAFollowerToReplace() {
		assertThat(describe(ReleaseRules.lockDeletionThrew(new IllegalStateException("boom"))))
			.isEqualTo("end WRITTEN: released; the lock could not be deleted: java.lang.IllegalStateException: boom");
	}

	/** A step in the words of the tables; {@code null} for none. */
	private static String describe(ReleaseStep step) {
		if (step == null) {
			return null;
		}
		if (step instanceof ReleaseStep.Ended ended) {
			return (ended.dropsTerm() ? "drop, " : "") + "end " + ended.outcome()
					+ ((ended.detail() != null) ? ": " + ended.detail() : "");
		}
		if (step instanceof ReleaseStep.Write write) {
			return write.rereadOnConflict() ? "write, read again on a conflict" : "write";
		}
		if (step instanceof ReleaseStep.GiveUpGuarded) {
			return "give up what guards the claims";
		}
		return (step instanceof ReleaseStep.Reread) ? "read again" : "released";
	}

}
