package io.leaderelection.engine.rules;

import io.leaderelection.store.PodReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.engine.rules.FollowerSteps.ms;
import static io.leaderelection.engine.rules.FollowerSteps.told;
import static io.leaderelection.engine.rules.FollowerSteps.version;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A for-life follower's rules as a script: what the replica in Pod "pod-me" saw of the lock and its
 * owners, then the step it takes. Times in milliseconds.
 */
class ForLifeRulesTests {

	private static final PodReference OWN_POD = new PodReference("pod-me", "uid-me");

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                  | seen       | stay out | conflict | released | until expiry | owner  | held before missing | its owner | until missing long enough | step
			a lock of a live-looking Pod has its owner checked             | lock of b  | 0        | false    | false    | 0            | pod-b  | -                   | -         | 0                         | check owner pod-b of b
			a released lock is replaced at once                            | released   | 0        | false    | true     | 15000        | -      | -                   | -         | 0                         | replace lock: it was released
			a lock of this very Pod is led on with a write                 | lock of me | 0        | false    | false    | 0            | pod-me | -                   | -         | 0                         | claim 3 OWN_POD_LOCK
			a lock of this Pod written under a conflict is not led on      | lock of me | 0        | true     | false    | 0            | pod-me | -                   | -         | 0                         | wait for the next look
			a Lease that is no lock is replaced once expired               | held by b  | 0        | false    | false    | 0            | -      | -                   | -         | 0                         | replace lock: it is no for-life lock and expired
			a Lease that is no lock is waited for until it expires         | held by b  | 0        | false    | false    | 4000         | -      | -                   | -         | 0                         | wait at most 4000
			a lock with no owner reference is waited for, never replaced   | lock of b  | 0        | false    | false    | 86400000     | -      | -                   | -         | 0                         | wait at most 86400000
			a missing lock never seen held is created at once              | none       | 0        | false    | false    | 0            | -      | -                   | -         | 0                         | create claimed 4 MISSING_LOCK
			a missing lock seen across a gap waits for unbroken absence    | none       | 0        | false    | false    | 0            | -      | -                   | -         | 12000                     | wait at most 12000
			a lock deleted while its Pod may live has that Pod checked     | none       | 0        | false    | false    | 0            | -      | lock of b           | pod-b     | 0                         | check owner pod-b of b
			a lock of this Pod deleted is created again                    | none       | 0        | false    | false    | 0            | -      | lock of me          | pod-me    | 0                         | create claimed 4 MISSING_LOCK
			staying out comes before a released lock                       | released   | 5000     | false    | true     | 15000        | -      | -                   | -         | 0                         | wait at most 5000
			staying out comes before a missing lock                        | none       | 5000     | false    | false    | 0            | -      | -                   | -         | 0                         | wait at most 5000
			""")
	void aFollowerDecides(String situation, String seen, long stayOutMillis, boolean writerConflict,
			boolean releasedForUs, long untilExpiryMillis, String owner, String heldBeforeMissing, String itsOwner,
			long untilMissingLongEnoughMillis, String step) {
		Sight sight = new Sight(version(seen), ms(stayOutMillis), writerConflict, releasedForUs, ms(untilExpiryMillis));
		ForLifeRules.LockSight lock = new ForLifeRules.LockSight(OWN_POD, pod(owner),
				(heldBeforeMissing != null) ? version(heldBeforeMissing) : null, pod(itsOwner),
				ms(untilMissingLongEnoughMillis), 4);
		assertThat(told(ForLifeRules.follow(sight, lock))).isEqualTo(step);
	}

	private static PodReference pod(String name) {
		return (name == null) ? null : name.equals(OWN_POD.name()) ? OWN_POD : new PodReference(name, "uid-" + name);
	}

}
