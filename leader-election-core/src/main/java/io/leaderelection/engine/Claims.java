package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.leaderelection.StepDown;
import io.leaderelection.engine.rules.ElectionRules;
import io.leaderelection.engine.rules.OwnWrites;
import io.leaderelection.engine.rules.Term;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's claims of the Lease: the write that names it holder, the claim on its way until
 * its answer comes, and what that answer leads to: a term granted, a term given back (the
 * election stopped or stepped down meanwhile), or another look at the Lease. The mode decided
 * the claim may be sent; its answer, not a watch event, decides what comes next.
 */
final class Claims {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final ElectionLoop loop;

	private final ElectionMode mode;

	private final LeaseStore store;

	private final String identity;

	private final long renewDeadlineNanos;

	private final long retryPeriodNanos;

	private final long renewPeriodNanos;

	/** The claim on its way; read lock-free by the balancer. */
	private volatile Claim onItsWay;

	/** How many claims in a row were read back too late to lead on, and made again. */
	private int tooLateInARow;

	Claims(ElectionLoop loop, ElectionMode mode, LeaseStore store, ElectionSettings settings, String identity) {
		this.loop = loop;
		this.mode = mode;
		this.store = store;
		this.identity = identity;
		this.renewDeadlineNanos = settings.renewDeadline().toNanos();
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
		this.renewPeriodNanos = settings.renewPeriod().toNanos();
	}

	/** Whether a claim is on its way. Lock-free. */
	boolean onItsWay() {
		return this.onItsWay != null;
	}

	/** The leaseTransitions the claim on its way writes; a claim must be on its way. */
	int transitionsOnItsWay() {
		return this.onItsWay.transitions;
	}

	/**
	 * The election stops or steps down while the claim is on its way: the term it may win is
	 * given back, released when {@code write}; a claim must be on its way.
	 */
	Release giveBack(RevocationCause cause, boolean write) {
		Claim claim = this.onItsWay;
		if (claim.giveBack == null) {
			claim.giveBack = this.loop.leadership.giveBackClaim(cause, write);
		}
		else if (write) {
			claim.giveBack.alsoWrite();
		}
		return claim.giveBack;
	}

	/**
	 * Writes this candidate as holder: an update of the version seen, or a create when none.
	 */
	void claim(LeaseRecord seen, int transitions) {
		long sentAt = this.loop.now();
		Instant wallNow = this.loop.wallNow();
		int duration = this.mode.claimedLeaseDurationSeconds();
		LeaseRecord claimed = ((seen != null) ? seen.rewrite(this.identity, duration, wallNow, wallNow, transitions)
				: LeaseRecord.of(this.identity, duration, wallNow, wallNow, transitions))
			.withWindows(this.loop.leadership.windows.toWrite(sentAt));
		OwnWrites.Sent write = this.loop.ownWrites.sent(claimed, sentAt);
		long timeout = timeout();
		Supplier<CompletableFuture<LeaseRecord>> request = (seen != null)
				? () -> this.store.update(claimed, Duration.ofNanos(timeout))
				: () -> this.mode.create(claimed, Duration.ofNanos(timeout));
		Claim sent = new Claim(transitions, seen == null);
		this.onItsWay = sent;
		this.loop.steps.call((seen != null) ? "update" : "create", request, timeout, Steps.ALWAYS,
				(stored, failure) -> {
					this.loop.ownWrites.refusedIf(write, failure);
					claimed(sent, sentAt, stored, failure);
				}, (ex) -> claimed(sent, sentAt, null, ex));
	}

	/** As a leader's request with a whole renew deadline left: a claim answered late still leaves time to renew. */
	long timeout() {
		return ElectionRules.requestTimeout(this.renewDeadlineNanos, this.retryPeriodNanos);
	}

	/** The claim was answered (or not): whatever happened meanwhile, its outcome is dealt with. */
	private void claimed(Claim sent, long sentAt, LeaseRecord stored, Throwable failure) {
		this.onItsWay = null;
		if (failure != null) {
			boolean createdWhileSeenMissing = sent.created && this.loop.observation.lastSeen() == null;
			if (failure instanceof LeaseNotFoundException) {
				this.loop.succeeded();
				this.loop.observeAbsent(this.loop.now());
			}
			else if (failure instanceof LeaseConflictException) {
				this.loop.succeeded();
				if (createdWhileSeenMissing) {
					// A create refused because the Lease exists: it was there when refused, so it has not
					// been missing since, whatever this replica last saw.
					this.loop.observation.existedUnseen();
				}
			}
			else {
				this.loop.failed(failure);
			}
			if (sent.giveBack != null) {
				this.loop.leadership.ended(sent.giveBack, StepDown.Release.NOT_LEADER, null);
			}
			if (this.loop.running()) {
				this.loop.scheduleAttempt(ElectionRules.looksAgainAtOnceAfterRefusedClaim(failure, createdWhileSeenMissing)
						? 0 : this.loop.followerDelay());
			}
			return;
		}
		this.loop.succeeded();
		this.loop.ownWrites.answered(stored);
		this.loop.observe(stored, sentAt);
		Term won = this.loop.leadership.begin(stored, sentAt);
		if (sent.giveBack != null) {
			// Won after a stop or a step-down: give it back without opening the gate.
			this.loop.leadership.giveBack(sent.giveBack, won);
			return;
		}
		grant(won);
	}

	/**
	 * Leads on a version of ours that a claim stored, from when the claim was sent: the claim's
	 * answer was lost, or came too late.
	 */
	void leadOn(LeaseRecord claimed, long sentAtNanos) {
		grant(this.loop.leadership.begin(claimed, sentAtNanos));
	}

	/**
	 * Opens the gate of a term won; the leader's next step follows a renew period after its
	 * acquiring write was sent. A write that took longer than the renew deadline would leave the
	 * gate closed already: the Lease is ours then, and the next attempt reads it and decides.
	 */
	void grant(Term won) {
		long now = this.loop.now();
		if (!won.gateOpenAt(now, this.mode.gateDeadlineNanos())) {
			this.loop.scheduleAttempt(0);
			return;
		}
		this.tooLateInARow = 0;
		this.loop.leadership.grant(won, now);
		this.loop.granted(won);
		this.loop.scheduleAttempt(won.lastRenewStartNanos() + this.renewPeriodNanos - now);
	}

	/**
	 * A version of ours, stored by a claim whose term's gate had closed already when it was read
	 * back (the claim's answer was lost, or came too late), is claimed again.
	 */
	void tooLate() {
		this.tooLateInARow++;
	}

	/**
	 * Whether a claim made again because the one before was read back too late was itself read
	 * back too late: a link slower than the renew deadline, whose claims, made again and again,
	 * would keep the Lease changing so that no follower ever sees it expire. Its version then
	 * waits to expire like anybody's.
	 */
	boolean claimedAgainTooLate() {
		return this.tooLateInARow > 0;
	}

	/** A claim on its way, and what to do with it if it succeeds after a stop or a step-down. */
	private static final class Claim {

		/** The leaseTransitions the claim writes. */
		private final int transitions;

		/** Whether the claim creates the Lease, which this replica last saw missing. */
		private final boolean created;

		private Release giveBack;

		Claim(int transitions, boolean created) {
			this.transitions = transitions;
			this.created = created;
		}

	}

}
