package io.leaderelection.engine.rules;

import io.leaderelection.engine.rules.FollowerStep.CheckOwner;
import io.leaderelection.engine.rules.FollowerStep.Claim;
import io.leaderelection.engine.rules.FollowerStep.Claim.Reason;
import io.leaderelection.engine.rules.FollowerStep.ReplaceLock;
import io.leaderelection.engine.rules.FollowerStep.Wait;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.PodReference;

/**
 * A for-life follower's rules (operator-sdk's), as a function of what it saw: a released lock is
 * replaced at once; a lock owned by this very Pod (a restarted container) is continued; a lock of
 * another Pod is replaced once that Pod is gone, and so is a lock deleted without a release, by a
 * hand or a tool, while its Pod lived; a missing lock never seen held is created, at once unless a
 * gap came while it was missing; a Lease that is no lock at all (left by the lease mode, or
 * written by hand) is replaced once released or expired. The engine's for-life mode carries the
 * step out.
 */
public final class ForLifeRules {

	private ForLifeRules() {
	}

	/**
	 * The follower's next step.
	 * @param lock what the lock's owner references say, and since when the lock is missing
	 */
	public static FollowerStep follow(Sight sight, LockSight lock) {
		Wait stayingOut = ElectionRules.stayOut(sight);
		if (stayingOut != null) {
			return stayingOut;
		}
		LeaseRecord seen = sight.seen();
		if (seen == null) {
			if (lock.lastOwner() != null && !lock.lastOwner().equals(lock.ownPod())) {
				return new CheckOwner(lock.heldBeforeMissing(), lock.lastOwner());
			}
			if (lock.untilMissingLongEnoughNanos() <= 0) {
				return new Claim(null, lock.nextTransitions(), Reason.MISSING_LOCK, null);
			}
			return new Wait(lock.untilMissingLongEnoughNanos());
		}
		if (sight.releasedForUs()) {
			return new ReplaceLock(seen, "it was released");
		}
		PodReference owner = lock.owner();
		if (owner == null) {
			if (sight.untilExpiryNanos() <= 0 && !seen.isForLifeLock()) {
				return new ReplaceLock(seen, "it is no for-life lock and expired");
			}
			return new Wait(sight.untilExpiryNanos());
		}
		if (owner.equals(lock.ownPod())) {
			// this Pod's lock, left by an earlier process in it: lead on, with a write that proves it
			return sight.writerConflict() ? Wait.untilNextLook()
					: new Claim(seen, seen.transitions(), Reason.OWN_POD_LOCK, null);
		}
		return new CheckOwner(seen, owner);
	}

	/**
	 * What a for-life follower knows of the lock's owners.
	 *
	 * @param ownPod the Pod this process runs in
	 * @param owner the Pod owning the version seen; {@code null} when it is missing or no lock
	 * @param heldBeforeMissing the version last seen held before the lock went missing; {@code null} when none
	 * @param lastOwner the Pod owning that version; {@code null} when none
	 * @param untilMissingLongEnoughNanos how long until the lock, missing, may be created: 0 when
	 * it was seen missing without a gap, else until a lease duration of unbroken absence has passed
	 * @param nextTransitions the leaseTransitions of a lock created now
	 */
	public record LockSight(PodReference ownPod, PodReference owner, LeaseRecord heldBeforeMissing, PodReference lastOwner,
			long untilMissingLongEnoughNanos, int nextTransitions) {
	}

}
