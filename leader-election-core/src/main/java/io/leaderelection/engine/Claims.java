package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.rules.ClaimStep;
import io.leaderelection.engine.rules.Claiming;
import io.leaderelection.engine.rules.ElectionRules;
import io.leaderelection.engine.rules.OwnWrites;
import io.leaderelection.engine.rules.ReleaseRules;
import io.leaderelection.engine.rules.Term;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;

/**
 * Sends this replica's claims of the Lease, the writes that name it holder, and carries out what
 * their answers lead to, as {@link Claiming} decides: a term granted, a term given back (the
 * election stopped or stepped down meanwhile), or another look at the Lease. The mode decided
 * the claim may be sent.
 */
final class Claims {

	private final ElectionLoop loop;

	private final ElectionMode mode;

	private final LeaseStore store;

	private final String identity;

	private final long renewDeadlineNanos;

	private final long retryPeriodNanos;

	private final long renewPeriodNanos;

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
		return this.loop.core.claiming().onItsWay();
	}

	/**
	 * The election stops or steps down while the claim is on its way: the term it may win is
	 * given back, released when {@code write}; a claim must be on its way.
	 */
	Release giveBack(RevocationCause cause, boolean write) {
		Claiming<Release> claiming = this.loop.core.claiming();
		Release made = claiming.givenBackBy();
		if (made == null) {
			made = this.loop.leadership.giveBackClaim(cause, write);
			claiming.giveBack(made);
		}
		else if (write) {
			made.alsoWrite();
		}
		return made;
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
			.withWindows(this.loop.core.windows().toWrite(sentAt));
		OwnWrites.Sent write = this.loop.core.ownWrites().sent(claimed, sentAt);
		long timeout = timeout();
		Supplier<CompletableFuture<LeaseRecord>> request = (seen != null)
				? () -> this.store.update(claimed, Duration.ofNanos(timeout))
				: () -> this.mode.create(claimed, Duration.ofNanos(timeout));
		Claiming.Sent<Release> sent = this.loop.core.claiming().send(transitions, seen == null);
		this.loop.steps.call((seen != null) ? "update" : "create", request, timeout, Steps.ALWAYS,
				(stored, failure) -> {
					this.loop.core.ownWrites().refusedIf(write, failure);
					claimed(sent, sentAt, stored, failure);
				}, (ex) -> claimed(sent, sentAt, null, ex));
	}

	/** As a leader's request with a whole renew deadline left: a claim answered late still leaves time to renew. */
	long timeout() {
		return ElectionRules.requestTimeout(this.renewDeadlineNanos, this.retryPeriodNanos);
	}

	/** The claim was answered (or not): whatever happened meanwhile, its outcome is dealt with. */
	private void claimed(Claiming.Sent<Release> sent, long sentAt, LeaseRecord stored, Throwable failure) {
		boolean seenMissing = this.loop.core.observation().lastSeen() == null;
		ClaimStep<Release> step = this.loop.core.claiming().answered(sent, failure, seenMissing);
		if (step instanceof ClaimStep.Refused<Release> refused) {
			this.loop.refused(refused.refusal(), failure);
			if (refused.giveBack() != null) {
				this.loop.leadership.carryOut(refused.giveBack(), ReleaseRules.claimRefused());
			}
			if (this.loop.running()) {
				this.loop.scheduleAttempt(refused.refusal().looksAgainAtOnce() ? 0 : this.loop.followerDelay());
			}
			return;
		}
		Release giveBack = ((ClaimStep.Won<Release>) step).giveBack();
		this.loop.succeeded();
		this.loop.core.ownWrites().answered(stored);
		this.loop.observe(stored, sentAt);
		Term won = this.loop.leadership.begin(stored, sentAt);
		if (giveBack != null) {
			// Won after a stop or a step-down: give it back without opening the gate.
			this.loop.leadership.giveBack(giveBack, won);
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
		if (!this.loop.core.claiming().grants(won, now, this.mode.gateDeadlineNanos())) {
			this.loop.scheduleAttempt(0);
			return;
		}
		this.loop.leadership.grant(won, now);
		this.loop.granted(won);
		this.loop.scheduleAttempt(won.lastRenewStartNanos() + this.renewPeriodNanos - now);
	}

}
