package io.leaderelection.engine.rules;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.rules.FollowerStep.Claim;
import io.leaderelection.engine.rules.FollowerStep.Claim.Reason;
import io.leaderelection.engine.rules.FollowerStep.ClaimIfLet;
import io.leaderelection.engine.rules.FollowerStep.CreateWithoutHolder;
import io.leaderelection.engine.rules.FollowerStep.LeadOn;
import io.leaderelection.engine.rules.FollowerStep.Wait;
import io.leaderelection.engine.rules.FollowerStep.WaitForTurn;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;

/**
 * A lease-mode follower's rules, client-go's, as a function of what it saw: it claims the Lease
 * when it is free, written by this process, or unchanged for its expiry; creates it without
 * holder when it is missing; otherwise waits for that moment. The engine's lease mode carries
 * the step out.
 */
public final class LeaseRules {

	private final long renewDeadlineNanos;

	private final long retryPeriodNanos;

	private final long renewPeriodNanos;

	public LeaseRules(long renewDeadlineNanos, long retryPeriodNanos, long renewPeriodNanos) {
		this.renewDeadlineNanos = renewDeadlineNanos;
		this.retryPeriodNanos = retryPeriodNanos;
		this.renewPeriodNanos = renewPeriodNanos;
	}

	/**
	 * The follower's next step. Between a read and the decision nothing is sent; a claim is an
	 * update at the version seen, so a change meanwhile makes it fail.
	 * @param ownClaimSentAtNanos when our write that stored the version seen was sent, if it was
	 * sent since the last term (a claim whose answer was lost or came late); {@code null} when
	 * none, or when the election only follows
	 * @param claimedAgainTooLate whether the last claim made again, because the one before it was
	 * read back too late, was itself read back too late
	 * @param holderExited why the holder's process has ended, as the kubelet reported; {@code null}
	 * when nothing proves it
	 */
	public FollowerStep follow(Sight sight, long now, Long ownClaimSentAtNanos, boolean claimedAgainTooLate,
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
			if (ownClaimSentAtNanos != null && now - (ownClaimSentAtNanos + this.renewDeadlineNanos) < 0) {
				return new LeadOn(seen, ownClaimSentAtNanos);
			}
			if (ownClaimSentAtNanos != null && !claimedAgainTooLate) {
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

	/**
	 * When a leader whose renewal sent at {@code sentAt} was stored writes again: a renew period
	 * after it was sent, or at once when once-per-window runs started meanwhile wait to be stored.
	 */
	public LeaderStep.WriteAgainIn renewed(long sentAt, long now, boolean runsUnrecorded) {
		return new LeaderStep.WriteAgainIn(runsUnrecorded ? 0 : sentAt + this.renewPeriodNanos - now);
	}

	/**
	 * Why a leader whose renewal was stored ends its term now, with its gate open: what the guard
	 * guards is no longer its own, or the Lease names another preferred holder than at the grant
	 * (an administrator's ask to hand over); {@code null} when it leads on.
	 */
	public static RevocationCause endsAfterRenewal(boolean guardHeld, LeaseRecord stored, String identity,
			String preferredHolderAtGrant) {
		if (!guardHeld) {
			return RevocationCause.MIGRATION_KEY_LOST;
		}
		if (stored.prefersOtherThan(identity) && !stored.preferredHolder().equals(preferredHolderAtGrant)) {
			return RevocationCause.PREFERRED_HOLDER;
		}
		return null;
	}

	/**
	 * What a leader does after a renewal (or the read after a conflict) failed: a deleted Lease is
	 * lost; a conflict is read once, the first time; any other failure is retried while the gate
	 * is open, at once when it got no answer (its time is spent already), else after a retry
	 * period.
	 * @param afterConflict whether the request failed was made after a conflict already
	 */
	public LeaderStep renewalFailed(Throwable failure, boolean afterConflict, long untilGateClosesNanos) {
		if (failure instanceof LeaseNotFoundException) {
			return new LeaderStep.Lose(RevocationCause.LEASE_DELETED);
		}
		if (failure instanceof LeaseConflictException && !afterConflict) {
			return new LeaderStep.ReadThenRenew();
		}
		return retry(failure, untilGateClosesNanos);
	}

	/**
	 * What a leader does after the read that follows a conflict failed: retries while the gate is
	 * open, at once when it got no answer, else after a retry period.
	 */
	public LeaderStep readFailed(Throwable failure, long untilGateClosesNanos) {
		return retry(failure, untilGateClosesNanos);
	}

	private LeaderStep retry(Throwable failure, long untilGateClosesNanos) {
		if (untilGateClosesNanos <= 0) {
			return new LeaderStep.Lose(RevocationCause.RENEW_DEADLINE_PASSED);
		}
		return new LeaderStep.WriteAgainIn(
				ElectionRules.noAnswer(failure) ? 0 : Math.min(this.retryPeriodNanos, untilGateClosesNanos));
	}

}
