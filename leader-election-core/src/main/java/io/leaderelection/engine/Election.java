package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.leaderelection.LeaderStatus;
import io.leaderelection.StepDown;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;

/**
 * One election: the loop that sequences the calls of the client-go cycle of acquire, renew and
 * release on a single Lease, and their continuations, as a chain of non-blocking steps on the
 * shared scheduler. What it decides on lives in rooms of its own: what was observed of the Lease
 * ({@link Observation}), the claim rules of the election's mode ({@link LeaseMode},
 * {@link ForLifeMode}), the term held and how it ends ({@link Leadership}), and which writes are
 * this process's own ({@link OwnWrites}, {@link OneWriter}).
 * <p>
 * Safety rests on two rules. A follower takes a Lease only after it has seen the same stored
 * version for a whole lease duration on its own monotonic clock, counted from when the read that
 * first returned it completed, and takes it by a write at that version; a Lease released by its
 * holder is the one exception. The leader's gate is open only until the moment its last
 * successful write was sent plus the renew deadline. A write is sent no earlier than its commit,
 * and a read completes no earlier than the commit it shows, so the gate closes before any
 * follower may take over as long as the renew deadline is shorter than the lease duration.
 * <p>
 * Every step of the loop runs through a scheduler that notices when one runs late: a pause of
 * this process (a long collection, a stopped container) is a gap in what it observed.
 */
final class Election {

	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private static final double FOLLOWER_JITTER = 0.2;

	static final long NEVER = Long.MIN_VALUE;

	/** A step that runs this share of a retry period later than it was due shows a pause of the process. */
	private static final int PAUSE_DIVISOR = 2;

	private final ElectionSettings settings;

	private final String identity;

	private final LeaseStore store;

	private final ElectionRuntime runtime;

	private final FailureLog failureLog;

	private final long drainTimeoutNanos;

	private final long leaseDurationNanos;

	private final long renewDeadlineNanos;

	private final long retryPeriodNanos;

	final Observation observation;

	final OwnWrites ownWrites;

	final OneWriter oneWriter;

	private final ElectionMode mode;

	final Leadership leadership;

	/** Staying out after giving a term up; guarded by this. */
	private final StayOut stayOut = new StayOut();

	final Following following;

	final Steps steps;

	final Claims claims;

	/** When the loop last began an attempt or acted on a watch event; {@link #NEVER} before. */
	private volatile long lastAttemptNanos = NEVER;

	/** Spreads this election's group over replicas; {@code null} when it is not balanced. */
	private volatile Spreading balancer;

	// The loop's state below is guarded by this.

	private boolean running;

	/** Whether the loop may claim the Lease: it was started, not only following; see {@link #follow()}. */
	private boolean campaigning;

	Election(ElectionSettings settings, String identity, LeaseStore store, MigrationKey migrationKey,
			ElectionRuntime runtime, ElectionListener listener, Executor listenerLane, LeaderWork work,
			Executor workLane, Duration drainTimeout) {
		this.settings = settings;
		this.identity = identity;
		this.store = store;
		this.runtime = runtime;
		this.failureLog = new FailureLog(settings.name());
		this.drainTimeoutNanos = drainTimeout.toNanos();
		this.leaseDurationNanos = settings.leaseDuration().toNanos();
		this.renewDeadlineNanos = settings.renewDeadline().toNanos();
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
		ElectionScheduler scheduler = new PauseSensingScheduler(runtime.scheduler(), runtime.monotonicClock(),
				this.retryPeriodNanos / PAUSE_DIVISOR, this::paused);
		this.steps = new Steps(this, scheduler, runtime.monotonicClock(), store.describe(), this::attempt);
		long longestFollowerDelay = (long) (this.retryPeriodNanos * (1 + FOLLOWER_JITTER));
		this.observation = new Observation(settings.leaseDuration(),
				Duration.ofNanos(longestFollowerDelay + this.renewDeadlineNanos));
		this.ownWrites = new OwnWrites(identity);
		this.oneWriter = new OneWriter(identity, settings.name(), store.describe());
		this.mode = (settings.forLife() != null) ? ForLifeMode.of(this, settings, store, migrationKey)
				: new LeaseMode(this, settings, identity, store, (migrationKey != null) ? migrationKey : ClaimGuard.NONE);
		this.leadership = new Leadership(this, this.mode, store, work, workLane, listener, listenerLane, drainTimeout,
				this.stayOut);
		this.following = new Following(this, store, scheduler, this.renewDeadlineNanos, this.retryPeriodNanos);
		this.claims = new Claims(this, this.mode, store, settings, identity);
	}

	ElectionSettings settings() {
		return this.settings;
	}

	void balancedBy(Spreading balancer) {
		this.balancer = balancer;
	}

	/**
	 * Who holds the Lease at the given moment as this replica sees it, for balancing: this
	 * replica while it holds a term (also one being finished) or has a claim on its way; else the
	 * live holder last seen. Reads lock-free.
	 */
	String holderAt(long now) {
		return (this.leadership.term() != null || this.claims.onItsWay()) ? this.identity
				: this.observation.liveHolderAt(now);
	}

	/** The gate: a term held and open, its last successful write sent less than a renew deadline ago. */
	boolean isLeader() {
		return this.leadership.isLeader(now());
	}

	LeaderStatus status() {
		Term held = this.leadership.term();
		boolean leader = this.leadership.isLeader(now());
		LeaseRecord seen = this.observation.lastSeen();
		String problem = this.mode.problem();
		return new LeaderStatus(this.settings.name(), this.settings.namespace(), this.settings.leaseName(), leader,
				(seen != null && seen.hasHolder()) ? seen.holderIdentity() : null,
				(seen != null) ? seen.acquireTime() : null, (seen != null) ? seen.renewTime() : null,
				(seen != null) ? seen.leaseTransitions() : null, leader ? held.fencingToken() : null,
				leader ? held.fencingTokenSource() : null, (problem != null) ? problem : this.failureLog.lastError(),
				this.settings.mode(), this.mode.lockOwner(seen), this.settings.shard(),
				(this.balancer != null) ? this.balancer.status() : null);
	}

	ElectionHealth health() {
		long now = now();
		long lastAttempt = this.lastAttemptNanos;
		return new ElectionHealth(this.settings.name(), Duration.ofNanos(this.leadership.pastDeadline(now)),
				this.failureLog.failingFor(now), this.failureLog.lastError(),
				(lastAttempt != NEVER) ? Duration.ofNanos(now - lastAttempt) : null, this.settings.leaseDuration(),
				this.settings.retryPeriod(), this.oneWriter.conflict(), this.leadership.gatedWorkFailure(),
				this.leadership.lastStepDown());
	}

	/** What became of the last release of our own accord, for a step-down's answer. */
	StepDown lastStepDown() {
		StepDown last = this.leadership.lastStepDown();
		return (last != null) ? last : notLeader();
	}

	// ---- starting, stopping, stepping down

	/**
	 * Before campaigning, what the mode must know first; for life, the Pod this process runs in,
	 * blocking for up to a renew deadline.
	 * @throws ForLifePodException when that Pod is not found or cannot be read
	 */
	void prepare() {
		this.mode.prepare();
	}

	/**
	 * Campaigns. After a stop whose release is still on its way, the first attempt waits for
	 * that release: a term being finished is never claimed again by the same process.
	 */
	synchronized void start() {
		if (this.campaigning) {
			return;
		}
		this.running = true;
		this.campaigning = true;
		this.mode.start();
		if (this.leadership.term() == null && !this.claims.onItsWay()) {
			scheduleAttempt(0);
		}
	}

	/**
	 * Follows the Lease as a follower does, without claiming it until {@link #start()}: reads
	 * and watches it, and creates it without holder if it is missing. A version seen unchanged
	 * meanwhile counts toward the wait of the campaign that follows, whose first attempt claims it
	 * if that wait is over. Only for an election that claims nothing else first: neither for life,
	 * nor balanced, nor guarded.
	 */
	synchronized void follow() {
		if (this.running) {
			return;
		}
		this.running = true;
		scheduleAttempt(0);
	}

	/**
	 * Stops following the Lease, unless the election campaigns: that one only a stop of its own
	 * ends. One that only follows holds no term and sends no claim, so nothing is released.
	 */
	synchronized void stopFollowing() {
		if (this.running && !this.campaigning) {
			stop(false, RevocationCause.SHUTDOWN);
		}
	}

	/** Whether this election follows its Lease before campaigning; see {@link #follow()}. */
	boolean mayFollowBeforeCampaigning() {
		return this.settings.forLife() == null && this.settings.balanceGroup() == null && this.settings.migration() == null;
	}

	/**
	 * Stops campaigning. A term held ends as on a step-down: gate closed, leader work drained,
	 * then, with {@code release}, the Lease released; without, or if the work outlasts the drain
	 * timeout, left to expire. A claim on its way is given back the same way if it succeeds.
	 */
	synchronized CompletableFuture<Void> stop(boolean release, RevocationCause cause) {
		if (!this.running) {
			return this.leadership.pendingRelease();
		}
		this.running = false;
		this.campaigning = false;
		this.following.stopWatching();
		this.mode.stop();
		if (this.leadership.holdsOpenTerm()) {
			return this.leadership.finish(cause, release).done();
		}
		if (this.leadership.term() == null && this.claims.onItsWay()) {
			return this.claims.giveBack(cause, release).done();
		}
		if (this.leadership.term() == null) {
			this.steps.abandonAttempts();
		}
		return this.leadership.pendingRelease();
	}

	/**
	 * Gives up the term held, and stays out of the election until the mode's stay-out after the
	 * release has passed, or until another candidate took the Lease over. A claim on its way is
	 * given back if it succeeds.
	 */
	synchronized StepDown stepDown() {
		return giveUp(RevocationCause.STEPPED_DOWN);
	}

	/**
	 * Gives up the term held as a step-down does, for a member of the group holding fewer of its
	 * Leases to take it over.
	 */
	synchronized void handOver() {
		giveUp(RevocationCause.HANDED_OVER);
	}

	private StepDown giveUp(RevocationCause cause) {
		long now = now();
		Term held = this.leadership.term();
		if (held != null && held.gateOpen()) {
			this.stayOut.begin(now, this.drainTimeoutNanos + this.renewDeadlineNanos + this.leaseDurationNanos,
					held.acquired().transitions());
			return this.leadership.finish(cause, true).describe();
		}
		if (held != null) {
			return lastStepDown();
		}
		if (this.claims.onItsWay()) {
			this.stayOut.begin(now, this.renewDeadlineNanos + this.leaseDurationNanos, this.claims.transitionsOnItsWay());
			return this.claims.giveBack(cause, true).describe();
		}
		return notLeader();
	}

	/**
	 * Decides again on what was last seen, without reading, when the balancer now lets this
	 * replica claim the free Lease. Otherwise the next attempt stays as scheduled: the balancer
	 * asks often, and putting it off each time would starve the reads of an election that does
	 * not watch (one staying out after a release), which then never learns who took its Lease.
	 */
	synchronized void reconsider() {
		long now = now();
		if (mayDecideAgain(now) && this.balancer.wouldLetClaim(this, now)) {
			decideAgain(now);
		}
	}

	/** What the mode follows besides the Lease changed (the key of an older election). */
	synchronized void followedChanged() {
		this.mode.followedChanged(now());
	}

	/** Decides now on what was last seen; a read that was due sooner stays due. */
	void decideAgain(long now) {
		long dueAt = this.steps.nextAttemptDueAt();
		this.steps.abandonAttempts();
		this.mode.decide(now);
		// deciding again must not put off a read that was due sooner
		long dueNow = this.steps.nextAttemptDueAt();
		if (!this.claims.onItsWay() && dueNow != NEVER && dueAt != NEVER && dueNow - dueAt > 0) {
			scheduleAttempt(dueAt - now);
		}
	}

	/**
	 * Whether a follower may decide again now on what it last saw, without reading: only on what
	 * a read or a watch told (a Lease never seen is not yet known to be missing), not while a look
	 * is on its way, since its answer may show the Lease changed, and only where the mode allows.
	 */
	boolean mayDecideAgain(long now) {
		return this.running && this.leadership.term() == null && !this.claims.onItsWay() && this.mode.mayDecideAgain()
				&& this.observation.anythingSeen() && !this.steps.lookPending()
				&& this.stayOut.leftAt(now) == 0;
	}

	/**
	 * Whether this instance leads, or does not lead, with the change already handled: a grant
	 * has been told, a gate that closed has been closed and told, not only run past its deadline.
	 * Taken under the election's lock, as the changes are made.
	 */
	synchronized boolean leadershipSettled(boolean leading) {
		return leading ? isLeader() : !this.leadership.holdsOpenTerm();
	}

	/**
	 * Completes once the listener calls and the starts and stops of gated work queued so far
	 * have run. Taken under the election's lock, so that a change of leadership already seen
	 * through {@link #isLeader()} has queued its calls.
	 */
	synchronized CompletableFuture<Void> callbacksRun() {
		return this.leadership.callbacksRun();
	}

	/** Completes when the release a step-down started was written or given up. */
	synchronized CompletableFuture<Void> pendingRelease() {
		return this.leadership.pendingRelease();
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
			else if (this.mode.decidesOnWatchAlone() && this.observation.watched() && this.observation.current()) {
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
		waitFor(Math.min(pollDelay(), this.leaseDurationNanos));
	}

	/** The Lease was read (or sent) and nothing can be claimed yet: the attempt succeeded. */
	void waitFor(long delayNanos) {
		succeeded();
		scheduleAttempt(delayNanos);
	}

	/** Whether balancing lets this replica claim the free Lease now; always, when it is not balanced. */
	boolean balancerLetsClaim(long now) {
		Spreading balancing = this.balancer;
		return balancing == null || balancing.mayClaim(this, now);
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

	void tellBalancer() {
		Spreading balancing = this.balancer;
		if (balancing != null) {
			balancing.leaseChanged();
		}
	}

	/** How long a follower waits before reading again when nothing else wakes it. */
	long pollDelay() {
		return this.observation.watched() ? Long.MAX_VALUE : followerDelay();
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
	 * Loses the term on a version seen while leading, as {@link ElectionRules#lostWhileLeading}
	 * judged it.
	 */
	void lostWhileLeading(RevocationCause cause, LeaseRecord seen) {
		if (cause == RevocationCause.IDENTITY_CONFLICT) {
			this.oneWriter.conflictSeen(seen);
		}
		lose(cause);
	}

	/**
	 * No term is held any more: renewals stop, and, once stopped, every watch. Told by the
	 * leadership, which has let go of the term.
	 */
	void termDropped() {
		this.ownWrites.termEnded();
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

	private StepDown notLeader() {
		return new StepDown(this.settings.name(), StepDown.Release.NOT_LEADER, List.of(), null);
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
		this.observation.gap();
	}

	// ---- what was observed

	/** What a follower has seen at the given moment, for its mode's rules to decide on. */
	Sight sight(long now) {
		LeaseRecord seen = this.observation.lastSeen();
		return new Sight(seen, this.stayOut.leftAt(now),
				this.oneWriter.conflict() != null, this.observation.releasedFor(this.identity),
				(seen != null) ? this.observation.untilExpiry(now) : 0);
	}

	/** Takes note of a version read, written or told, unless a newer one was seen already. */
	void observe(LeaseRecord record, long at) {
		if (this.observation.observe(record, at)) {
			this.oneWriter.notice(record, this.ownWrites);
			this.stayOut.noticeTakeover(record, this.identity);
			if (this.leadership.term() == null) {
				// counted from when the version was first seen, however often it is read again
				this.leadership.windows.observed(record.windows(), this.observation.observedAtNanos());
			}
		}
	}

	/** Takes note that the Lease is missing, however that was learned. */
	void observeAbsent(long at) {
		this.observation.observeAbsent(at);
		this.oneWriter.leaseMissing();
	}

	long followerDelay() {
		return this.retryPeriodNanos + (long) (this.retryPeriodNanos * FOLLOWER_JITTER * this.runtime.random().nextDouble());
	}

	void succeeded() {
		this.failureLog.succeeded(now());
	}

	/** A call failed: it ends any unbroken observation, and counts in the election's health. */
	void failed(Throwable failure) {
		this.observation.gap();
		this.failureLog.failed(failure, now());
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
