package io.leaderelection.engine.rules;

import java.util.Objects;

import io.leaderelection.RevocationCause;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStoreException;

/**
 * The rules every mode keeps, each in one place: a follower that gave a term up stays out first;
 * what a version seen while leading means for the term; how long a leader's request may take;
 * when a replica looks again at once; over which version a release may be written. Functions of
 * their arguments only.
 */
public final class ElectionRules {

	/** A leader's request gets at least this share of a retry period, or is not sent. */
	private static final int SHORTEST_REQUEST_DIVISOR = 16;

	private ElectionRules() {
	}

	/** Whether the failure is a call that got no answer: it may have been carried out. */
	public static boolean noAnswer(Throwable failure) {
		return failure instanceof LeaseStoreException storeFailure && storeFailure.isNoAnswer();
	}

	/**
	 * Whether a replica that lost its term looks at the Lease again at once: after a deletion, to
	 * create it again, and after its gate's deadline, to learn what became of its Lease; after a
	 * take, a conflict or a lost guard, as a follower does.
	 */
	public static boolean looksAgainAtOnceAfter(RevocationCause lost) {
		return lost == RevocationCause.LEASE_DELETED || lost == RevocationCause.RENEW_DEADLINE_PASSED;
	}

	/**
	 * What a follower staying out does: waits until staying out ends; {@code null} when it does
	 * not stay out, and its mode's rules decide.
	 */
	public static FollowerStep.Wait stayOut(Sight sight) {
		return sight.stayingOut() ? new FollowerStep.Wait(sight.stayOutLeftNanos()) : null;
	}

	/**
	 * What a version of the Lease read or told while leading means: {@code null} when the term
	 * goes on (the object acquired, last written by this process, whatever else changed: a label,
	 * an annotation); else why it was lost. Another Lease object, or none, is a deletion; another
	 * process writing under this identity is a conflict; anybody else took it.
	 * @param seen the version; {@code null} when the Lease is missing
	 * @param acquired the version that began the term
	 * @param writtenByUs whether one of this process's writes stored {@code seen}
	 */
	public static RevocationCause lostWhileLeading(LeaseRecord seen, LeaseRecord acquired, boolean writtenByUs,
			String identity) {
		if (seen == null || seen.isOtherObjectThan(acquired)) {
			return RevocationCause.LEASE_DELETED;
		}
		if (writtenByUs) {
			return null;
		}
		return seen.isHeldBy(identity) ? RevocationCause.IDENTITY_CONFLICT : RevocationCause.LEASE_TAKEN;
	}

	/**
	 * Whether a replica whose claim failed looks at the Lease again at once, rather than after a
	 * follower's delay: a claim that got no answer may have been written, and is led on if it was;
	 * a Lease deleted meanwhile is to be created again; a create refused because the Lease exists,
	 * while this replica saw none, is to be read.
	 * @param createdWhileSeenMissing whether the claim created the Lease, which this replica last
	 * saw missing
	 */
	public static boolean looksAgainAtOnceAfterRefusedClaim(Throwable failure, boolean createdWhileSeenMissing) {
		return noAnswer(failure) || failure instanceof LeaseNotFoundException
				|| (failure instanceof LeaseConflictException && createdWhileSeenMissing);
	}

	/**
	 * Whether a version is one of the term being released, so that a release may be written over
	 * it: written by this process, with the term's acquisition (its acquireTime and
	 * leaseTransitions). A renewal answered late may have moved the version; a release never
	 * frees a newer term, ours or another's.
	 * @param acquired the version that began the term
	 * @param writtenByUs whether one of this process's writes stored {@code version}
	 */
	public static boolean ofTheTerm(LeaseRecord version, LeaseRecord acquired, boolean writtenByUs) {
		return writtenByUs && LeaseRecord.sameInstant(version.acquireTime(), acquired.acquireTime())
				&& Objects.equals(version.leaseTransitions(), acquired.leaseTransitions());
	}

	/**
	 * The timeout of a leader's request (a claim counts as one) with this long left before its gate
	 * closes: what is left less a retry period, or half of it when that is more, so that a request
	 * that hangs leaves time for another one and a slow one still gets most of the time; 0 when
	 * that is too short to be of use, and nothing is to be sent.
	 */
	public static long requestTimeout(long untilGateClosesNanos, long retryPeriodNanos) {
		long timeout = Math.max(untilGateClosesNanos - retryPeriodNanos, untilGateClosesNanos / 2);
		return (timeout >= retryPeriodNanos / SHORTEST_REQUEST_DIVISOR) ? timeout : 0;
	}

}
