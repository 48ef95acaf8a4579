package io.leaderelection.engine.rules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.engine.rules.FollowerSteps.ms;
import static io.leaderelection.engine.rules.FollowerSteps.version;
import static org.assertj.core.api.Assertions.assertThat;

/** What a claim's answer leads to, as scripts; a claim given back names the release "stop". */
class ClaimingTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                   | creates | seen missing | given back | answer    | next
			a claim stored wins its term                                    | false   | false        | false      | stored    | won
			a claim stored after a stop gives its term back                 | false   | false        | true       | stored    | won, given back by stop
			an update refused by another's write looks again later          | false   | false        | false      | conflict  | refused by the server, looks again later
			a create refused while the Lease was seen missing: it exists    | true    | true         | false      | conflict  | refused by the server, the Lease existed unseen, looks again at once
			a create refused while the Lease was seen: only a conflict      | true    | false        | false      | conflict  | refused by the server, looks again later
			a Lease deleted under the claim is missing                      | false   | false        | false      | not found | refused by the server, the Lease is missing, looks again at once
			a claim without answer may be stored: read at once              | false   | false        | false      | no answer | failed, looks again at once
			a claim refused after a stop ends the stop's release            | false   | false        | true       | refused   | failed, looks again later, given back by stop
			""")
	void aClaimsAnswer(String situation, boolean creates, boolean seenMissing, boolean givenBack, String answer,
			String next) {
		Claiming<String> claiming = new Claiming<>();
		Claiming.Sent<String> sent = claiming.send(4, creates);
		if (givenBack) {
			claiming.giveBack("stop");
		}
		Throwable failure = answer.equals("stored") ? null : FollowerSteps.failure(answer);
		assertThat(describe(claiming.answered(sent, failure, seenMissing))).isEqualTo(next);
		assertThat(claiming.onItsWay()).as("answered, the claim is no longer on its way").isFalse();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                      | answer    | next
			another created the Lease meanwhile: read it at once               | conflict  | refused by the server, the Lease existed unseen, looks again at once
			a create without answer may have been written: read at once        | no answer | failed, looks again at once
			a refusal waits a follower's delay                                 | refused   | failed, looks again later
			""")
	void aCreateWithoutHolderFails(String situation, String answer, String next) {
		assertThat(describe(Refusal.ofCreateWithoutHolder(FollowerSteps.failure(answer)))).isEqualTo(next);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                      | answer    | next
			the lock changed since it was judged: judge it again at once       | conflict  | refused by the server, looks again at once
			no answer: look again after a follower's delay                     | no answer | failed, looks again later
			a refusal waits a follower's delay                                 | refused   | failed, looks again later
			""")
	void aLockJudgedGoneIsNotDeleted(String situation, String answer, String next) {
		assertThat(describe(Refusal.ofLockDeletion(FollowerSteps.failure(answer)))).isEqualTo(next);
	}

	@Test
	void aClaimOnItsWayIsGivenBackByTheReleaseMadeForIt() {
		Claiming<String> claiming = new Claiming<>();
		claiming.send(7, false);
		assertThat(claiming.givenBackBy()).as("neither stopped nor stepped down").isNull();
		claiming.giveBack("stop");
		assertThat(claiming.givenBackBy()).isEqualTo("stop");
		assertThat(claiming.transitionsOnItsWay()).isEqualTo(7);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                     | sent at | now   | granted | claimed again too late after
			answered within the renew deadline: the gate opens                | 0       | 9999  | true    | false
			answered at the deadline: the gate would be closed already        | 0       | 10000 | false   | true
			""")
	void aTermWon(String situation, long sentAtMillis, long nowMillis, boolean granted, boolean tooLateAfter) {
		Claiming<String> claiming = new Claiming<>();
		claiming.tooLate();
		Term won = Term.begun(1, version("held by me"), ms(sentAtMillis));
		assertThat(claiming.grants(won, ms(nowMillis), ms(10_000))).isEqualTo(granted);
		assertThat(claiming.claimedAgainTooLate()).as("a claim made again after one read back too late")
			.isEqualTo(tooLateAfter);
	}

	private static String describe(ClaimStep<String> step) {
		if (step instanceof ClaimStep.Won<String> won) {
			return "won" + ((won.giveBack() != null) ? ", given back by " + won.giveBack() : "");
		}
		ClaimStep.Refused<String> refused = (ClaimStep.Refused<String>) step;
		return describe(refused.refusal()) + ((refused.giveBack() != null) ? ", given back by " + refused.giveBack() : "");
	}

	static String describe(Refusal refusal) {
		return (refusal.answered() ? "refused by the server" : "failed")
				+ (refusal.existedUnseen() ? ", the Lease existed unseen" : "")
				+ (refusal.leaseMissing() ? ", the Lease is missing" : "")
				+ (refusal.looksAgainAtOnce() ? ", looks again at once" : ", looks again later");
	}

}
