package io.leaderelection.engine.rules;

import io.leaderelection.RevocationCause;
import io.leaderelection.store.LeaseRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.engine.rules.FollowerSteps.ms;
import static io.leaderelection.engine.rules.FollowerSteps.told;
import static io.leaderelection.engine.rules.FollowerSteps.version;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lease mode's rules as scripts: what replica "me" saw or was answered, then the step it takes.
 * Times in milliseconds; now is 100000, the renew deadline 10000, the retry period 2000, the renew
 * period 5000.
 */
class LeaseRulesTests {

	private static final long NOW = ms(100_000);

	private final LeaseRules rules = new LeaseRules(ms(10_000), ms(2_000), ms(5_000));

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                | seen        | stay out | conflict | released | until expiry | own claim sent at | claimed again too late | holder exited          | step
			a Lease held and renewed is waited for until it expires      | held by b   | 0        | false    | false    | 2000         | -                 | false                  | -                      | wait at most 2000
			a version unchanged for its expiry is claimed                | held by b   | 0        | false    | false    | 0            | -                 | false                  | -                      | claim 4 EXPIRED if let, else wait for turn
			a version long expired is claimed as well                    | held by b   | 0        | false    | false    | -9000        | -                 | false                  | -                      | claim 4 EXPIRED if let, else wait for turn
			a released Lease is claimed at once                          | released    | 0        | false    | true     | 15000        | -                 | false                  | -                      | claim 4 RELEASED if let, else wait for turn
			a Lease found free, not released, waits for its expiry       | free        | 0        | false    | false    | 15000        | -                 | false                  | -                      | wait at most 15000
			a missing Lease is created without holder                    | none        | 0        | false    | false    | 0            | -                 | false                  | -                      | create without holder
			staying out comes before anything                            | held by b   | 3000     | false    | false    | -1           | -                 | false                  | -                      | wait at most 3000
			staying out comes before a release                           | released    | 3000     | false    | true     | 15000        | -                 | false                  | -                      | wait at most 3000
			staying out comes before a missing Lease                     | none        | 3000     | false    | false    | 0            | -                 | false                  | -                      | wait at most 3000
			a claim of ours read back in time is led on, not written     | held by me  | 0        | false    | false    | 15000        | 95000             | false                  | -                      | lead on own claim sent at 95000
			a claim read back just in time is led on                     | held by me  | 0        | false    | false    | 15000        | 90001             | false                  | -                      | lead on own claim sent at 90001
			a claim read back at its gate's deadline is claimed again    | held by me  | 0        | false    | false    | 15000        | 90000             | false                  | -                      | claim 4 READ_BACK_TOO_LATE
			a claim made again and read back too late again waits        | held by me  | 0        | false    | false    | 15000        | 80000             | true                   | -                      | wait at most 15000
			a version of ours not sent since the last term waits         | held by me  | 0        | false    | false    | 6000         | -                 | false                  | -                      | wait at most 6000
			a conflicting writer under our name is never led on          | held by me  | 0        | true     | false    | 15000        | 95000             | false                  | -                      | wait at most 15000
			a conflicting writer's release is not taken at once          | released    | 0        | true     | true     | 15000        | -                 | false                  | -                      | wait at most 15000
			a conflicting writer's version is claimed once expired       | held by me  | 0        | true     | false    | 0            | -                 | false                  | -                      | claim 4 EXPIRED if let, else wait for turn
			a holder whose process ended is claimed before expiry        | held by b   | 0        | false    | false    | 9000         | -                 | false                  | container terminated   | claim 4 HOLDER_EXITED (container terminated) if let, else wait at most 9000
			an ended holder seen with a conflicting writer is waited for | held by b   | 0        | true     | false    | 9000         | -                 | false                  | container terminated   | wait at most 9000
			an ended holder's expired version is claimed as expired      | held by b   | 0        | false    | false    | 0            | -                 | false                  | container terminated   | claim 4 EXPIRED if let, else wait for turn
			""")
	void aFollowerDecides(String situation, String seen, long stayOutMillis, boolean writerConflict,
			boolean releasedForUs, long untilExpiryMillis, Long ownClaimSentAtMillis, boolean claimedAgainTooLate,
			String holderExited, String step) {
		Sight sight = new Sight(version(seen), ms(stayOutMillis), writerConflict, releasedForUs, ms(untilExpiryMillis));
		Long ownClaimSentAt = (ownClaimSentAtMillis != null) ? ms(ownClaimSentAtMillis) : null;
		assertThat(told(this.rules.follow(sight, NOW, ownClaimSentAt, claimedAgainTooLate, holderExited))).isEqualTo(step);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                  | failure   | after a conflict | until the gate closes | step
			a deleted Lease is lost                                        | not found | false            | 5000                  | lose LEASE_DELETED
			a deleted Lease is lost, whatever the deadline                 | not found | false            | -100                  | lose LEASE_DELETED
			a conflict is read once, to renew on a version still ours      | conflict  | false            | 5000                  | read then renew
			a conflict after that read is retried after a retry period     | conflict  | true             | 5000                  | write again in 2000
			a request with no answer spent its time: retried at once       | no answer | false            | 5000                  | write again in 0
			a refusal is retried after a retry period                      | refused   | false            | 5000                  | write again in 2000
			a refusal close to the deadline is retried before the gate closes | refused | false           | 700                   | write again in 700
			nothing is retried once the gate closed                        | no answer | false            | 0                     | lose RENEW_DEADLINE_PASSED
			""")
	void aLeadersRenewalFails(String situation, String failure, boolean afterConflict, long untilGateClosesMillis,
			String step) {
		assertThat(told(this.rules.renewalFailed(FollowerSteps.failure(failure), afterConflict, ms(untilGateClosesMillis))))
			.isEqualTo(step);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                  | failure   | until the gate closes | step
			the read after a conflict that fails is retried              | refused   | 5000                  | write again in 2000
			a read with no answer is retried at once                     | no answer | 5000                  | write again in 0
			a read refused as not found is retried, not taken as deleted | not found | 5000                  | write again in 2000
			nothing is retried once the gate closed                      | refused   | 0                     | lose RENEW_DEADLINE_PASSED
			""")
	void aLeadersReadAfterAConflictFails(String situation, String failure, long untilGateClosesMillis, String step) {
		assertThat(told(this.rules.readFailed(FollowerSteps.failure(failure), ms(untilGateClosesMillis))))
			.isEqualTo(step);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                 | guard held | preferred holder | preferred at the grant | term ends for
			a renewed term goes on                                        | true       | -                | -                      | -
			a guard lost ends it                                          | false      | -                | -                      | MIGRATION_KEY_LOST
			another preferred holder named since the grant ends it        | true       | b                | -                      | PREFERRED_HOLDER
			another preferred holder named before the grant does not      | true       | b                | b                      | -
			this replica named preferred holder does not                  | true       | me               | -                      | -
			""")
	void aLeadersRenewalIsStored(String situation, boolean guardHeld, String preferredHolder, String preferredAtGrant,
			RevocationCause ends) {
		LeaseRecord stored = new LeaseRecord("me", 15, FollowerSteps.RENEWED, FollowerSteps.RENEWED, 3, preferredHolder,
				"uid-1", "8", null);
		assertThat(LeaseRules.endsAfterRenewal(guardHeld, stored, "me", preferredAtGrant)).isEqualTo(ends);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                      | sent at | runs unrecorded | step
			renewed: written again a renew period after it was sent           | 99000   | false           | write again in 4000
			answered late: written again sooner                                | 96000   | false           | write again in 1000
			once-per-window runs started meanwhile are written at once         | 99000   | true            | write again in 0
			""")
	void aLeadersRenewalIsAnswered(String situation, long sentAtMillis, boolean runsUnrecorded, String step) {
		assertThat(told(this.rules.renewed(ms(sentAtMillis), NOW, runsUnrecorded))).isEqualTo(step);
	}

}
