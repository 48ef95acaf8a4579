package io.leaderelection.engine;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.engine.FollowerSteps.ms;
import static io.leaderelection.engine.FollowerSteps.told;
import static io.leaderelection.engine.FollowerSteps.version;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease-mode follower's rules as a script: what replica "me" saw, then the step it takes. Times
 * in milliseconds; now is 100000, the renew deadline 10000.
 */
class LeaseRulesTests {

	private static final long NOW = ms(100_000);

	private final LeaseRules rules = new LeaseRules(ms(10_000));

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
		OwnWrites.Sent ownClaim = (ownClaimSentAtMillis != null)
				? new OwnWrites.Sent(FollowerSteps.RENEWED, ms(ownClaimSentAtMillis), 0) : null;
		assertThat(told(this.rules.follow(sight, NOW, ownClaim, claimedAgainTooLate, holderExited))).isEqualTo(step);
	}

}
