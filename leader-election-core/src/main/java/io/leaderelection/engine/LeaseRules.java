package io.leaderelection.engine;

import io.leaderelection.engine.FollowerStep.Claim;
import io.leaderelection.engine.FollowerStep.Claim.Reason;
import io.leaderelection.engine.FollowerStep.ClaimIfLet;
import io.leaderelection.engine.FollowerStep.CreateWithoutHolder;
import io.leaderelection.engine.FollowerStep.LeadOn;
import io.leaderelection.engine.FollowerStep.Wait;
import io.leaderelection.engine.FollowerStep.WaitForTurn;

/**
 * A lease-mode follower's rules, client-go's, as a function of what it saw: it claims the Lease
 * when it is free, written by this process, or unchanged for its expiry; creates it without
 * holder when it is missing; otherwise waits for that moment. {@link LeaseMode} carries the step
 * out.
 */
final class LeaseRules {

	private final long renewDeadlineNanos;

	LeaseRules(long renewDeadlineNanos) {
		this.renewDeadlineNanos = renewDeadlineNanos;
	}

	/**
	 * The follower's next step. Between a read and the decision nothing is sent; a claim is an
	 * update at the version seen, so a change meanwhile makes it fail.
	 * @param ownClaim our write since the last term that stored the version seen (a claim whose
	 * answer was lost or came late); {@code null} when none, or when the election only follows
	 * @param claimedAgainTooLate whether the last claim made again, because the one before it was
	 * read back too late, was itself read back too late
	 * @param holderExited why the holder's process has ended, as the kubelet reported; {@code null}
	 * when nothing proves it
	 */
	FollowerStep follow(Sight sight, long now, OwnWrites.Sent ownClaim, boolean claimedAgainTooLate,
			String holderExited) {
		Wait stayingOut = ElectionRules.stayOut(sight);
		if (stayingOut != null) {
			return stayingOut;
		}
		LeaseRecord seen = sight.seen();
		if (seen == null) {
			return new CreateWithoutHolder();
		}
		if (!sight.writerConflict()) {
			if (ownClaim != null && now - (ownClaim.sentAtNanos() + this.renewDeadlineNanos) < 0) {
				return new LeadOn(seen, ownClaim.sentAtNanos());
			}
			if (ownClaim != null && !claimedAgainTooLate) {
				return new Claim(seen, seen.transitions() + 1, Reason.READ_BACK_TOO_LATE, null);
			}
			if (sight.releasedForUs()) {
				return new ClaimIfLet(new Claim(seen, seen.transitions() + 1, Reason.RELEASED, null), new WaitForTurn());
			}
		}
		long untilExpiry = sight.untilExpiryNanos();
		Wait untilExpired = new Wait(untilExpiry);
		if (untilExpiry > 0 && holderExited != null && !sight.writerConflict()) {
			return new ClaimIfLet(new Claim(seen, seen.transitions() + 1, Reason.HOLDER_EXITED, holderExited),
					untilExpired);
		}
		if (untilExpiry <= 0) {
			return new ClaimIfLet(new Claim(seen, seen.transitions() + 1, Reason.EXPIRED, null), new WaitForTurn());
		}
		return untilExpired;
	}

}
