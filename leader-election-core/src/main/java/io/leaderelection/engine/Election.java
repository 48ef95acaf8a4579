package io.leaderelection.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.leaderelection.LeaderStatus;
import io.leaderelection.RevocationCause;
import io.leaderelection.StepDown;
import io.leaderelection.engine.rules.Observation;
import io.leaderelection.engine.rules.OwnWrites;
import io.leaderelection.engine.rules.Term;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;

/**
 * One election, as the engine and balancing command it: start, follow, stop, step down, hand
 * over, and report. Its loop ({@link ElectionLoop}) sequences the calls of the client-go cycle of
 * acquire, renew and release on a single Lease, and their continuations, as a chain of
 * non-blocking steps on the shared scheduler; every command here takes the loop's lock. What the
 * loop decides on lives in rooms of its own: what was observed of the Lease
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

	private final ElectionSettings settings;

	private final long drainTimeoutNanos;

	/** The loop, whose lock every command takes. */
	final ElectionLoop loop;

	Election(ElectionSettings settings, String identity, LeaseStore store, MigrationKey migrationKey,
			ElectionRuntime runtime, ElectionListener listener, Executor listenerLane, LeaderWork work,
			Executor workLane, Duration drainTimeout) {
		this.settings = settings;
		this.drainTimeoutNanos = drainTimeout.toNanos();
		this.loop = new ElectionLoop(this, settings, identity, store, migrationKey, runtime, listener, listenerLane,
				work, workLane, drainTimeout);
	}

	ElectionSettings settings() {
		return this.settings;
	}

	void balancedBy(Spreading balancer) {
		this.loop.balancedBy(balancer);
	}

	/**
	 * Who holds the Lease at the given moment as this replica sees it, for balancing: this
	 * replica while it holds a term (also one being finished) or has a claim on its way; else the
	 * live holder last seen. Reads lock-free.
	 */
	String holderAt(long now) {
		return (this.loop.leadership.term() != null || this.loop.claims.onItsWay()) ? this.loop.identity()
				: this.loop.core.observation().liveHolderAt(now);
	}

	/** The gate: a term held and open, its last successful write sent less than a renew deadline ago. */
	boolean isLeader() {
		return this.loop.leadership.isLeader(this.loop.now());
	}

	/** The once-per-window jobs of this election. */
	Windows windows() {
		return this.loop.leadership.windows;
	}

	LeaderStatus status() {
		Term held = this.loop.leadership.term();
		boolean leader = this.loop.leadership.isLeader(this.loop.now());
		LeaseRecord seen = this.loop.core.observation().lastSeen();
		String problem = this.loop.mode().problem();
		Spreading balancing = this.loop.balancer;
		return new LeaderStatus(this.settings.name(), this.settings.namespace(), this.settings.leaseName(), leader,
				(seen != null && seen.hasHolder()) ? seen.holderIdentity() : null,
				(seen != null) ? seen.acquireTime() : null, (seen != null) ? seen.renewTime() : null,
				(seen != null) ? seen.leaseTransitions() : null, leader ? held.fencingToken() : null,
				leader ? held.fencingTokenSource() : null, (problem != null) ? problem : this.loop.failureLog.lastError(),
				this.settings.mode(), this.loop.mode().lockOwner(seen), this.settings.shard(),
				(balancing != null) ? balancing.status() : null);
	}

	ElectionHealth health() {
		long now = this.loop.now();
		long lastAttempt = this.loop.lastAttemptNanos;
		return new ElectionHealth(this.settings.name(), Duration.ofNanos(this.loop.leadership.pastDeadline(now)),
				this.loop.failureLog.failingFor(now), this.loop.failureLog.lastError(),
				(lastAttempt != ElectionLoop.NEVER) ? Duration.ofNanos(now - lastAttempt) : null,
				this.settings.leaseDuration(), this.settings.retryPeriod(), this.loop.core.oneWriter().conflict(),
				this.loop.leadership.gatedWorkFailure(), this.loop.leadership.lastStepDown());
	}

	/** What became of the last release of our own accord, for a step-down's answer. */
	StepDown lastStepDown() {
		StepDown last = this.loop.leadership.lastStepDown();
		return (last != null) ? last : notLeader();
	}

	// ---- starting, stopping, stepping down

	/**
	 * Before campaigning, what the mode must know first; for life, the Pod this process runs in,
	 * blocking for up to a renew deadline.
	 * @throws ForLifePodException when that Pod is not found or cannot be read
	 */
	void prepare() {
		this.loop.mode().prepare();
	}

	/**
	 * Campaigns. After a stop whose release is still on its way, the first attempt waits for
	 * that release: a term being finished is never claimed again by the same process.
	 */
	void start() {
		synchronized (this.loop) {
			if (this.loop.campaigning()) {
				return;
			}
			this.loop.runAs(true, true);
			this.loop.mode().start();
			if (this.loop.leadership.term() == null && !this.loop.claims.onItsWay()) {
				this.loop.scheduleAttempt(0);
			}
		}
	}

	/**
	 * Follows the Lease as a follower does, without claiming it until {@link #start()}: reads
	 * and watches it, and creates it without holder if it is missing. A version seen unchanged
	 * meanwhile counts toward the wait of the campaign that follows, whose first attempt claims it
	 * if that wait is over. Only for an election that claims nothing else first: neither for life,
	 * nor balanced, nor guarded.
	 */
	void follow() {
		synchronized (this.loop) {
			if (this.loop.running()) {
				return;
			}
			this.loop.runAs(true, false);
			this.loop.scheduleAttempt(0);
		}
	}

	/**
	 * Stops following the Lease, unless the election campaigns: that one only a stop of its own
	 * ends. One that only follows holds no term and sends no claim, so nothing is released.
	 */
	void stopFollowing() {
		synchronized (this.loop) {
			if (this.loop.running() && !this.loop.campaigning()) {
				stop(false, RevocationCause.SHUTDOWN);
			}
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
	CompletableFuture<Void> stop(boolean release, RevocationCause cause) {
		synchronized (this.loop) {
			Leadership leadership = this.loop.leadership;
			if (!this.loop.running()) {
				return leadership.pendingRelease();
			}
			this.loop.runAs(false, false);
			this.loop.following.stopWatching();
			this.loop.mode().stop();
			if (leadership.holdsOpenTerm()) {
				return leadership.finish(cause, release).done();
			}
			if (leadership.term() == null && this.loop.claims.onItsWay()) {
				return this.loop.claims.giveBack(cause, release).done();
			}
			if (leadership.term() == null) {
				this.loop.steps.abandonAttempts();
			}
			return leadership.pendingRelease();
		}
	}

	/**
	 * Gives up the term held, and stays out of the election until the mode's stay-out after the
	 * release has passed, or until another candidate took the Lease over. A claim on its way is
	 * given back if it succeeds.
	 */
	StepDown stepDown() {
		return giveUp(RevocationCause.STEPPED_DOWN);
	}

	/**
	 * Gives up the term held as a step-down does, for a member of the group holding fewer of its
	 * Leases to take it over.
	 */
	void handOver() {
		giveUp(RevocationCause.HANDED_OVER);
	}

	private StepDown giveUp(RevocationCause cause) {
		synchronized (this.loop) {
			long now = this.loop.now();
			long expired = this.settings.renewDeadline().toNanos() + this.settings.leaseDuration().toNanos();
			Term held = this.loop.leadership.term();
			if (held != null && held.gateOpen()) {
				this.loop.core.stayOut().begin(now, this.drainTimeoutNanos + expired, held.acquired().transitions());
				return this.loop.leadership.finish(cause, true).describe();
			}
			if (held != null) {
				return lastStepDown();
			}
			if (this.loop.claims.onItsWay()) {
				this.loop.core.stayOut().begin(now, expired, this.loop.core.claiming().transitionsOnItsWay());
				return this.loop.claims.giveBack(cause, true).describe();
			}
			return notLeader();
		}
	}

	/**
	 * Decides again on what was last seen, without reading, when the balancer now lets this
	 * replica claim the free Lease. Otherwise the next attempt stays as scheduled: the balancer
	 * asks often, and putting it off each time would starve the reads of an election that does
	 * not watch (one staying out after a release), which then never learns who took its Lease.
	 */
	void reconsider() {
		synchronized (this.loop) {
			long now = this.loop.now();
			if (this.loop.following.mayDecideAgain(now) && this.loop.balancerWouldLetClaim(now)) {
				this.loop.following.decideAgain(now);
			}
		}
	}

	/**
	 * Whether this instance leads, or does not lead, with the change already handled: a grant
	 * has been told, a gate that closed has been closed and told, not only run past its deadline.
	 * Taken under the election's lock, as the changes are made.
	 */
	boolean leadershipSettled(boolean leading) {
		synchronized (this.loop) {
			return leading ? isLeader() : !this.loop.leadership.holdsOpenTerm();
		}
	}

	/**
	 * Completes once the listener calls and the starts and stops of gated work queued so far
	 * have run. Taken under the election's lock, so that a change of leadership already seen
	 * through {@link #isLeader()} has queued its calls.
	 */
	CompletableFuture<Void> callbacksRun() {
		synchronized (this.loop) {
			return this.loop.leadership.callbacksRun();
		}
	}

	/** Completes when the release a step-down started was written or given up. */
	CompletableFuture<Void> pendingRelease() {
		synchronized (this.loop) {
			return this.loop.leadership.pendingRelease();
		}
	}

	private StepDown notLeader() {
		return new StepDown(this.settings.name(), StepDown.Release.NOT_LEADER, List.of(), null);
	}

}
