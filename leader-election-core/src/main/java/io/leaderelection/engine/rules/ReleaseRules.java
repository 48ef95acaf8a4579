package io.leaderelection.engine.rules;

import io.leaderelection.StepDown;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;

/**
 * The order of a release of our own accord, and where each answer leads. The calls under way
 * drain first. Then, in lease mode, what guards the claim (an older election's key) is given up,
 * so that old replicas may take it at once. Then the release is written over the version of the
 * term released, read again once if that write meets a conflict. Then a lock is deleted. A
 * release is never written once its term is lost, after the gate's deadline, or over a version
 * of another term; when it is not written, the Lease expires, or a lock stays until its Pod ends.
 * Functions of their arguments only.
 */
public final class ReleaseRules {

	private ReleaseRules() {
	}

	/**
	 * The calls under way ended.
	 * @param held whether the term being released is still held
	 * @param write whether the release is to be written, rather than the Lease left to expire
	 * @param guarded whether the mode gives up what guards its claims before releasing
	 * @param notReleasedBecause why the mode's Lease is safe to leave unreleased
	 */
	public static ReleaseStep drained(boolean held, boolean write, boolean guarded, String notReleasedBecause) {
		if (!held) {
			return ReleaseStep.ended(false, StepDown.Release.NOT_WRITTEN,
					"leadership was lost before the leader work ended");
		}
		if (!write) {
			return ReleaseStep.ended(true, StepDown.Release.NOT_WRITTEN,
					"not released (release-on-shutdown is off): " + notReleasedBecause);
		}
		return guarded ? new ReleaseStep.GiveUpGuarded() : new ReleaseStep.Write(true);
	}

	/**
	 * The calls under way outlasted the drain timeout: a lock for life waits on (its Pod's end
	 * frees it), a Lease is left to expire.
	 * @param stillRunning what is still running, for the release's detail
	 * @return {@code null} when the release waits on for the calls
	 */
	public static ReleaseStep.Ended drainRanOut(boolean held, boolean keepsTermUntilWorkEnds, String stillRunning) {
		if (keepsTermUntilWorkEnds) {
			return null;
		}
		return ReleaseStep.ended(held, StepDown.Release.NOT_WRITTEN,
				stillRunning + "the Lease expires a lease duration after its last renewal");
	}

	/** What guards the claim was given up, or failed to be: the release is written if the term is still held. */
	public static ReleaseStep guardGivenUp(boolean held) {
		return held ? new ReleaseStep.Write(true)
				: ReleaseStep.ended(false, StepDown.Release.NOT_WRITTEN, "leadership was lost before the release");
	}

	/**
	 * The release is about to be written with this long left before the gate's deadline: a write
	 * sent after it would come from a replica that may have been replaced.
	 * @return {@code null} when it may be written
	 */
	public static ReleaseStep.Ended beforeWrite(boolean held, long timeLeftNanos) {
		return (timeLeftNanos > 0) ? null
				: ReleaseStep.ended(held, StepDown.Release.NOT_WRITTEN, "the renew deadline passed before the release");
	}

	/**
	 * The release's write was answered: a conflict is read again once (a renewal answered late may
	 * have moved the version); any other failure leaves the Lease to expire.
	 * @param held whether the term released is still held, as only it may be let go
	 * @param failure {@code null} when it was written
	 */
	public static ReleaseStep written(boolean held, Throwable failure, boolean rereadOnConflict) {
		if (failure == null) {
			return new ReleaseStep.Released();
		}
		if (failure instanceof LeaseConflictException && rereadOnConflict) {
			return new ReleaseStep.Reread();
		}
		return ReleaseStep.ended(held, StepDown.Release.NOT_WRITTEN, "the release failed: " + failure.getMessage());
	}

	/**
	 * The Lease was read again after the release met a conflict: written once more only if the
	 * term is still held and the version read is of that term ({@link ElectionRules#ofTheTerm}).
	 * @param ofTheTerm whether the version read is of the term being released; false when none was read
	 */
	public static ReleaseStep reread(boolean held, boolean ofTheTerm) {
		return (held && ofTheTerm) ? new ReleaseStep.Write(false)
				: ReleaseStep.ended(held, StepDown.Release.NOT_WRITTEN,
						"the Lease no longer holds the term being released");
	}

	/** A released Lease is over: it expires at once, and followers take over. */
	public static ReleaseStep leaseReleased() {
		return ReleaseStep.ended(false, StepDown.Release.WRITTEN, null);
	}

	/**
	 * A released lock's deletion was answered: gone or changed (a follower replaced it) is as
	 * good as deleted; otherwise the follower that finds its Pod ended replaces it.
	 */
	public static ReleaseStep lockDeleted(Throwable failure) {
		boolean stillThere = failure != null && !(failure instanceof LeaseNotFoundException)
				&& !(failure instanceof LeaseConflictException);
		return ReleaseStep.ended(false, StepDown.Release.WRITTEN, stillThere
				? "released; the lock could not be deleted: " + failure.getMessage() + "; a follower replaces it" : null);
	}

	/** A claim on its way when the election stopped or stepped down was refused: there is no term to release. */
	public static ReleaseStep claimRefused() {
		return ReleaseStep.ended(false, StepDown.Release.NOT_LEADER, null);
	}

	/** A released lock's deletion threw: the follower that finds the lock's Pod ended replaces it. */
	public static ReleaseStep lockDeletionThrew(RuntimeException ex) {
		return ReleaseStep.ended(false, StepDown.Release.WRITTEN, "released; the lock could not be deleted: " + ex);
	}

	/** A step of the release threw: it ends unwritten, and the Lease expires; only the term released is let go. */
	public static ReleaseStep threw(boolean held, RuntimeException ex) {
		return ReleaseStep.ended(held, StepDown.Release.NOT_WRITTEN, "the release failed: " + ex);
	}

	/**
	 * A claim on its way when the election stopped or stepped down won: its term is released once
	 * the calls of an earlier term have ended, or, when the stop does not release, left to expire.
	 * @return {@code null} when it waits for the calls, then is released
	 */
	public static ReleaseStep claimWonWhileStopping(boolean write) {
		return write ? null
				: ReleaseStep.ended(true, StepDown.Release.NOT_WRITTEN, "a claim won while stopping is left to expire");
	}

}
