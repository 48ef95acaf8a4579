package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.rules.ElectionCore;
import io.leaderelection.engine.rules.ElectionRules;
import io.leaderelection.engine.rules.Refusal;
import io.leaderelection.engine.rules.Term;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop of one {@link Election}: the chain of non-blocking steps on the shared scheduler that
 * reads, watches and writes the Lease, hands what it learns to the mode's rules and carries out
 * their steps. Its state is guarded by this object, the election's lock.
 */
final class ElectionLoop {

	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private static final double FOLLOWER_JITTER = 0.2;

	static final long NEVER = Long.MIN_VALUE;

	/** A step that runs this share of a retry period later than it was due shows a pause of the process. */
	private static final int PAUSE_DIVISOR = 2;

	/** The election this loop runs, as balancing and the engine know it. */
	final Election election;

	private final ElectionSettings settings;

	private final String identity;

	private final LeaseStore store;

	private final ElectionRuntime runtime;

	/** The calls that failed lately; read lock-free for the election's status and health. */
	final FailureLog failureLog;

	private final long leaseDurationNanos;

	private final long renewDeadlineNanos;

	private final long retryPeriodNanos;

	/** The state the election decides on, and its rules. */
	final ElectionCore<Release> core;

	private final ElectionMode mode;

	final Leadership leadership;

	final Following following;

	final Steps steps;

	final Claims claims;

	/** When the loop last began an attempt or acted on a watch event; {@link #NEVER} before. */
	volatile long lastAttemptNanos = NEVER;

	/** Spreads this election's group over replicas; {@code null} when it is not balanced. */
	volatile Spreading balancer;

	// The loop's state below is guarded by this.

	private boolean running;

	/** Whether the loop may claim the Lease: it was started, not only following; see {@link #follow()}. */
	private boolean campaigning;

	ElectionLoop(Election election, ElectionSettings settings, String identity, LeaseStore store,
			MigrationKey migrationKey, ElectionRuntime runtime, ElectionListener listener, Executor listenerLane,
			LeaderWork work, Executor workLane, Duration drainTimeout) {
		this.election = election;
		this.settings = settings;
		this.identity = identity;
		this.store = store;
		this.runtime = runtime;
		this.failureLog = new FailureLog(settings.name());
		this.leaseDurationNanos = settings.leaseDuration().toNanos();
		this.renewDeadlineNanos = settings.renewDeadline().toNanos();
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
		ElectionScheduler scheduler = new PauseSensingScheduler(runtime.scheduler(), runtime.monotonicClock(),
				this.retryPeriodNanos / PAUSE_DIVISOR, this::paused);
		this.steps = new Steps(this, scheduler, runtime.monotonicClock(), store.describe(), this::attempt);
		long longestFollowerDelay = (long) (this.retryPeriodNanos * (1 + FOLLOWER_JITTER));
		this.core = new ElectionCore<>(settings.name(), identity, store.describe(),
				new OtherWriterLog(store.describe(), settings.name(), identity), settings.leaseDuration(),
				Duration.ofNanos(longestFollowerDelay + this.renewDeadlineNanos));
		this.mode = (settings.forLife() != null) ? ForLifeMode.of(this, settings, store, migrationKey)
				: new LeaseMode(this, settings, identity, store, (migrationKey != null) ? migrationKey : ClaimGuard.NONE);
		this.leadership = new Leadership(this, this.mode, store, work, workLane, listener, listenerLane, drainTimeout);
		this.following = new Following(this, store, scheduler, this.renewDeadlineNanos, this.retryPeriodNanos);
		this.claims = new Claims(this, this.mode, store, settings, identity);
	}

	void balancedBy(Spreading balancer) {
		this.balancer = balancer;
	}

	ElectionSettings settings() {
		return this.settings;
	}

	/** What the mode follows besides the Lease changed (the key of an older election). */
	synchronized void followedChanged() {
		this.mode.followedChanged(now());
	}

	// ---- the attempt loop

	private void attempt(long sequence) {
		synchronized (this) {
			if (sequence != this.steps.attemptSequence() || !runningOrHolding()) {
				return;
			}
			long now = now();
			this.lastAttemptNanos = now;
			if (this.leadership.term() != null) {
				this.mode.lead(now, sequence);
			}
			else if (this.mode.decidesOnWatchAlone() && this.core.observation().watched()
					&& this.core.observation().current()) {
				this.mode.decide(now);
			}
			else {
				this.following.read();
			}
		}
	}

	/**
	 * The Lease is free, and another member of its group is to claim it: read again after a
	 * retry period unless a watch tells of changes; the balancer wakes this election when its
	 * turn comes.
	 */
	void waitForTurn() {
		waitAtMost(this.leaseDurationNanos);
	}

	/** Nothing can be claimed yet: looks again after this long at most, sooner when a read is due. */
	void waitAtMost(long atMostNanos) {
		waitFor(Math.min(pollDelay(), atMostNanos));
	}

	/** The Lease was read (or sent) and nothing can be claimed yet: the attempt succeeded. */
	void waitFor(long delayNanos) {
		succeeded();
		scheduleAttempt(delayNanos);
	}

	/** Whether balancing lets this replica claim the free Lease now; always, when it is not balanced. */
	boolean balancerLetsClaim(long now) {
		Spreading balancing = this.balancer;
		return balancing == null || balancing.mayClaim(this.election, now);
	}

	/** What the mode decides on; for the follower's reads and watch. */
	ElectionMode mode() {
		return this.mode;
	}

	/** The loop acted at the given moment: an attempt began, or a watch event was acted on. */
	void acted(long now) {
		this.lastAttemptNanos = now;
	}

	/** A read succeeded: a streak of failed reads ends; failed writes go on failing until one succeeds. */
	void readSucceeded() {
		if (this.failureLog.lastFailed("get")) {
			succeeded();
		}
	}

	/** Whether balancing would let this replica claim its free Lease now, without counting it free. */
	boolean balancerWouldLetClaim(long now) {
		Spreading balancing = this.balancer;
		return balancing != null && balancing.wouldLetClaim(this.election, now);
	}

	void tellBalancer() {
		Spreading balancing = this.balancer;
		if (balancing != null) {
			balancing.leaseChanged();
		}
	}

	/** How long a follower waits before reading again when nothing else wakes it. */
	long pollDelay() {
		return this.core.observation().watched() ? Long.MAX_VALUE : followerDelay();
	}

	/** A term was granted: a follower's watch ends unless the mode watches while leading. */
	void granted(Term won) {
		if (!this.mode.watchesWhileLeading()) {
			this.following.stopWatching();
		}
		logger.info("{} became leader of election '{}' ({}), fencing token {} ({})", this.identity,
				this.settings.name(), this.store.describe(), won.fencingToken(), won.fencingTokenSource());
		tellBalancer();
	}

	// ---- losing and finishing a term

	/**
	 * Leadership was lost: gate closed (if still open), term dropped, campaign again at once or
	 * after a follower's delay ({@link ElectionRules#looksAgainAtOnceAfter}).
	 */
	void lose(RevocationCause cause) {
		// drawn first, as the simulation's seeds replay the draws in this order
		long retryDelay = ElectionRules.looksAgainAtOnceAfter(cause) ? 0 : followerDelay();
		if (this.leadership.holdsOpenTerm()) {
			logger.warn("{} lost leadership of election '{}' ({}): {}", this.identity, this.settings.name(),
					this.store.describe(), cause);
			this.leadership.closeGate(cause, now());
		}
		else {
			logger.warn("{} lost {} of election '{}' before releasing it: {}", this.identity, this.store.describe(),
					this.settings.name(), cause);
		}
		this.leadership.drop();
		if (this.running) {
			scheduleAttempt(retryDelay);
		}
	}

	/**
	 * Takes note of a version read or told while leading ({@code null}: the Lease is missing), and
	 * loses the term unless {@link ElectionRules#lostWhileLeading} finds it goes on.
	 * @return whether the term goes on
	 */
	boolean stillLeadsOn(LeaseRecord seen, long now) {
		observeVersion(seen, now);
		RevocationCause lost = this.core.lostWhileLeading(seen, this.leadership.term());
		if (lost != null) {
			lose(lost);
		}
		return lost == null;
	}

	/**
	 * No term is held any more: renewals stop, and, once stopped, every watch. Told by the
	 * leadership, which has let go of the term.
	 */
	void termDropped() {
		this.core.ownWrites().termEnded();
		tellBalancer();
		this.steps.abandonAttempts();
		if (!this.running) {
			this.following.stopWatching();
		}
	}

	/** A release of our own accord is over, written or not: campaign again, unless a term or claim is on. */
	void releaseEnded() {
		if (this.running && this.leadership.term() == null && !this.claims.onItsWay()) {
			scheduleAttempt(followerDelay());
		}
	}

	// ---- steps

	void scheduleAttempt(long delayNanos) {
		this.steps.scheduleAttempt(delayNanos);
	}

	/** A continuation threw: counted as a failure, and the loop tries again after a retry period. */
	void stepFailed(RuntimeException ex) {
		failed(ex);
		if (runningOrHolding()) {
			scheduleAttempt(this.retryPeriodNanos);
		}
	}

	/** Whether the loop campaigns or still holds a term: only then do its continuations go on. */
	boolean runningOrHolding() {
		return this.running || this.leadership.term() != null;
	}

	/** A step ran late: the process paused, and what it observed before has a gap. */
	private synchronized void paused(long lateNanos) {
		logger.debug("Election '{}' ran a step {} ms late: what it observed before has a gap", this.settings.name(),
				Duration.ofNanos(lateNanos).toMillis());
		this.core.observation().gap();
	}

	// ---- what was observed

	/** Takes note of a version read, written or told, unless a newer one was seen already. */
	void observe(LeaseRecord record, long at) {
		if (this.core.observe(record, at)) {
			if (this.leadership.term() == null) {
				// counted from when the version was first seen, however often it is read again
				this.core.windows().observed(record.windows(), this.core.observation().observedAtNanos());
			}
		}
	}

	/** Takes note of a version read or told, or ({@code null}) of the Lease missing. */
	void observeVersion(LeaseRecord recordOrNull, long at) {
		if (recordOrNull != null) {
			observe(recordOrNull, at);
		}
		else {
			observeAbsent(at);
		}
	}

	/** Takes note that the Lease is missing, however that was learned. */
	void observeAbsent(long at) {
		this.core.observeAbsent(at);
	}

	/**
	 * A follower's write did not succeed: counted as a success of the call when the server
	 * answered, and what the refusal tells of the Lease is noted.
	 */
	void refused(Refusal refusal, Throwable failure) {
		if (refusal.answered()) {
			succeeded();
		}
		else {
			failed(failure);
		}
		if (refusal.leaseMissing()) {
			observeAbsent(now());
		}
		if (refusal.existedUnseen()) {
			this.core.observation().existedUnseen();
		}
	}

	long followerDelay() {
		return this.retryPeriodNanos + (long) (this.retryPeriodNanos * FOLLOWER_JITTER * this.runtime.random().nextDouble());
	}

	void succeeded() {
		this.failureLog.succeeded(now());
	}

	/** A call failed: it ends any unbroken observation, and counts in the election's health. */
	void failed(Throwable failure) {
		this.core.observation().gap();
		this.failureLog.failed(failure, now());
	}

	/** Whether the loop runs (follows or campaigns), and whether it campaigns. */
	void runAs(boolean running, boolean campaigning) {
		this.running = running;
		this.campaigning = campaigning;
	}

	boolean running() {
		return this.running;
	}

	/** Whether the loop may claim the Lease; a loop that only follows it may not. */
	boolean campaigning() {
		return this.campaigning;
	}

	String identity() {
		return this.identity;
	}

	Instant wallNow() {
		return this.runtime.wallClock().instant();
	}

	long now() {
		return this.runtime.monotonicClock().nanoTime();
	}

}
