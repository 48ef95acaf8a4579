package io.leaderelection.engine.rules;

import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;

/**
 * What a follower's write that did not succeed tells, and when the follower looks at the Lease
 * again.
 * @param answered the server answered with a refusal, so the call itself worked, rather than failed
 * @param leaseMissing the Lease was deleted meanwhile
 * @param existedUnseen a create was refused because the Lease exists, while this replica saw it
 * missing: it has not been missing since, whatever this replica last saw
 * @param looksAgainAtOnce at once, rather than after a follower's delay
 */
public record Refusal(boolean answered, boolean leaseMissing, boolean existedUnseen, boolean looksAgainAtOnce) {

	/**
	 * A claim refused or unanswered ({@link ElectionRules#looksAgainAtOnceAfterRefusedClaim}).
	 * @param createdWhileSeenMissing whether the claim created the Lease, which this replica last
	 * saw missing
	 */
	public static Refusal ofClaim(Throwable failure, boolean createdWhileSeenMissing) {
		return new Refusal(failure instanceof LeaseNotFoundException || failure instanceof LeaseConflictException,
				failure instanceof LeaseNotFoundException, failure instanceof LeaseConflictException && createdWhileSeenMissing,
				ElectionRules.looksAgainAtOnceAfterRefusedClaim(failure, createdWhileSeenMissing));
	}

	/**
	 * A create without holder of a Lease seen missing, refused or unanswered: another created it
	 * meanwhile, and it is read at once; one without answer may have been written, and is read at
	 * once too.
	 */
	public static Refusal ofCreateWithoutHolder(Throwable failure) {
		boolean exists = failure instanceof LeaseConflictException;
		return new Refusal(exists, false, exists, exists || ElectionRules.noAnswer(failure));
	}

	/**
	 * The deletion of a lock judged gone, refused or unanswered (one already gone counts as
	 * deleted, and is no refusal): written, or deleted and created again, since it was judged, it
	 * is judged again at once.
	 */
	public static Refusal ofLockDeletion(Throwable failure) {
		boolean changed = failure instanceof LeaseConflictException;
		return new Refusal(changed, false, false, changed);
	}

}
