package io.leaderelection.engine.rules;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.PodReference;

/**
 * What a follower does next, as its mode's rules decide from what it saw: a value, which the mode
 * carries out on the store and the scheduler. The rules that decide it ({@link LeaseRules},
 * {@link ForLifeRules}) send nothing, read no clock and hold no state.
 */
public sealed interface FollowerStep {

	/**
	 * Looks again after this long at most: sooner when a read is due (a follower polls every
	 * retry period or so unless a watch tells of changes) or a watch tells of a change.
	 */
	record Wait(long atMostNanos) implements FollowerStep {

		/** Looks again when a read is due, or a watch tells of a change. */
		static Wait untilNextLook() {
			return new Wait(Long.MAX_VALUE);
		}

	}

	/** The Lease may be claimed, but another member of the group is to claim it first. */
	record WaitForTurn() implements FollowerStep {
	}

	/** The Lease is missing: create it without holder, which opens no gate. */
	record CreateWithoutHolder() implements FollowerStep {
	}

	/**
	 * A claim of ours, whose answer was lost, is stored: lead on it, its term counted from when it
	 * was sent, writing nothing again.
	 */
	record LeadOn(LeaseRecord claimed, long sentAtNanos) implements FollowerStep {
	}

	/**
	 * Writes this replica as holder: an update of the version seen, or a create when
	 * {@code seen} is {@code null}.
	 * @param transitions the leaseTransitions the claim writes
	 * @param detail why, for the log; {@code null} when the reason says all
	 */
	record Claim(LeaseRecord seen, int transitions, Reason reason, String detail) implements FollowerStep {

		/** Why a follower claims. */
		public enum Reason {

			/** The holder released the Lease. */
			RELEASED,

			/** The version seen stayed unchanged for its expiry. */
			EXPIRED,

			/** The kubelet reported that the holder's process ended; {@link #detail} says how. */
			HOLDER_EXITED,

			/** A claim of ours was read back too late to lead on: claimed again, once. */
			READ_BACK_TOO_LATE,

			/** For life: the lock is owned by this replica's own Pod, left by an earlier process in it. */
			OWN_POD_LOCK,

			/** For life: the lock is missing, and has been long enough (or was never seen held). */
			MISSING_LOCK

		}

	}

	/**
	 * Claims when this replica may claim now (it campaigns, balancing and the guard let it);
	 * otherwise takes the other step.
	 */
	record ClaimIfLet(Claim claim, FollowerStep otherwise) implements FollowerStep {
	}

	/** For life: reads the lock's owner Pod (and its Node) and judges whether it is gone. */
	record CheckOwner(LeaseRecord seen, PodReference owner) implements FollowerStep {
	}

	/** For life: deletes the lock seen, with its uid and version as precondition, then creates this replica's. */
	record ReplaceLock(LeaseRecord seen, String because) implements FollowerStep {
	}

}
