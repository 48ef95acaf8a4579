package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.rules.FollowerStep;
import io.leaderelection.engine.rules.LeaseRules;
import io.leaderelection.engine.rules.Observation;
import io.leaderelection.engine.rules.Refusal;
import io.leaderelection.engine.rules.ReleaseRules;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim rules of an election on a renewed Lease, client-go's: a follower takes the Lease
 * once it has seen one version unchanged for the holder's lease duration, or released by its
 * holder, by a write at that version; the leader renews it every renew period and its gate closes
 * a renew deadline after the start of its last successful renewal.
 * <p>
 * A missing Lease is never created with a holder: a follower that finds it missing creates it
 * without one, at once, which opens no gate, and claims that version like any other once it has
 * stayed unchanged long enough. A create has nothing to compare, so a holder created after an
 * absence would rest on having seen the absence throughout, which no reader can: between two
 * reads, or before a pause or a cut, the Lease may have been created, held and deleted unseen.
 * A version rests on its compare-and-swap alone.
 * <p>
 * A {@link ClaimGuard} composes over these rules: what it guards is claimed before the Lease,
 * checked at every renewal, and given up after the drain, before the release.
 */
final class LeaseMode implements ElectionMode {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final ElectionLoop loop;

	private final ElectionSettings settings;

	private final String identity;

	private final LeaseStore store;

	private final ClaimGuard guard;

	private final ExitTakeover exitTakeover;

	private final long leaseDurationNanos;

	private final long renewDeadlineNanos;

	private final long retryPeriodNanos;

	private final long renewPeriodNanos;

	/** Whether what the guard guards is being claimed, before the Lease. */
	private boolean claimingGuarded;

	private final LeaseRules rules;

	private final LeaseRenewals renewals;

	LeaseMode(ElectionLoop loop, ElectionSettings settings, String identity, LeaseStore store, ClaimGuard guard) {
		this.loop = loop;
		this.settings = settings;
		this.identity = identity;
		this.store = store;
		this.guard = guard;
		this.exitTakeover = new ExitTakeover(store.holderExits(),
				() -> loop.steps.later(() -> followedChanged(loop.now())));
		this.leaseDurationNanos = settings.leaseDuration().toNanos();
		this.renewDeadlineNanos = settings.renewDeadline().toNanos();
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
		this.renewPeriodNanos = settings.renewPeriod().toNanos();
		this.rules = new LeaseRules(this.renewDeadlineNanos, this.retryPeriodNanos, this.renewPeriodNanos);
		this.renewals = new LeaseRenewals(loop, settings, identity, store, guard, this.rules);
	}

	@Override
	public long gateDeadlineNanos() {
		return this.renewDeadlineNanos;
	}

	@Override
	public void start() {
		this.guard.start(this.loop::followedChanged);
	}

	@Override
	public void stop() {
		this.guard.stop();
		this.exitTakeover.stop();
	}

	/**
	 * Decides with {@link LeaseRules} on what was seen, and carries the step out. A streak of
	 * failed writes ends only when a write succeeds or there is nothing to claim, not when a read
	 * succeeds, so that a candidate that can read but never write (a missing namespace, no create
	 * permission) keeps failing.
	 */
	@Override
	public void decide(long now) {
		LeaseRecord judged = this.loop.core.judged(now);
		String holderExited = (judged != null) ? this.exitTakeover.holderEnded(judged, this.identity) : null;
		carryOut(this.loop.core.followLease(this.rules, now, this.loop.campaigning(), holderExited), now);
	}

	private void carryOut(FollowerStep step, long now) {
		if (step instanceof FollowerStep.Wait wait) {
			this.loop.waitAtMost(wait.atMostNanos());
		}
		else if (step instanceof FollowerStep.WaitForTurn) {
			this.loop.waitForTurn();
		}
		else if (step instanceof FollowerStep.CreateWithoutHolder) {
			createWithoutHolder();
		}
		else if (step instanceof FollowerStep.LeadOn lead) {
			// stored, so its term runs from when it was sent, as if it had been answered
			this.loop.core.ownWrites().answered(lead.claimed());
			this.loop.succeeded();
			this.loop.claims.leadOn(lead.claimed(), lead.sentAtNanos());
		}
		else if (step instanceof FollowerStep.ClaimIfLet claimIfLet) {
			carryOut(mayClaim(now) ? claimIfLet.claim() : claimIfLet.otherwise(), now);
		}
		else if (step instanceof FollowerStep.Claim claim) {
			carryOut(claim);
		}
		else {
			throw new IllegalStateException("Not a lease-mode step: " + step);
		}
	}

	private void carryOut(FollowerStep.Claim claim) {
		LeaseRecord seen = claim.seen();
		switch (claim.reason()) {
			case READ_BACK_TOO_LATE -> {
				this.loop.core.ownWrites().answered(seen);
				this.loop.succeeded();
				this.loop.core.claiming().tooLate();
			}
			case EXPIRED -> this.loop.core.oneWriter().end("its last version naming '" + this.identity + "' expired");
			case HOLDER_EXITED -> logger.info("{} claims {} of election '{}' held by '{}' at once: {}", this.identity,
					this.store.describe(), this.settings.name(), seen.holderIdentity(), claim.detail());
			default -> {
			}
		}
		claim(seen, claim.transitions());
	}

	/**
	 * Creates the missing Lease with no holder, for as long as the longer of our lease duration
	 * and that of the last holder seen, so that every follower waits that long before claiming
	 * it. Its answer is a look at the Lease like a read's.
	 */
	private void createWithoutHolder() {
		Observation observation = this.loop.core.observation();
		long seconds = (observation.missingHoldersLeaseDurationNanos() + 999_999_999) / 1_000_000_000;
		LeaseRecord free = LeaseRecord.of(null, (int) Math.min(Integer.MAX_VALUE - 1, seconds), null, null,
				Math.max(0, observation.highestTransitionsSeen()))
			.withWindows(this.loop.core.windows().toWrite(this.loop.now()));
		long timeout = this.renewDeadlineNanos;
		this.loop.steps.lookOnItsWay();
		this.loop.steps.call("create", () -> this.store.create(free, Duration.ofNanos(timeout)), timeout,
				this.loop.steps.attemptSequence(), (stored, failure) -> {
					this.loop.steps.lookAnswered();
					if (failure == null) {
						this.loop.succeeded();
						long now = this.loop.now();
						this.loop.observe(stored, now);
						this.loop.following.watchFrom(now);
						decide(now);
						return;
					}
					Refusal refusal = Refusal.ofCreateWithoutHolder(failure);
					this.loop.refused(refusal, failure);
					this.loop.scheduleAttempt(refusal.looksAgainAtOnce() ? 0 : this.loop.followerDelay());
				});
	}

	/**
	 * Whether the loop campaigns rather than only following the Lease, balancing lets this
	 * replica claim the free Lease now (always, when it is not balanced), and the guard lets it:
	 * what it guards is this replica's, or may be claimed.
	 */
	private boolean mayClaim(long now) {
		return this.loop.campaigning() && this.loop.balancerLetsClaim(now) && this.guard.permitsClaim(now);
	}

	/** Claims the Lease, claiming first what the guard guards unless this replica holds it. */
	private void claim(LeaseRecord seen, int transitions) {
		if (this.claimingGuarded) {
			return;
		}
		if (!this.guard.held()) {
			claimGuardedThenLease(seen, transitions);
			return;
		}
		this.loop.claims.claim(seen, transitions);
	}

	private void claimGuardedThenLease(LeaseRecord seen, int transitions) {
		if (!this.guard.permitsClaim(this.loop.now())) {
			// a claim at once (a claim of ours read back lost) needs it as much as any other
			this.loop.waitAtMost(Long.MAX_VALUE);
			return;
		}
		long timeout = this.loop.claims.timeout();
		this.claimingGuarded = true;
		this.loop.steps.call("write", () -> this.guard.claim(Duration.ofNanos(timeout)), timeout, Steps.ALWAYS,
				(ignored, failure) -> guardedClaimed(seen, transitions, failure),
				(ex) -> guardedClaimed(seen, transitions, ex));
	}

	private void guardedClaimed(LeaseRecord seen, int transitions, Throwable failure) {
		this.claimingGuarded = false;
		if (failure != null) {
			this.loop.failed(failure);
			this.loop.scheduleAttempt(this.loop.followerDelay());
		}
		else if (!this.loop.running()) {
			// stopped while it was claimed: given back at once, as nothing was led
			this.guard.removeIfOurs(Duration.ofNanos(this.renewDeadlineNanos));
		}
		else {
			this.loop.claims.claim(seen, transitions);
		}
	}

	@Override
	public boolean mayDecideAgain() {
		return !this.claimingGuarded;
	}

	@Override
	public boolean decidesOnWatchAlone() {
		return false;
	}

	/**
	 * What the guard guards may have become claimable, or stopped being this replica's: a leader
	 * without it loses its gate at once; a follower waiting for it decides again.
	 */
	@Override
	public void followedChanged(long now) {
		if (this.loop.leadership.holdsOpenTerm() && !this.guard.held()) {
			this.loop.lose(RevocationCause.MIGRATION_KEY_LOST);
			return;
		}
		if (this.loop.following.mayDecideAgain(now) && mayClaim(now)) {
			this.loop.following.decideAgain(now);
		}
	}

	// ---- leading

	@Override
	public void lead(long now, long sequence) {
		this.exitTakeover.stop();
		this.renewals.renew(now, sequence, false);
	}

	@Override
	public boolean watchesWhileLeading() {
		return false;
	}

	@Override
	public boolean writesWindows() {
		return true;
	}

	@Override
	public void writeSoon() {
		this.renewals.writeSoon();
	}

	// ---- claiming and releasing

	@Override
	public int claimedLeaseDurationSeconds() {
		return this.settings.leaseDurationSeconds();
	}

	@Override
	public CompletableFuture<LeaseRecord> create(LeaseRecord claimed, Duration timeout) {
		return this.store.create(claimed, timeout);
	}

	@Override
	public boolean guardsClaims() {
		return this.guard != ClaimGuard.NONE;
	}

	/** What the guard guards is given up once drained: old replicas may take it at once. */
	@Override
	public CompletableFuture<Void> giveUpGuarded(Duration timeout) {
		return this.guard.removeIfOurs(timeout).whenComplete((ignored, failure) -> {
			if (failure != null) {
				logger.warn("{} could not remove {} before releasing {}: {}", this.identity, this.guard.describe(),
						this.store.describe(), failure.toString());
			}
		});
	}

	@Override
	public String notReleasedBecause() {
		return "the Lease expires a lease duration after its last renewal";
	}

	@Override
	public void released(Release release, LeaseRecord stored, long timeoutNanos) {
		this.loop.leadership.carryOut(release, ReleaseRules.leaseReleased());
	}

	/**
	 * Until the gate would have closed: a release is a write at the version held, which a
	 * successor's claim would have changed, but one sent after that moment would come from a
	 * replica that may have been replaced.
	 */
	@Override
	public long releaseTimeLeft(long now) {
		return this.loop.leadership.gateClosesAt() - now;
	}

	@Override
	public boolean keepsTermUntilWorkEnds() {
		return false;
	}

	@Override
	public long stayOutAfterRelease() {
		return this.guard.stayOutAfterRelease(this.leaseDurationNanos, this.retryPeriodNanos);
	}

	@Override
	public String problem() {
		return this.guard.problem();
	}

}
