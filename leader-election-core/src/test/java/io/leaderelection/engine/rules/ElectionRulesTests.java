package io.leaderelection.engine.rules;

import java.time.Instant;

import io.leaderelection.RevocationCause;
import io.leaderelection.store.LeaseRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.engine.rules.FollowerSteps.ms;
import static io.leaderelection.engine.rules.FollowerSteps.version;
import static org.assertj.core.api.Assertions.assertThat;

/** The rules every mode keeps, as scripts: a version seen by leader "me", and a request's time. */
class ElectionRulesTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                   | seen                 | written by us | term goes on, or lost
			the version our last write stored goes on                       | held by me           | true          | -
			a missing Lease was deleted                                     | none                 | false         | LEASE_DELETED
			another object, even one our write stored, was deleted          | held by me in uid-2  | true          | LEASE_DELETED
			another object held by another was deleted, not taken           | held by b in uid-2   | false         | LEASE_DELETED
			our name written by another process is a conflict               | held by me           | false         | IDENTITY_CONFLICT
			another holder took it                                          | held by b            | false         | LEASE_TAKEN
			a release by another hand is a take too                         | released             | false         | LEASE_TAKEN
			""")
	void aVersionSeenWhileLeading(String situation, String seen, boolean writtenByUs, RevocationCause lost) {
		assertThat(ElectionRules.lostWhileLeading(version(seen), version("held by me"), writtenByUs, "me"))
			.isEqualTo(lost);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                             | until the gate closes | retry period | timeout
			a whole renew deadline left: all but a retry period       | 10000                 | 2000         | 8000
			little left: half of it, more than less a retry period    | 3000                  | 2000         | 1500
			just enough to be of use: a sixteenth of a retry period   | 250                   | 2000         | 125
			too little to be of use: nothing is sent                  | 248                   | 2000         | 0
			the gate closed: nothing is sent                          | 0                     | 2000         | 0
			the gate closed long ago: nothing is sent                 | -5000                 | 2000         | 0
			""")
	void aLeadersRequestTimeout(String situation, long untilGateClosesMillis, long retryPeriodMillis,
			long timeoutMillis) {
		assertThat(ElectionRules.requestTimeout(ms(untilGateClosesMillis), ms(retryPeriodMillis)))
			.isEqualTo(ms(timeoutMillis));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                     | failure   | created while seen missing | looks again at once
			a claim that got no answer may be stored: read at once to lead on it | no answer | false                      | true
			a Lease deleted under the claim is created again at once          | not found | false                      | true
			a create refused, the Lease unseen, is read at once               | conflict  | true                       | true
			an update refused by another's write waits a follower's delay     | conflict  | false                      | false
			a refusal waits a follower's delay                                | refused   | false                      | false
			""")
	void aClaimFails(String situation, String failure, boolean createdWhileSeenMissing, boolean atOnce) {
		assertThat(ElectionRules.looksAgainAtOnceAfterRefusedClaim(FollowerSteps.failure(failure),
				createdWhileSeenMissing)).isEqualTo(atOnce);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                | written by us | acquired at | transitions | of the term
			our renewal of the term may be released                      | true          | 06:00:00    | 3           | true
			another process's version is never released                  | false         | 06:00:00    | 3           | false
			our version of a later acquisition is another term            | true          | 06:00:05    | 3           | false
			our version with other transitions is another term            | true          | 06:00:00    | 4           | false
			""")
	void aVersionBeforeARelease(String situation, boolean writtenByUs, String acquiredAt, int transitions,
			boolean ofTheTerm) {
		Instant acquired = Instant.parse("2026-11-29T06:00:00Z");
		Instant versionAcquired = Instant.parse("2026-11-29T" + acquiredAt + "Z");
		LeaseRecord version = new LeaseRecord("me", 15, versionAcquired, versionAcquired.plusSeconds(9), transitions,
				null, "uid-1", "9", null);
		LeaseRecord term = new LeaseRecord("me", 15, acquired, acquired, 3, null, "uid-1", "5", null);
		assertThat(ElectionRules.ofTheTerm(version, term, writtenByUs)).isEqualTo(ofTheTerm);
	}

}
