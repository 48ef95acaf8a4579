package io.leaderelection.engine;

import java.time.Duration;
import java.util.List;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.rules.ElectionRules;
import io.leaderelection.engine.rules.JobWindows;
import io.leaderelection.engine.rules.LeaderStep;
import io.leaderelection.engine.rules.LeaseRules;
import io.leaderelection.engine.rules.OwnWrites;
import io.leaderelection.engine.rules.Term;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease-mode leader's renewals: a write at the version held every renew period, carrying the
 * once-per-window runs; the read after a conflict; and what their answers lead to, as
 * {@link LeaseRules} decide it.
 */
final class LeaseRenewals {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final ElectionLoop loop;

	private final ElectionSettings settings;

	private final String identity;

	private final LeaseStore store;

	private final ClaimGuard guard;

	private final LeaseRules rules;

	private final long retryPeriodNanos;

	/** Whether a renewal, or the read after a renewal's conflict, is on its way. */
	private boolean renewing;

	LeaseRenewals(ElectionLoop loop, ElectionSettings settings, String identity, LeaseStore store, ClaimGuard guard,
			LeaseRules rules) {
		this.loop = loop;
		this.settings = settings;
		this.identity = identity;
		this.store = store;
		this.guard = guard;
		this.rules = rules;
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
	}

	/**
	 * A once-per-window run waits to be stored: writes at once, unless a renewal is on its way,
	 * whose answer writes again at once.
	 */
	void writeSoon() {
		if (!this.renewing) {
			this.loop.scheduleAttempt(0);
		}
	}

	/**
	 * Renews the Lease: a write at the version held, carrying the once-per-window jobs, the runs
	 * started since the last write among them.
	 */
	void renew(long sentAt, long sequence, boolean afterConflict) {
		long timeout = leaderAttemptTimeout(sentAt);
		if (timeout <= 0) {
			return;
		}
		JobWindows windows = this.loop.core.windows();
		LeaseRecord seen = this.loop.core.observation().lastSeen();
		LeaseRecord renewal = seen
			.rewrite(this.identity, this.settings.leaseDurationSeconds(), seen.acquireTime(), this.loop.wallNow(),
					seen.leaseTransitions())
			.withWindows(windows.toWrite(sentAt));
		List<JobWindows.Pending> carried = windows.sending();
		OwnWrites.Sent write = this.loop.core.ownWrites().sent(renewal, sentAt);
		this.renewing = true;
		this.loop.steps.call("update", () -> this.store.update(renewal, Duration.ofNanos(timeout)), timeout, sequence,
				(stored, failure) -> renewed(write, carried, sentAt, sequence, afterConflict, stored, failure));
	}

	private void renewed(OwnWrites.Sent write, List<JobWindows.Pending> carried, long sentAt, long sequence,
			boolean afterConflict, LeaseRecord stored, Throwable failure) {
		this.renewing = false;
		Leadership leadership = this.loop.leadership;
		leadership.renewalEnded(failure == null, this.loop.now() - sentAt);
		this.loop.core.ownWrites().refusedIf(write, failure);
		if (failure != null) {
			renewalFailed(failure, afterConflict, sequence);
			return;
		}
		this.loop.succeeded();
		this.loop.core.ownWrites().answered(stored);
		this.loop.observe(stored, sentAt);
		leadership.renewedAt(sentAt);
		long now = this.loop.now();
		leadership.windows.stored(carried, leadership.isLeader(now));
		this.loop.scheduleAttempt(this.rules.renewed(sentAt, now, this.loop.core.windows().unrecorded()).delayNanos());
		Term held = leadership.term();
		RevocationCause ends = held.gateOpen()
				? LeaseRules.endsAfterRenewal(this.guard.held(), stored, this.identity, held.preferredHolderAtGrant()) : null;
		if (ends == RevocationCause.MIGRATION_KEY_LOST) {
			this.loop.lose(ends);
		}
		else if (ends == RevocationCause.PREFERRED_HOLDER) {
			logger.info("{} finishes its term of election '{}': {} names '{}' as preferred holder", this.identity,
					this.settings.name(), this.store.describe(), stored.preferredHolder());
			leadership.finish(ends, true);
		}
	}

	private void renewalFailed(Throwable failure, boolean afterConflict, long sequence) {
		long untilGateCloses = this.loop.leadership.gateClosesAt() - this.loop.now();
		carryOut(this.rules.renewalFailed(failure, afterConflict, untilGateCloses), failure, sequence);
	}

	private void carryOut(LeaderStep step, Throwable failure, long sequence) {
		if (step instanceof LeaderStep.ReadThenRenew) {
			readWhileLeading(sequence);
			return;
		}
		this.loop.failed(failure);
		if (step instanceof LeaderStep.Lose lose && lose.cause() == RevocationCause.LEASE_DELETED) {
			this.loop.observeAbsent(this.loop.now());
		}
		if (step instanceof LeaderStep.Lose lose) {
			this.loop.lose(lose.cause());
		}
		else {
			this.loop.scheduleAttempt(((LeaderStep.WriteAgainIn) step).delayNanos());
		}
	}

	/** After a conflict the version held is stale: read once, then renew on it if still ours. */
	private void readWhileLeading(long sequence) {
		long timeout = leaderAttemptTimeout(this.loop.now());
		if (timeout <= 0) {
			return;
		}
		this.renewing = true;
		this.loop.steps.call("get", () -> this.store.get(Duration.ofNanos(timeout)), timeout, sequence, (stored, failure) -> {
			this.renewing = false;
			long now = this.loop.now();
			if (failure != null) {
				carryOut(this.rules.readFailed(failure, this.loop.leadership.gateClosesAt() - this.loop.now()), failure,
						sequence);
			}
			else if (this.loop.stillLeadsOn(stored, now)) {
				// Someone changed only what is not ours (a label, an annotation): renew on it.
				renew(now, sequence, true);
			}
		});
	}

	/**
	 * The timeout of a leader's request sent now ({@link ElectionRules#requestTimeout}); when
	 * that is too short to be of use, nothing is sent and leadership ends when the gate closes: 0
	 * then.
	 */
	private long leaderAttemptTimeout(long now) {
		long remaining = this.loop.leadership.gateClosesAt() - now;
		long timeout = ElectionRules.requestTimeout(remaining, this.retryPeriodNanos);
		if (timeout > 0) {
			return timeout;
		}
		if (remaining <= 0) {
			this.loop.lose(RevocationCause.RENEW_DEADLINE_PASSED);
		}
		else {
			this.loop.scheduleAttempt(remaining);
		}
		return 0;
	}

}
