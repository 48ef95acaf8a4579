package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.leaderelection.LeaderStatus;
import io.leaderelection.StepDown;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One election: the client-go loop of acquire, renew and release on a single Lease, run as a
 * chain of non-blocking steps on the shared scheduler.
 * <p>
 * Safety rests on two rules. A follower takes a Lease only after it has seen the same stored
 * version, or the Lease missing, for a whole lease duration on its own monotonic clock, counted
 * from when the read that first returned it completed; a Lease released by its holder is the
 * one exception. The leader's gate is open only until the moment its last successful write was
 * sent plus the renew deadline. A write is sent no earlier than its commit, and a read completes
 * no earlier than the commit it shows, so the gate closes before any follower may take over as
 * long as the renew deadline is shorter than the lease duration.
 * <p>
 * A term can be held with its gate closed: after a step-down or on shutdown the gate closes at
 * once, the Lease is renewed while the leader work drains, and only then released, so that no
 * successor starts while that work runs.
 * <p>
 * Leader-for-life ({@link ElectionSettings#forLife()}) keeps the same loop with other rules: the
 * lock is created owned by this replica's Pod and never renewed, so its gate has no deadline; the
 * leader watches it and closes the gate if it is deleted or rewritten. Followers take over when it
 * is deleted, or delete it themselves, with a uid and resourceVersion precondition, once its
 * owner Pod is gone. A release deletes it.
 */
final class Election {

	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private static final double FOLLOWER_JITTER = 0.2;

	private static final long NEVER = Long.MIN_VALUE;

	/** The sequence of a continuation that runs whatever the loop did meanwhile. */
	private static final long ALWAYS = -1;

	/** A watch that keeps ending is retried after at most this many retry periods. */
	private static final long MAX_WATCH_BACKOFF_FACTOR = 32;

	/** A leader's request gets at least this share of a retry period, or is not sent. */
	private static final int SHORTEST_ATTEMPT_DIVISOR = 16;

	/** The gate deadline of a for-life term: none, written so that deadline arithmetic cannot overflow. */
	private static final long UNBOUNDED = Long.MAX_VALUE / 2;

	private final ElectionSettings settings;

	private final String identity;

	private final LeaseStore store;

	private final ElectionRuntime runtime;

	private final ElectionListener listener;

	private final LeaderWork work;

	private final Executor workLane;

	private final Executor listenerLane;

	private final FailureLog failureLog;

	private final long drainTimeoutNanos;

	private final long leaseDurationNanos;

	private final long renewDeadlineNanos;

	/** How long after its last successful write the gate stays open: the renew deadline, or unbounded for life. */
	private final long gateDeadlineNanos;

	private final long retryPeriodNanos;

	private final long renewPeriodNanos;

	/**
	 * The key of the older election this one migrates from; {@code null} when none. While it is
	 * set, a claim of the Lease is preceded by a claim of the key, and the gate opens only while
	 * both are held.
	 */
	private final MigrationKey migrationKey;

	/** Whether the key of the older election is being claimed, before the Lease. */
	private boolean claimingKey;

	/** The store as a for-life lock; {@code null} when the election runs on a renewed Lease. */
	private final ForLifeLockStore lockStore;

	private final OwnerLiveness ownerLiveness;

	/** The Pod this process runs in, owner of the for-life lock; read at start. */
	private volatile PodReference ownPod;

	/** The term held, read lock-free by the gate; {@code null} when none is held. */
	private volatile Term term;

	/** The last version seen; {@code null} before the first read and while the Lease is missing. */
	private volatile LeaseRecord lastSeen;

	private volatile String lastError;

	/** When the current streak of failed calls began; {@link #NEVER} while calls succeed. */
	private volatile long failingSinceNanos = NEVER;

	/** When the loop last began an attempt or acted on a watch event; {@link #NEVER} before. */
	private volatile long lastAttemptNanos = NEVER;

	/** What shows that another process writes the Lease under our identity; {@code null} when nothing. */
	private volatile String identityConflict;

	/** Why gated work failed to start at the last grant; {@code null} when it started. */
	private volatile String gatedWorkFailure;

	/** The last release of our own accord; {@code null} before the first. */
	private volatile Release lastRelease;

	// The loop's state below is guarded by this.

	/** The verb of the call that failed last, when it was a store call. */
	private String failingVerb;

	private boolean running;

	private long attemptSequence;

	private ElectionScheduler.Cancellable nextAttempt;

	/** When {@link #nextAttempt} is due. */
	private long nextAttemptAtNanos;

	/** The attempt sequence a read on its way was sent in; {@link #NEVER} when none is on its way. */
	private long readSequence = NEVER;

	/**
	 * For life, the lock last seen held before it went missing without a release: its owner must
	 * be gone before another Pod creates a lock; {@code null} when none.
	 */
	private LeaseRecord lockDeletedWhileHeld;

	/** Why this follower last set out to take a for-life lock over, logged once per reason. */
	private String lastTakeOverReason;

	/** When the version in {@link #lastSeen} was first seen; read lock-free by the balancer. */
	private volatile long observedAtNanos;

	/** When the Lease was first seen missing, in the current stretch of absence; {@link #NEVER} when seen present. */
	private long absentSinceNanos = NEVER;

	/** The lease duration of the last version seen. */
	private long lastLeaseDurationSeenNanos;

	/** The uid of the last Lease object seen, {@code null} before one was seen. */
	private String lastUidSeen;

	/**
	 * Whether the Lease went missing, or was deleted and created again, since a version with a
	 * holder was last seen: a Lease found free since then was not released by its holder.
	 */
	private boolean goneSinceLastHeld;

	private long stayOutUntilNanos;

	private boolean stayingOut;

	/** The leaseTransitions of the term given up: a higher count, not ours, means another took over. */
	private int stayOutTransitions;

	private int highestTransitionsSeen = -1;

	private long termsBegun;

	private final OwnWrites ownWrites = new OwnWrites();

	/** The last version seen that names our identity but was not written by this process. */
	private LeaseRecord foreignVersionNamingUs;

	/**
	 * The claim on its way: its answer, not a watch event, decides what comes next. Read
	 * lock-free by the balancer.
	 */
	private volatile Claim claim;

	/** Spreads this election's group over replicas; {@code null} when it is not balanced. */
	private volatile Balancer balancer;

	/** Complete once the last release of our own accord was answered, failed or given up. */
	private CompletableFuture<Void> pendingRelease = CompletableFuture.completedFuture(null);

	private LeaseWatch watch;

	private WatchListener watchListener;

	/** Whether the server accepted the current watch; until then followers keep polling. */
	private boolean watchOpen;

	/** When a watch that ended may be started again; {@link #NEVER} when it may now. */
	private long watchRetryAtNanos = NEVER;

	private long watchBackoffNanos;

	Election(ElectionSettings settings, String identity, LeaseStore store, MigrationKey migrationKey,
			ElectionRuntime runtime, ElectionListener listener, Executor listenerLane, LeaderWork work,
			Executor workLane, Duration drainTimeout) {
		this.settings = settings;
		this.identity = identity;
		this.store = store;
		this.migrationKey = migrationKey;
		this.runtime = runtime;
		this.listener = listener;
		this.listenerLane = listenerLane;
		this.failureLog = new FailureLog(settings.name());
		this.work = work;
		this.workLane = workLane;
		this.drainTimeoutNanos = drainTimeout.toNanos();
		this.leaseDurationNanos = settings.leaseDuration().toNanos();
		this.renewDeadlineNanos = settings.renewDeadline().toNanos();
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
		this.renewPeriodNanos = settings.renewPeriod().toNanos();
		if (settings.forLife() != null) {
			if (!(store instanceof ForLifeLockStore forLifeStore)) {
				throw new IllegalArgumentException("Election '" + settings.name() + "' runs for-life, which needs a "
						+ "lock owned by a Pod; " + store.describe() + " cannot be one (for-life runs on Kubernetes only)");
			}
			if (migrationKey != null) {
				throw new IllegalArgumentException("Election '" + settings.name() + "' runs for-life, and cannot "
						+ "migrate from " + migrationKey.describe() + ": a migration runs in lease mode");
			}
			this.lockStore = forLifeStore;
			this.ownerLiveness = new OwnerLiveness(settings.forLife().notReadyNodeTakeover());
			this.gateDeadlineNanos = UNBOUNDED;
		}
		else {
			this.lockStore = null;
			this.ownerLiveness = null;
			this.gateDeadlineNanos = this.renewDeadlineNanos;
		}
		this.watchBackoffNanos = this.retryPeriodNanos;
		this.lastLeaseDurationSeenNanos = this.leaseDurationNanos;
	}

	ElectionSettings settings() {
		return this.settings;
	}

	void balancedBy(Balancer balancer) {
		this.balancer = balancer;
	}

	/**
	 * Who holds the Lease at the given moment as this replica sees it, for balancing: this
	 * replica while it holds a term (also one being finished) or has a claim on its way; else the
	 * holder last seen, unless the Lease was released, is missing, or has gone unchanged for its
	 * lease duration. Reads lock-free.
	 */
	String holderAt(long now) {
		if (this.term != null || this.claim != null) {
			return this.identity;
		}
		LeaseRecord seen = this.lastSeen;
		if (seen == null || !seen.hasHolder() || seen.looksReleased()
				|| now - (this.observedAtNanos + expiryNanos(seen)) >= 0) {
			return null;
		}
		return seen.holderIdentity();
	}

	/** The gate: a term held and open, its last successful write sent less than a renew deadline ago. */
	boolean isLeader() {
		Term held = this.term;
		return held != null && held.gateOpenAt(now(), this.gateDeadlineNanos);
	}

	LeaderStatus status() {
		Term held = this.term;
		boolean leader = held != null && held.gateOpenAt(now(), this.gateDeadlineNanos);
		LeaseRecord seen = this.lastSeen;
		return new LeaderStatus(this.settings.name(), this.settings.namespace(), this.settings.leaseName(), leader,
				(seen != null && seen.hasHolder()) ? seen.holderIdentity() : null,
				(seen != null) ? seen.acquireTime() : null, (seen != null) ? seen.renewTime() : null,
				(seen != null) ? seen.leaseTransitions() : null, leader ? held.fencingToken() : null,
				leader ? held.fencingTokenSource() : null, lastError(), this.settings.mode(), lockOwner(seen),
				this.settings.shard(), (this.balancer != null) ? this.balancer.status() : null);
	}

	/** The last failure, or why the key of the election migrated from cannot be claimed. */
	private String lastError() {
		String keyProblem = (this.migrationKey != null) ? this.migrationKey.problem() : null;
		return (keyProblem != null) ? keyProblem : this.lastError;
	}

	/** The Pod owning the for-life lock last seen; {@code null} in lease mode or when none. */
	private String lockOwner(LeaseRecord seen) {
		PodReference owner = (this.lockStore != null && seen != null) ? this.lockStore.podOwner(seen) : null;
		return (owner != null) ? owner.toString() : null;
	}

	ElectionHealth health() {
		long now = now();
		Term held = this.term;
		long pastDeadline = (held != null) ? now - held.gateClosesAt(this.gateDeadlineNanos) : 0;
		long failingSince = this.failingSinceNanos;
		long lastAttempt = this.lastAttemptNanos;
		return new ElectionHealth(this.settings.name(), Duration.ofNanos(Math.max(0, pastDeadline)),
				(failingSince != NEVER) ? Duration.ofNanos(now - failingSince) : Duration.ZERO, this.lastError,
				(lastAttempt != NEVER) ? Duration.ofNanos(now - lastAttempt) : null, this.settings.leaseDuration(),
				this.settings.retryPeriod(), this.identityConflict, this.gatedWorkFailure,
				(this.lastRelease != null) ? this.lastRelease.describe() : null);
	}

	/** What became of the last release of our own accord, for a step-down's answer. */
	StepDown lastStepDown() {
		Release release = this.lastRelease;
		return (release != null) ? release.describe() : notLeader();
	}

	// ---- starting, stopping, stepping down

	/**
	 * For life, reads the Pod this process runs in, which is to own the lock; blocks for up to
	 * a renew deadline. Nothing to do in lease mode.
	 * @throws ForLifePodException when the Pod is not found or cannot be read
	 */
	void readOwnPod() {
		if (this.lockStore == null) {
			return;
		}
		String podName = this.settings.forLife().podName();
		String pod = "Pod " + this.settings.namespace() + "/" + podName;
		String prefix = "Election '" + this.settings.name() + "' runs for-life: its lock is owned by the Pod this "
				+ "replica runs in, but ";
		Duration timeout = this.settings.renewDeadline();
		PodState read;
		try {
			read = this.lockStore.pod(podName, timeout).get(timeout.toNanos() * 2, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ForLifePodException(this.settings.name(), prefix + pod + " was not read: interrupted", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new ForLifePodException(this.settings.name(), prefix + pod + " could not be read (" + cause.getMessage()
					+ "). Its service account needs 'get' on 'pods' in namespace '" + this.settings.namespace()
					+ "', and for the lock 'get', 'create', 'watch' and 'delete' on 'leases'.", cause);
		}
		if (read == null) {
			throw new ForLifePodException(this.settings.name(), prefix + pod + " does not exist. The Pod name "
					+ "(POD_NAME) must name the Pod this process runs in: set it from the downward API, "
					+ "fieldRef metadata.name.", null);
		}
		this.ownPod = new PodReference(read.name(), read.uid());
	}

	/**
	 * Campaigns. After a stop whose release is still on its way, the first attempt waits for
	 * that release: a term being finished is never claimed again by the same process.
	 */
	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		if (this.migrationKey != null) {
			this.migrationKey.start(this::keyChanged);
		}
		if (this.term == null && this.claim == null) {
			scheduleAttempt(0);
		}
	}

	/**
	 * Stops campaigning. A term held ends as on a step-down: gate closed, leader work drained,
	 * then, with {@code release}, the Lease released; without, or if the work outlasts the drain
	 * timeout, left to expire. A claim on its way is given back the same way if it succeeds.
	 */
	synchronized CompletableFuture<Void> stop(boolean release, RevocationCause cause) {
		if (!this.running) {
			return this.pendingRelease;
		}
		this.running = false;
		stopWatching();
		if (this.migrationKey != null) {
			this.migrationKey.stop();
		}
		Term held = this.term;
		if (held != null && held.gateOpen()) {
			return finishTerm(cause, release).done;
		}
		if (held == null && this.claim != null) {
			return this.claim.giveBack(cause, release).done;
		}
		if (held == null) {
			abandonAttempts();
		}
		return this.pendingRelease;
	}

	/**
	 * Gives up the term held, and stays out of the election until one lease duration after the
	 * release (in a migration, two and a retry period, as the others first wait a lease duration
	 * for the key), or until another candidate took the Lease over. A claim on its way is given back
	 * if it succeeds.
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
		Term held = this.term;
		if (held != null && held.gateOpen()) {
			this.stayOutTransitions = held.acquired().transitions();
			stayOut(this.drainTimeoutNanos + this.renewDeadlineNanos + this.leaseDurationNanos);
			return finishTerm(cause, true).describe();
		}
		if (held != null) {
			return this.lastRelease.describe();
		}
		if (this.claim != null) {
			this.stayOutTransitions = this.claim.transitions;
			stayOut(this.renewDeadlineNanos + this.leaseDurationNanos);
			return this.claim.giveBack(cause, true).describe();
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

	/** Decides now on what was last seen; a read that was due sooner stays due. */
	private void decideAgain(long now) {
		long dueAt = (this.nextAttempt != null) ? this.nextAttemptAtNanos : NEVER;
		cancelNextAttempt();
		this.attemptSequence++;
		decide(now);
		// deciding again must not put off a read that was due sooner
		if (this.claim == null && this.nextAttempt != null && dueAt != NEVER && this.nextAttemptAtNanos - dueAt > 0) {
			scheduleAttempt(dueAt - now);
		}
	}

	/**
	 * Whether this instance leads, or does not lead, with the change already handled: a grant
	 * has been told, a gate that closed has been closed and told, not only run past its deadline.
	 * Taken under the election's lock, as the changes are made.
	 */
	synchronized boolean leadershipSettled(boolean leading) {
		Term held = this.term;
		return leading ? isLeader() : (held == null || !held.gateOpen());
	}

	/**
	 * Completes once the listener calls and the starts and stops of gated work queued so far
	 * have run. Taken under the election's lock, so that a change of leadership already seen
	 * through {@link #isLeader()} has queued its calls.
	 */
	synchronized CompletableFuture<Void> callbacksRun() {
		CompletableFuture<Void> listeners = new CompletableFuture<>();
		CompletableFuture<Void> work = new CompletableFuture<>();
		this.listenerLane.execute(() -> listeners.complete(null));
		this.workLane.execute(() -> work.complete(null));
		return CompletableFuture.allOf(listeners, work);
	}

	/** Completes when the release a step-down started was written or given up. */
	synchronized CompletableFuture<Void> pendingRelease() {
		return this.pendingRelease;
	}

	// ---- the attempt loop

	private void attempt(long sequence) {
		synchronized (this) {
			if (sequence != this.attemptSequence || (!this.running && this.term == null)) {
				return;
			}
			long now = now();
			this.lastAttemptNanos = now;
			if (this.term != null && this.lockStore != null) {
				checkLockWhileLeading(now, sequence);
			}
			else if (this.term != null) {
				renew(now, sequence, false);
			}
			else if (this.lockStore != null && this.watchOpen) {
				// the watch tells of every change of the lock; what the loop must poll is its owner
				decide(now);
			}
			else {
				read();
			}
		}
	}

	private void renew(long sentAt, long sequence, boolean afterConflict) {
		long timeout = leaderAttemptTimeout(sentAt);
		if (timeout <= 0) {
			return;
		}
		LeaseRecord seen = this.lastSeen;
		LeaseRecord renewal = seen.rewrite(this.identity, this.settings.leaseDurationSeconds(), seen.acquireTime(),
				wallNow(), seen.leaseTransitions());
		OwnWrites.Sent write = this.ownWrites.sent(renewal, sentAt, false);
		call("update", () -> this.store.update(renewal, Duration.ofNanos(timeout)), timeout, sequence,
				(stored, failure) -> renewed(write, sentAt, sequence, afterConflict, stored, failure));
	}

	private void renewed(OwnWrites.Sent write, long sentAt, long sequence, boolean afterConflict, LeaseRecord stored,
			Throwable failure) {
		this.listener.renewed(this.settings.name(), failure == null, now() - sentAt);
		this.ownWrites.refusedIf(write, failure);
		if (failure == null) {
			succeeded();
			this.ownWrites.answered(stored);
			observe(stored, sentAt);
			this.term = this.term.renewedAt(sentAt);
			scheduleAttempt(sentAt + this.renewPeriodNanos - now());
			Term held = this.term;
			if (held.gateOpen() && this.migrationKey != null && !this.migrationKey.held()) {
				lose(RevocationCause.MIGRATION_KEY_LOST, followerDelay());
				return;
			}
			if (held.gateOpen() && stored.prefersOtherThan(this.identity)
					&& !stored.preferredHolder().equals(held.preferredHolderAtGrant())) {
				logger.info("{} finishes its term of election '{}': {} names '{}' as preferred holder", this.identity,
						this.settings.name(), this.store.describe(), stored.preferredHolder());
				finishTerm(RevocationCause.PREFERRED_HOLDER, true);
			}
		}
		else if (failure instanceof LeaseNotFoundException) {
			failed(failure);
			observeAbsent(now());
			lose(RevocationCause.LEASE_DELETED, 0);
		}
		else if (failure instanceof LeaseConflictException && !afterConflict) {
			readWhileLeading(sequence);
		}
		else {
			failed(failure);
			retryRenewOrLose(failure);
		}
	}

	/** After a conflict the version held is stale: read once, then renew on it if still ours. */
	private void readWhileLeading(long sequence) {
		long timeout = leaderAttemptTimeout(now());
		if (timeout <= 0) {
			return;
		}
		call("get", () -> this.store.get(Duration.ofNanos(timeout)), timeout, sequence, (stored, failure) -> {
			long now = now();
			if (failure != null) {
				failed(failure);
				retryRenewOrLose(failure);
			}
			else if (stored == null) {
				observeAbsent(now);
				lose(RevocationCause.LEASE_DELETED, 0);
			}
			else if (this.ownWrites.wrote(stored)) {
				// Someone changed only what is not ours (a label, an annotation): renew on it.
				observe(stored, now);
				renew(now, sequence, true);
			}
			else {
				observe(stored, now);
				if (stored.isHeldBy(this.identity)) {
					conflictSeen(stored);
					lose(RevocationCause.IDENTITY_CONFLICT, followerDelay());
				}
				else {
					lose(RevocationCause.LEASE_TAKEN, followerDelay());
				}
			}
		});
	}

	/**
	 * The timeout of a leader's request sent now: what is left before the gate closes less a
	 * retry period, or half of it when that is more, so that a request that hangs leaves time for
	 * another one and a slow one still gets most of the time. When that is too short to be of
	 * use, nothing is sent and leadership ends when the gate closes; 0 then.
	 */
	private long leaderAttemptTimeout(long now) {
		long remaining = this.term.gateClosesAt(this.renewDeadlineNanos) - now;
		long timeout = Math.max(remaining - this.retryPeriodNanos, remaining / 2);
		if (timeout >= this.retryPeriodNanos / SHORTEST_ATTEMPT_DIVISOR) {
			return timeout;
		}
		if (remaining <= 0) {
			lose(RevocationCause.RENEW_DEADLINE_PASSED, 0);
		}
		else {
			scheduleAttempt(remaining);
		}
		return 0;
	}

	/** A request that got no answer used its time already: try again at once, else after a retry period. */
	private void retryRenewOrLose(Throwable failure) {
		long untilGateCloses = this.term.gateClosesAt(this.renewDeadlineNanos) - now();
		if (untilGateCloses <= 0) {
			lose(RevocationCause.RENEW_DEADLINE_PASSED, 0);
		}
		else {
			boolean noAnswer = failure instanceof LeaseStoreException storeFailure && storeFailure.isNoAnswer();
			scheduleAttempt(noAnswer ? 0 : Math.min(this.retryPeriodNanos, untilGateCloses));
		}
	}

	private void read() {
		long timeout = this.renewDeadlineNanos;
		this.readSequence = this.attemptSequence;
		call("get", () -> this.store.get(Duration.ofNanos(timeout)), timeout, this.attemptSequence,
				(stored, failure) -> {
					this.readSequence = NEVER;
					if (failure != null) {
						failed(failure);
						// The watch may be as dead as the reads are: poll until a read succeeds again.
						stopWatching();
						scheduleAttempt(followerDelay());
						return;
					}
					if ("get".equals(this.failingVerb)) {
						// Reading works again; failed writes, though, go on failing until one succeeds.
						succeeded();
					}
					long now = now();
					if (stored != null) {
						observe(stored, now);
					}
					else {
						observeAbsent(now);
					}
					watchFrom(this.lastSeen, now);
					decide(now);
				});
	}

	/**
	 * What a follower does with what it has seen: claim the Lease if it is free, written by this
	 * process, or unchanged (or missing) for a lease duration; otherwise wait for that moment,
	 * polling meanwhile unless an open watch will tell of changes. A streak of failed writes ends
	 * only when a write succeeds or there is nothing to claim, not when a read succeeds, so that
	 * a candidate that can read but never write (a missing namespace, no create permission) keeps
	 * failing.
	 */
	private void decide(long now) {
		if (this.lockStore != null) {
			decideForLife(now);
			return;
		}
		LeaseRecord seen = this.lastSeen;
		if (stayingOut(now)) {
			waitFor(Math.min(pollDelay(), this.stayOutUntilNanos - now));
			return;
		}
		if (seen == null) {
			long untilMissingLongEnough = this.absentSinceNanos
					+ Math.max(this.leaseDurationNanos, this.lastLeaseDurationSeenNanos) - now;
			if (untilMissingLongEnough <= 0 && mayClaim(now)) {
				claim(null, nextTransitions());
			}
			else if (untilMissingLongEnough <= 0) {
				waitForTurn();
			}
			else {
				waitFor(Math.min(pollDelay(), untilMissingLongEnough));
			}
			return;
		}
		if (this.identityConflict == null) {
			OwnWrites.Sent lostClaim = this.ownWrites.claimSince(seen, now - this.renewDeadlineNanos);
			if (lostClaim != null) {
				// A claim of ours whose answer was lost, read back: it is stored, so its term runs
				// from when it was sent, as if it had been answered, and nothing is written again.
				this.ownWrites.answered(seen);
				succeeded();
				grant(newTerm(seen, lostClaim.sentAtNanos()));
				return;
			}
			if (this.ownWrites.claimableAtOnce(seen)) {
				claim(seen, seen.transitions() + 1);
				return;
			}
			if (releasedForUs(seen)) {
				if (mayClaim(now)) {
					claim(seen, seen.transitions() + 1);
				}
				else {
					waitForTurn();
				}
				return;
			}
		}
		long untilExpiry = this.observedAtNanos + expiryNanos(seen) - now;
		if (untilExpiry <= 0 && mayClaim(now)) {
			endConflict("its last version naming '" + this.identity + "' expired");
			claim(seen, seen.transitions() + 1);
		}
		else if (untilExpiry <= 0) {
			waitForTurn();
		}
		else {
			waitFor(Math.min(pollDelay(), untilExpiry));
		}
	}

	/**
	 * A for-life follower's rules: a released lock is replaced at once; a lock owned by this very
	 * Pod (a restarted container) is continued; a lock of another Pod is replaced once that Pod is
	 * gone, and so is a lock deleted without a release, by a hand or a tool, while its Pod lived;
	 * a missing lock never seen held is created; a Lease that is no lock at all (left by the lease
	 * mode, or written by hand) is replaced once released or expired.
	 */
	private void decideForLife(long now) {
		LeaseRecord seen = this.lastSeen;
		if (stayingOut(now)) {
			waitFor(Math.min(pollDelay(), this.stayOutUntilNanos - now));
			return;
		}
		if (seen == null) {
			PodReference lastOwner = (this.lockDeletedWhileHeld != null)
					? this.lockStore.podOwner(this.lockDeletedWhileHeld) : null;
			if (lastOwner != null && !lastOwner.equals(this.ownPod)) {
				checkOwner(this.lockDeletedWhileHeld, lastOwner);
			}
			else {
				claim(null, nextTransitions());
			}
			return;
		}
		if (releasedForUs(seen)) {
			replaceLock(seen, "it was released");
			return;
		}
		PodReference owner = this.lockStore.podOwner(seen);
		if (owner == null) {
			long untilExpiry = this.observedAtNanos + expiryNanos(seen) - now;
			if (untilExpiry <= 0 && !seen.isForLifeLock()) {
				replaceLock(seen, "it is no for-life lock and expired");
			}
			else {
				waitFor(Math.min(pollDelay(), untilExpiry));
			}
			return;
		}
		if (owner.equals(this.ownPod)) {
			if (this.identityConflict == null) {
				// this Pod's lock, left by an earlier process in it: lead on, with a write that proves it
				claim(seen, seen.transitions());
			}
			else {
				waitFor(pollDelay());
			}
			return;
		}
		checkOwner(seen, owner);
	}

	/** Reads the lock's owner Pod (and its Node, where that may count) and judges whether it is gone. */
	private void checkOwner(LeaseRecord seen, PodReference owner) {
		long timeout = this.renewDeadlineNanos;
		long sequence = this.attemptSequence;
		call("get Pod " + owner.name() + " owning", () -> this.lockStore.pod(owner.name(), Duration.ofNanos(timeout)),
				timeout, sequence, (pod, failure) -> {
					if (failure != null) {
						failed(failure);
						scheduleAttempt(followerDelay());
					}
					else if (pod != null && pod.nodeName() != null && owner.uid().equals(pod.uid())
							&& this.ownerLiveness.readsNodes()) {
						call("get Node " + pod.nodeName() + " of the owner of",
								() -> this.lockStore.nodeReady(pod.nodeName(), Duration.ofNanos(timeout)), timeout,
								sequence, (ready, nodeFailure) -> {
									if (nodeFailure != null) {
										// judged as if Ready: only a Node seen NotReady counts
										failed(nodeFailure);
									}
									judgeOwner(seen, owner, pod, (nodeFailure == null) ? ready : null,
											nodeFailure == null);
								});
					}
					else {
						judgeOwner(seen, owner, pod, null, true);
					}
				});
	}

	private void judgeOwner(LeaseRecord seen, PodReference owner, PodState pod, Boolean nodeReady,
			boolean readsSucceeded) {
		OwnerLiveness.Verdict verdict = this.ownerLiveness.judge(owner, pod, nodeReady, now());
		if (verdict.gone()) {
			replaceLock(seen, verdict.goneBecause());
		}
		else if (readsSucceeded) {
			waitFor(Math.min(followerDelay(), verdict.untilGoneNanos()));
		}
		else {
			scheduleAttempt(Math.min(followerDelay(), verdict.untilGoneNanos()));
		}
	}

	/**
	 * Deletes the version seen, with its uid and resourceVersion as precondition, then creates
	 * this replica's lock: of followers racing to do so, one deletes and one creates, and the
	 * others find the lock changed or existing.
	 */
	private void replaceLock(LeaseRecord seen, String because) {
		if (!because.equals(this.lastTakeOverReason)) {
			logger.info("{} takes {} of election '{}' over: {}", this.identity, this.store.describe(),
					this.settings.name(), because);
			this.lastTakeOverReason = because;
		}
		long timeout = claimTimeout();
		call("delete", () -> this.lockStore.delete(seen, Duration.ofNanos(timeout)), timeout, this.attemptSequence,
				(ignored, failure) -> {
					if (failure == null || failure instanceof LeaseNotFoundException) {
						succeeded();
						observeAbsent(now());
						claim(null, Math.max(seen.transitions(), this.highestTransitionsSeen) + 1);
					}
					else if (failure instanceof LeaseConflictException) {
						// written, or deleted and created again, since it was judged: judge it again
						succeeded();
						scheduleAttempt(0);
					}
					else {
						failed(failure);
						scheduleAttempt(followerDelay());
					}
				});
	}

	/** A leader's tick for life: nothing to renew; read the lock only while no watch tells of its changes. */
	private void checkLockWhileLeading(long now, long sequence) {
		if (this.running && this.watchListener == null) {
			watchFrom(this.lastSeen, now);
		}
		if (this.watch != null && this.watchOpen) {
			scheduleAttempt(followerDelay());
			return;
		}
		long timeout = this.renewDeadlineNanos;
		call("get", () -> this.store.get(Duration.ofNanos(timeout)), timeout, sequence, (stored, failure) -> {
			if (failure != null) {
				failed(failure);
			}
			else {
				succeeded();
				leaderSaw(stored, now());
			}
			if (this.term != null) {
				scheduleAttempt(followerDelay());
			}
		});
	}

	/**
	 * What a for-life leader does with a version of its lock: keeps leading while it is the
	 * object acquired and written by this process (whatever else, a label, changed), and closes
	 * the gate once it was deleted, created again or written by another.
	 */
	private void leaderSaw(LeaseRecord record, long now) {
		Term held = this.term;
		if (record == null) {
			observeAbsent(now);
			lose(RevocationCause.LEASE_DELETED, 0);
			return;
		}
		if (record.isOlderThan(this.lastSeen)) {
			return;
		}
		observe(record, now);
		if (record.isOtherObjectThan(held.acquired())) {
			lose(RevocationCause.LEASE_DELETED, 0);
		}
		else if (this.ownWrites.wrote(record)) {
			return;
		}
		else if (record.isHeldBy(this.identity)) {
			conflictSeen(record);
			lose(RevocationCause.IDENTITY_CONFLICT, followerDelay());
		}
		else {
			lose(RevocationCause.LEASE_TAKEN, followerDelay());
		}
	}

	/**
	 * Whether a holder released the Lease, so that it may be taken at once: no holder, the shape
	 * of a release, the same Lease object that was last seen held, and no other candidate
	 * preferred. A Lease created without a holder (by hand, or by a tool that deletes and
	 * applies it again) may have a holder whose gate is still open on a Lease deleted before.
	 */
	private boolean releasedForUs(LeaseRecord seen) {
		return seen.looksReleased() && !this.goneSinceLastHeld && !seen.prefersOtherThan(this.identity);
	}

	/**
	 * How long a version must stay unchanged before it may be claimed: the holder's own lease
	 * duration; for a Lease without holder that may not be taken at once, at least ours, so that
	 * a holder of a Lease deleted before has lost its gate, or a preferred holder had its turn.
	 */
	private long expiryNanos(LeaseRecord seen) {
		long holders = leaseDurationNanos(seen);
		return seen.hasHolder() ? holders : Math.max(holders, this.leaseDurationNanos);
	}

	/**
	 * Whether balancing lets this replica claim the free Lease now (always, when it is not
	 * balanced), and, in a migration, the older election's key is its own or was free long enough.
	 */
	private boolean mayClaim(long now) {
		Balancer balancing = this.balancer;
		return (balancing == null || balancing.mayClaim(this, now))
				&& (this.migrationKey == null || this.migrationKey.claimable(now));
	}

	/**
	 * The key of the older election may have become claimable, or stopped naming this replica's
	 * Pod: a leader without it loses its gate at once; a follower waiting for it decides again.
	 */
	private synchronized void keyChanged() {
		long now = now();
		Term held = this.term;
		if (held != null && held.gateOpen() && !this.migrationKey.held()) {
			lose(RevocationCause.MIGRATION_KEY_LOST, followerDelay());
			return;
		}
		if (mayDecideAgain(now) && mayClaim(now)) {
			decideAgain(now);
		}
	}

	/**
	 * Whether a follower may decide again now on what it last saw, without reading: only on what
	 * a read or a watch told (a Lease never seen is not yet known to be missing), and not while a
	 * read is on its way, since its answer may show the Lease changed.
	 */
	private boolean mayDecideAgain(long now) {
		return this.running && this.term == null && this.claim == null && !this.claimingKey && this.lockStore == null
				&& (this.lastSeen != null || this.absentSinceNanos != NEVER) && this.readSequence != this.attemptSequence
				&& !stayingOut(now);
	}

	/**
	 * The Lease is free, and another member of its group is to claim it: read again after a
	 * retry period unless a watch tells of changes; the balancer wakes this election when its
	 * turn comes.
	 */
	private void waitForTurn() {
		waitFor(Math.min(pollDelay(), this.leaseDurationNanos));
	}

	/** The Lease was read (or sent) and nothing can be claimed yet: the attempt succeeded. */
	private void waitFor(long delayNanos) {
		succeeded();
		scheduleAttempt(delayNanos);
	}

	// ---- watching as a follower

	private void watchFrom(LeaseRecord seen, long now) {
		if (this.watchListener != null || (this.watchRetryAtNanos != NEVER && now - this.watchRetryAtNanos < 0)) {
			return;
		}
		WatchListener listener = new WatchListener();
		LeaseWatch started;
		try {
			started = this.store.watch((seen != null) ? seen.resourceVersion() : null, listener);
		}
		catch (RuntimeException ex) {
			// The watch could not be opened (no watch permission, no such namespace): poll, and
			// try again after a backoff, as when a watch ends. The attempt goes on regardless.
			backOffWatching(now, ex);
			return;
		}
		if (started != null) {
			this.watchListener = listener;
			this.watch = started;
			this.watchOpen = false;
		}
	}

	private void stopWatching() {
		if (this.watch != null) {
			this.watch.close();
		}
		this.watch = null;
		this.watchListener = null;
		this.watchOpen = false;
	}

	/** The server accepted the watch: read once more, for what changed while it was opening. */
	private synchronized void watchOpened(WatchListener listener) {
		if (listener != this.watchListener) {
			return;
		}
		this.watchOpen = true;
		if (this.running && this.term == null && this.claim == null) {
			scheduleAttempt(0);
		}
	}

	private synchronized void watched(WatchListener listener, LeaseRecord record) {
		if (listener != this.watchListener) {
			return;
		}
		if (this.term != null && this.lockStore != null) {
			this.lastAttemptNanos = now();
			leaderSaw(record, now());
			return;
		}
		if (!this.running || this.term != null) {
			return;
		}
		this.watchBackoffNanos = this.retryPeriodNanos;
		long now = now();
		// Acting on an event is the loop at work: while a leader renews, a watching follower
		// never reaches its own next attempt, and must not look stalled.
		this.lastAttemptNanos = now;
		if (record != null) {
			observe(record, now);
		}
		else {
			observeAbsent(now);
		}
		tellBalancer();
		if (this.claim != null) {
			return;
		}
		cancelNextAttempt();
		this.attemptSequence++;
		decide(now);
	}

	private void tellBalancer() {
		Balancer balancing = this.balancer;
		if (balancing != null) {
			balancing.leaseChanged();
		}
	}

	/**
	 * A deletion told by the watch, of the object last seen or of an older one: a follower that
	 * read the Lease created again, or a for-life leader that replaced a lock, may hear of the
	 * deletion of the object before only then, and that one is not the Lease there is now.
	 */
	private synchronized void watchedDeletion(WatchListener listener, LeaseRecord lastVersion) {
		Term held = this.term;
		LeaseRecord known = (this.lastSeen != null) ? this.lastSeen : (held != null) ? held.acquired() : null;
		if (lastVersion != null && lastVersion.isOtherObjectThan(known)) {
			return;
		}
		watched(listener, null);
	}

	private synchronized void watchEnded(WatchListener listener, Throwable cause) {
		if (listener != this.watchListener) {
			return;
		}
		this.watch = null;
		this.watchListener = null;
		this.watchOpen = false;
		backOffWatching(now(), cause);
		if (this.running && this.term == null && this.claim == null) {
			scheduleAttempt(followerDelay());
		}
	}

	/** Polls instead of watching for a backoff that doubles each time, up to a bound. */
	private void backOffWatching(long now, Throwable cause) {
		this.watchRetryAtNanos = now + this.watchBackoffNanos;
		logger.debug("Watch of {} ended or failed, polling for {} ms: {}", this.store.describe(),
				Duration.ofNanos(this.watchBackoffNanos).toMillis(), String.valueOf(cause));
		this.watchBackoffNanos = Math.min(this.watchBackoffNanos * 2, MAX_WATCH_BACKOFF_FACTOR * this.retryPeriodNanos);
	}

	/** How long a follower waits before reading again when nothing else wakes it. */
	private long pollDelay() {
		return (this.watch != null && this.watchOpen) ? Long.MAX_VALUE : followerDelay();
	}

	/**
	 * Hands the store's events to the scheduler, one at a time and in the order the store told
	 * them: the scheduler has several threads, and a deletion handled after the creation that
	 * followed it would show a Lease missing that exists. One per started watch, so stale ones
	 * are told apart.
	 */
	private final class WatchListener implements LeaseWatch.Listener {

		private final Executor events = new SerialExecutor(Election.this.runtime.scheduler()::execute,
				"the watch of election '" + Election.this.settings.name() + "'");

		@Override
		public void opened() {
			tell(() -> watchOpened(this));
		}

		@Override
		public void changed(LeaseRecord record) {
			tell(() -> watched(this, record));
		}

		@Override
		public void deleted(LeaseRecord lastVersion) {
			tell(() -> watchedDeletion(this, lastVersion));
		}

		@Override
		public void ended(Throwable cause) {
			tell(() -> watchEnded(this, cause));
		}

		/** An event that comes as the watch closes, once the engine's threads are gone, is of no use. */
		private void tell(Runnable event) {
			try {
				this.events.execute(event);
			}
			catch (RejectedExecutionException ex) {
				logger.debug("Election '{}' has stopped: a watch event is dropped", Election.this.settings.name());
			}
		}

	}

	// ---- claiming

	/**
	 * Writes this candidate as holder: an update of the version seen, or a create when none. In a
	 * migration, the key of the older election is written first, unless it is this replica's.
	 */
	private void claim(LeaseRecord seen, int transitions) {
		if (this.claimingKey) {
			return;
		}
		if (this.migrationKey != null && !this.migrationKey.held()) {
			claimKeyThenLease(seen, transitions);
			return;
		}
		long sentAt = now();
		Instant wallNow = wallNow();
		int duration = (this.lockStore != null) ? LeaseRecord.FOR_LIFE_LEASE_DURATION_SECONDS
				: this.settings.leaseDurationSeconds();
		LeaseRecord claimed = (seen != null) ? seen.rewrite(this.identity, duration, wallNow, wallNow, transitions)
				: LeaseRecord.of(this.identity, duration, wallNow, wallNow, transitions);
		OwnWrites.Sent write = this.ownWrites.sent(claimed, sentAt, true);
		long timeout = claimTimeout();
		String verb = (seen != null) ? "update" : "create";
		Supplier<CompletableFuture<LeaseRecord>> request;
		if (seen != null) {
			request = () -> this.store.update(claimed, Duration.ofNanos(timeout));
		}
		else if (this.lockStore != null) {
			request = () -> this.lockStore.createOwnedBy(claimed, this.ownPod, Duration.ofNanos(timeout));
		}
		else {
			request = () -> this.store.create(claimed, Duration.ofNanos(timeout));
		}
		Claim sent = new Claim(transitions, seen == null);
		this.claim = sent;
		call(verb, request, timeout, ALWAYS, (stored, failure) -> {
			this.ownWrites.refusedIf(write, failure);
			claimed(sent, sentAt, stored, failure);
		}, (ex) -> claimed(sent, sentAt, null, ex));
	}

	private void claimKeyThenLease(LeaseRecord seen, int transitions) {
		if (!this.migrationKey.claimable(now())) {
			// a claim at once (a claim of ours read back lost) needs the key as much as any other
			waitFor(pollDelay());
			return;
		}
		long timeout = claimTimeout();
		this.claimingKey = true;
		call("write", () -> this.migrationKey.claim(Duration.ofNanos(timeout)), timeout, ALWAYS,
				(ignored, failure) -> keyClaimed(seen, transitions, failure),
				(ex) -> keyClaimed(seen, transitions, ex));
	}

	private void keyClaimed(LeaseRecord seen, int transitions, Throwable failure) {
		this.claimingKey = false;
		if (failure != null) {
			failed(failure);
			scheduleAttempt(followerDelay());
		}
		else if (!this.running) {
			// stopped while the key was claimed: given back at once, as nothing was led
			this.migrationKey.removeIfOurs(Duration.ofNanos(this.renewDeadlineNanos));
		}
		else {
			claim(seen, transitions);
		}
	}

	/** As a leader's request: a claim answered late still leaves time to renew. */
	private long claimTimeout() {
		return Math.max(this.renewDeadlineNanos - this.retryPeriodNanos, this.renewDeadlineNanos / 2);
	}

	private int nextTransitions() {
		return (this.highestTransitionsSeen >= 0) ? this.highestTransitionsSeen + 1 : 0;
	}

	/** The claim was answered (or not): whatever happened meanwhile, its outcome is dealt with. */
	private void claimed(Claim sent, long sentAt, LeaseRecord stored, Throwable failure) {
		this.claim = null;
		if (failure != null) {
			if (failure instanceof LeaseNotFoundException) {
				succeeded();
				observeAbsent(now());
			}
			else if (failure instanceof LeaseConflictException) {
				succeeded();
				if (sent.created && this.lastSeen == null) {
					// A create refused because the Lease exists: it was there when refused, so it has not
					// been missing since, whatever this replica last saw; read it at once.
					this.absentSinceNanos = now();
					sent.readAtOnce = true;
				}
			}
			else {
				failed(failure);
			}
			if (sent.giveBack != null) {
				finish(sent.giveBack, StepDown.Release.NOT_LEADER, null);
			}
			if (this.running) {
				// A claim that got no answer may have been written: read at once, to lead on it.
				boolean noAnswer = failure instanceof LeaseStoreException storeFailure && storeFailure.isNoAnswer();
				scheduleAttempt((noAnswer || sent.readAtOnce || failure instanceof LeaseNotFoundException) ? 0
						: followerDelay());
			}
			return;
		}
		succeeded();
		this.ownWrites.answered(stored);
		observe(stored, sentAt);
		Term won = newTerm(stored, sentAt);
		if (sent.giveBack != null) {
			// Won after a stop or a step-down: give it back without opening the gate.
			this.term = won.closed();
			sent.giveBack.termNumber = won.number();
			if (sent.giveBack.write) {
				writeRelease(sent.giveBack, true);
			}
			else {
				dropTerm();
				finish(sent.giveBack, StepDown.Release.NOT_WRITTEN, "a claim won while stopping is left to expire");
			}
			return;
		}
		grant(won);
	}

	/**
	 * Opens the gate of a term won; renewals follow a renew period after its acquiring write was
	 * sent. A write that took longer than the renew deadline would leave the gate closed already:
	 * the Lease is ours then, so the next attempt claims it again at once.
	 */
	private void grant(Term won) {
		long now = now();
		if (!won.gateOpenAt(now, this.gateDeadlineNanos)) {
			scheduleAttempt(0);
			return;
		}
		this.term = won;
		if (this.lockStore == null) {
			stopWatching();
		}
		logger.info("{} became leader of election '{}' ({}), fencing token {} ({})", this.identity,
				this.settings.name(), this.store.describe(), won.fencingToken(), won.fencingTokenSource());
		this.workLane.execute(this::startWork);
		this.listener.granted(this.settings.name(), won.fencingToken(), now);
		tellBalancer();
		scheduleAttempt(won.lastRenewStartNanos() + this.renewPeriodNanos - now);
	}

	/**
	 * A new term from the acquiring write's answer. The fencing token is that write's
	 * resourceVersion, which keeps rising across deletion and recreation of the Lease; where the
	 * server's versions are not integers, its leaseTransitions.
	 */
	private Term newTerm(LeaseRecord acquired, long sentAt) {
		Long version = acquired.resourceVersionNumber();
		long token = (version != null) ? version : acquired.transitions();
		String source = (version != null) ? LeaderStatus.RESOURCE_VERSION : LeaderStatus.LEASE_TRANSITIONS;
		return new Term(++this.termsBegun, token, source, acquired, acquired.preferredHolder(), sentAt, true);
	}

	/** Starts the gated work on the work lane, apart from the listeners. */
	private void startWork() {
		try {
			this.work.start(this.settings.name());
			this.gatedWorkFailure = null;
		}
		catch (RuntimeException ex) {
			this.gatedWorkFailure = String.valueOf(ex.getMessage());
			logger.error("Gated work of election '{}' failed to start; it is started again at the next grant",
					this.settings.name(), ex);
		}
	}

	// ---- losing and finishing a term

	/** Leadership was lost: gate closed (if still open), term dropped, campaign again after the delay. */
	private void lose(RevocationCause cause, long retryDelayNanos) {
		if (this.term.gateOpen()) {
			logger.warn("{} lost leadership of election '{}' ({}): {}", this.identity, this.settings.name(),
					this.store.describe(), cause);
			closeGate(cause);
		}
		else {
			logger.warn("{} lost {} of election '{}' before releasing it: {}", this.identity, this.store.describe(),
					this.settings.name(), cause);
		}
		this.term = null;
		this.ownWrites.termEnded();
		tellBalancer();
		if (this.running) {
			scheduleAttempt(retryDelayNanos);
		}
		else {
			abandonAttempts();
			stopWatching();
		}
	}

	/**
	 * Closes the gate of the term held and tells the leader work, then the listeners. The term
	 * itself stays held until it is released, expires or is lost.
	 * @return completes when the gated work was stopped
	 */
	private CompletableFuture<Void> closeGate(RevocationCause cause) {
		Term held = this.term;
		long now = now();
		this.term = held.closed();
		long deadline = held.gateClosesAt(this.gateDeadlineNanos);
		long gateClosedAt = (now - deadline < 0) ? now : deadline;
		String election = this.settings.name();
		try {
			this.work.gateClosed(election);
		}
		catch (RuntimeException ex) {
			logger.error("Leader work of election '{}' failed to take note of the closed gate", election, ex);
		}
		CompletableFuture<Void> stopped = new CompletableFuture<>();
		this.workLane.execute(() -> {
			try {
				this.work.stop(election);
			}
			finally {
				stopped.complete(null);
			}
		});
		this.listener.revoked(election, cause, gateClosedAt);
		return stopped;
	}

	/**
	 * Ends the term held of our own accord: closes the gate, stops the gated work, waits for the
	 * calls under way (renewing meanwhile), then writes the release; or, with {@code write}
	 * false or if the calls outlast the drain timeout, stops renewing and leaves the Lease to
	 * expire.
	 */
	private Release finishTerm(RevocationCause cause, boolean write) {
		CompletableFuture<Void> workStopped = closeGate(cause);
		CompletableFuture<Void> callsEnded;
		try {
			callsEnded = this.work.whenCallsEnded(this.settings.name());
		}
		catch (RuntimeException ex) {
			callsEnded = CompletableFuture.failedFuture(ex);
		}
		Release release = new Release(cause, write);
		release.termNumber = this.term.number();
		release.drain = CompletableFuture.allOf(workStopped, callsEnded);
		this.lastRelease = release;
		this.pendingRelease = release.done;
		ElectionScheduler.Cancellable timer = this.runtime.scheduler()
			.schedule(() -> drainRanOut(release), this.drainTimeoutNanos);
		release.drain.whenComplete((ignored, failure) -> this.runtime.scheduler().execute(() -> drained(release, timer)));
		return release;
	}

	private synchronized void drained(Release release, ElectionScheduler.Cancellable timer) {
		timer.cancel();
		if (release.settled) {
			return;
		}
		release.settled = true;
		Term held = this.term;
		if (held == null || held.number() != release.termNumber) {
			finish(release, StepDown.Release.NOT_WRITTEN, "leadership was lost before the leader work ended");
		}
		else if (!release.write) {
			dropTerm();
			finish(release, StepDown.Release.NOT_WRITTEN, "not released (release-on-shutdown is off): "
					+ ((this.lockStore != null) ? "the lock is deleted with this Pod"
							: "the Lease expires a lease duration after its last renewal"));
		}
		else if (this.migrationKey != null) {
			// drained: old replicas may take the key at once, and new ones after a lease duration
			this.migrationKey.removeIfOurs(Duration.ofNanos(Math.max(1, releaseTimeLeft())))
				.whenComplete((ignored, failure) -> this.runtime.scheduler().execute(() -> keyRemoved(release, failure)));
		}
		else {
			writeRelease(release, true);
		}
	}

	private synchronized void keyRemoved(Release release, Throwable failure) {
		if (failure != null) {
			logger.warn("{} could not remove {} before releasing {}: {}", this.identity, this.migrationKey.describe(),
					this.store.describe(), failure.toString());
		}
		Term held = this.term;
		if (held == null || held.number() != release.termNumber) {
			finish(release, StepDown.Release.NOT_WRITTEN, "leadership was lost before the release");
		}
		else {
			writeRelease(release, true);
		}
	}

	private synchronized void drainRanOut(Release release) {
		if (release.settled || release.drain.isDone()) {
			// the drain ended as the time ran out: its own step releases
			return;
		}
		List<String> calls = callsUnderWay();
		if (this.lockStore != null) {
			// A lock for life never expires: it is deleted once the calls end, or with this Pod.
			release.detail = calls.size() + " leader-only call(s) still running after the drain timeout of "
					+ Duration.ofNanos(this.drainTimeoutNanos).toMillis() + " ms; the lock is deleted once they end";
			logger.warn("{} keeps {} of election '{}' until its leader work ends: {}: {}", this.identity,
					this.store.describe(), this.settings.name(), release.detail, calls);
			return;
		}
		release.settled = true;
		String detail = calls.size() + " leader-only call(s) still running after the drain timeout of "
				+ Duration.ofNanos(this.drainTimeoutNanos).toMillis() + " ms; the Lease expires a lease duration "
				+ "after its last renewal";
		logger.warn("{} does not release {} of election '{}': {}: {}", this.identity, this.store.describe(),
				this.settings.name(), detail, calls);
		Term held = this.term;
		if (held != null && held.number() == release.termNumber) {
			dropTerm();
		}
		finish(release, StepDown.Release.NOT_WRITTEN, detail);
	}

	/**
	 * Writes the release as client-go does: no holder and a lease duration of one second, so
	 * followers take over at once; renewals stop first, so that the two never race.
	 */
	private void writeRelease(Release release, boolean retryOnConflict) {
		abandonAttempts();
		long remaining = releaseTimeLeft();
		if (remaining <= 0) {
			dropTerm();
			finish(release, StepDown.Release.NOT_WRITTEN, "the renew deadline passed before the release");
			return;
		}
		LeaseRecord seen = this.lastSeen;
		Instant wallNow = wallNow();
		LeaseRecord released = seen.rewrite("", 1, wallNow, wallNow, seen.leaseTransitions());
		call("update", () -> this.store.update(released, Duration.ofNanos(remaining)), remaining, ALWAYS,
				(stored, failure) -> {
					if (failure == null) {
						observe(stored, now());
						dropTerm();
						logger.info("{} released {} of election '{}'", this.identity, this.store.describe(),
								this.settings.name());
						if (this.lockStore != null) {
							deleteReleasedLock(release, stored, remaining);
						}
						else {
							finish(release, StepDown.Release.WRITTEN, null);
						}
					}
					else if (failure instanceof LeaseConflictException && retryOnConflict) {
						rereadBeforeRelease(release);
					}
					else {
						failed(failure);
						dropTerm();
						finish(release, StepDown.Release.NOT_WRITTEN, "the release failed: " + failure.getMessage());
					}
				}, (ex) -> releaseFailed(release, ex));
	}

	/**
	 * A renewal answered late may have moved the version: release the current one only if it
	 * still holds the term being released, never a newer term.
	 */
	private void rereadBeforeRelease(Release release) {
		long remaining = Math.max(1, releaseTimeLeft());
		call("get", () -> this.store.get(Duration.ofNanos(remaining)), remaining, ALWAYS, (stored, failure) -> {
			if (failure == null && stored != null && holdsTerm(stored, this.term)) {
				observe(stored, now());
				writeRelease(release, false);
			}
			else {
				if (stored != null) {
					observe(stored, now());
				}
				dropTerm();
				finish(release, StepDown.Release.NOT_WRITTEN, "the Lease no longer holds the term being released");
			}
		}, (ex) -> releaseFailed(release, ex));
	}

	/**
	 * How long a release may take: until the gate would have closed, since a release sent after
	 * that could free a Lease a successor already took; for life, a renew deadline.
	 */
	private long releaseTimeLeft() {
		return (this.lockStore != null) ? this.renewDeadlineNanos
				: this.term.gateClosesAt(this.renewDeadlineNanos) - now();
	}

	/**
	 * Deletes a for-life lock once released: released first, so that followers that saw it held
	 * by a live Pod know the deletion was no hand's. A follower may replace the released lock
	 * first; then this deletion finds it changed or gone, and the release stands.
	 */
	private void deleteReleasedLock(Release release, LeaseRecord released, long timeout) {
		call("delete", () -> this.lockStore.delete(released, Duration.ofNanos(timeout)), timeout, ALWAYS,
				(ignored, failure) -> {
					boolean stillThere = failure != null && !(failure instanceof LeaseNotFoundException)
							&& !(failure instanceof LeaseConflictException);
					finish(release, StepDown.Release.WRITTEN, stillThere ? "released; the lock could not be deleted: "
							+ failure.getMessage() + "; a follower replaces it" : null);
				}, (ex) -> finish(release, StepDown.Release.WRITTEN, "released; the lock could not be deleted: " + ex));
	}

	private void releaseFailed(Release release, RuntimeException ex) {
		logger.error("Releasing {} of election '{}' failed", this.store.describe(), this.settings.name(), ex);
		failed(ex);
		dropTerm();
		finish(release, StepDown.Release.NOT_WRITTEN, "the release failed: " + ex);
	}

	/** Whether the version is one this process wrote in the given term: same acquisition. */
	private boolean holdsTerm(LeaseRecord version, Term held) {
		LeaseRecord acquired = held.acquired();
		return this.ownWrites.wrote(version) && LeaseRecord.sameInstant(version.acquireTime(), acquired.acquireTime())
				&& Objects.equals(version.leaseTransitions(), acquired.leaseTransitions());
	}

	/** The release is over, written or not: campaign again (after staying out, on a step-down). */
	private void finish(Release release, StepDown.Release outcome, String detail) {
		release.outcome = outcome;
		release.detail = detail;
		if (release.cause == RevocationCause.STEPPED_DOWN && this.stayingOut) {
			// in a migration the others first wait a lease duration for the key the release removed
			stayOut((this.migrationKey != null) ? 2 * this.leaseDurationNanos + this.retryPeriodNanos
					: this.leaseDurationNanos);
		}
		release.done.complete(null);
		if (this.running && this.term == null && this.claim == null) {
			scheduleAttempt(followerDelay());
		}
	}

	/** No term is held any more: renewals stop, and, once stopped, every watch. */
	private void dropTerm() {
		this.term = null;
		this.ownWrites.termEnded();
		tellBalancer();
		abandonAttempts();
		if (!this.running) {
			stopWatching();
		}
	}

	private List<String> callsUnderWay() {
		try {
			return this.work.callsUnderWay(this.settings.name());
		}
		catch (RuntimeException ex) {
			return List.of("(the calls under way could not be listed: " + ex + ")");
		}
	}

	private StepDown notLeader() {
		return new StepDown(this.settings.name(), StepDown.Release.NOT_LEADER, List.of(), null);
	}

	// ---- one identity, one writer

	/**
	 * Another process writes the Lease under our identity: it is held by someone else, and two
	 * writers under one identity could both believe they lead, so this one keeps out.
	 */
	private void conflictSeen(LeaseRecord version) {
		if (this.identityConflict == null) {
			logger.error("Another process writes {} of election '{}' as '{}', this replica's identity: two replicas "
					+ "were given one identity (leader.election.identity). This replica keeps out of the election "
					+ "while the other one writes.", this.store.describe(), this.settings.name(), this.identity);
		}
		this.identityConflict = "another process writes " + this.store.describe() + " as '" + this.identity
				+ "' (renewTime " + version.renewTime() + "); this replica keeps out";
	}

	private void endConflict(String reason) {
		if (this.identityConflict != null) {
			logger.info("{} of election '{}': {}; '{}' campaigns again", this.store.describe(), this.settings.name(),
					reason, this.identity);
			this.identityConflict = null;
		}
	}

	/**
	 * Tells versions this process wrote from versions another process wrote under our identity:
	 * the first of those may be an earlier process's, left behind; a second, newer one means a
	 * live writer.
	 */
	private void noticeIdentity(LeaseRecord version) {
		if (!version.isHeldBy(this.identity)) {
			this.foreignVersionNamingUs = null;
			endConflict("it no longer names '" + this.identity + "'");
		}
		else if (this.ownWrites.wrote(version)) {
			this.foreignVersionNamingUs = null;
		}
		else {
			LeaseRecord before = this.foreignVersionNamingUs;
			if (before != null && !LeaseRecord.sameInstant(before.renewTime(), version.renewTime())) {
				conflictSeen(version);
			}
			this.foreignVersionNamingUs = version;
		}
	}

	// ---- helpers

	/**
	 * Sends a store call with a timeout measured on the engine's clock and continues on the
	 * scheduler with its result, unless the loop moved on meanwhile ({@link #ALWAYS} always
	 * continues). A continuation that throws is logged and the loop retries.
	 */
	private <T> void call(String verb, Supplier<CompletableFuture<T>> request, long timeoutNanos, long sequence,
			BiConsumer<T, Throwable> then) {
		call(verb, request, timeoutNanos, sequence, then, (ex) -> {
			failed(ex);
			if (this.running || this.term != null) {
				scheduleAttempt(this.retryPeriodNanos);
			}
		});
	}

	/** As above, with what to do when the continuation throws. */
	private <T> void call(String verb, Supplier<CompletableFuture<T>> request, long timeoutNanos, long sequence,
			BiConsumer<T, Throwable> then, Consumer<RuntimeException> recover) {
		CompletableFuture<T> future;
		try {
			future = request.get();
		}
		catch (RuntimeException ex) {
			future = CompletableFuture.failedFuture(ex);
		}
		AtomicBoolean settled = new AtomicBoolean();
		CompletableFuture<T> pending = future;
		ElectionScheduler.Cancellable timer = this.runtime.scheduler().schedule(() -> {
			if (settled.compareAndSet(false, true)) {
				pending.cancel(true);
				continueWith(sequence, () -> then.accept(null, LeaseStoreException.noAnswer(verb, this.store.describe(),
						Duration.ofNanos(timeoutNanos), null)), recover);
			}
		}, timeoutNanos);
		future.whenComplete((value, failure) -> {
			if (settled.compareAndSet(false, true)) {
				timer.cancel();
				Throwable cause = unwrap(verb, failure);
				this.runtime.scheduler().execute(() -> continueWith(sequence, () -> then.accept(value, cause), recover));
			}
		});
	}

	private synchronized void continueWith(long sequence, Runnable step,
			Consumer<RuntimeException> recover) {
		if (sequence != ALWAYS && (sequence != this.attemptSequence || (!this.running && this.term == null))) {
			return;
		}
		try {
			step.run();
		}
		catch (RuntimeException ex) {
			logger.error("Election '{}' step failed", this.settings.name(), ex);
			recover.accept(ex);
		}
	}

	private Throwable unwrap(String verb, Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		if (cause == null || cause instanceof LeaseStoreException) {
			return cause;
		}
		return new LeaseStoreException(verb, this.store.describe(), 0, String.valueOf(cause), cause);
	}

	private void scheduleAttempt(long delayNanos) {
		cancelNextAttempt();
		long sequence = ++this.attemptSequence;
		this.nextAttemptAtNanos = now() + Math.max(0, delayNanos);
		this.nextAttempt = this.runtime.scheduler().schedule(() -> attempt(sequence), Math.max(0, delayNanos));
	}

	/** Nothing scheduled runs, and the answers of calls on their way are dropped. */
	private void abandonAttempts() {
		cancelNextAttempt();
		this.attemptSequence++;
	}

	private void cancelNextAttempt() {
		if (this.nextAttempt != null) {
			this.nextAttempt.cancel();
			this.nextAttempt = null;
		}
	}

	/** Takes note of a version read or written, unless a newer one was seen already. */
	private void observe(LeaseRecord record, long at) {
		if (record.isOlderThan(this.lastSeen)) {
			return;
		}
		noticeIdentity(record);
		if (!record.sameVersionAs(this.lastSeen)) {
			this.lastSeen = record;
			this.observedAtNanos = at;
		}
		if (record.uid() != null) {
			this.goneSinceLastHeld |= this.lastUidSeen != null && !record.uid().equals(this.lastUidSeen);
			this.lastUidSeen = record.uid();
		}
		if (record.hasHolder()) {
			this.goneSinceLastHeld = false;
		}
		if (this.stayingOut && tookOverSinceWeLeft(record)) {
			// staying out is for another candidate to take over; one has, whether it still holds the Lease or not
			this.stayingOut = false;
		}
		this.absentSinceNanos = NEVER;
		this.lockDeletedWhileHeld = null;
		// Waiting out a holder's lease duration once its Lease is gone protects a gate that closes
		// by then; a for-life holder's never does, and its lock goes only with its Pod or a release.
		this.lastLeaseDurationSeenNanos = record.isForLifeLock() ? this.leaseDurationNanos
				: leaseDurationNanos(record);
		this.highestTransitionsSeen = Math.max(this.highestTransitionsSeen, record.transitions());
	}

	/**
	 * Whether another candidate claimed the Lease after the term (or claim) this replica gave
	 * up: a claim counts one transition more, or, having lost a race with ours, as many.
	 */
	private boolean tookOverSinceWeLeft(LeaseRecord record) {
		return !record.isHeldBy(this.identity) && (record.transitions() > this.stayOutTransitions
				|| (record.transitions() == this.stayOutTransitions && record.hasHolder()));
	}

	/** Takes note that the Lease is missing, however that was learned. */
	private void observeAbsent(long at) {
		if (this.lastSeen != null) {
			this.lockDeletedWhileHeld = this.lastSeen.hasHolder() ? this.lastSeen : null;
		}
		if (this.absentSinceNanos == NEVER) {
			this.absentSinceNanos = at;
		}
		this.goneSinceLastHeld = true;
		this.lastSeen = null;
		this.foreignVersionNamingUs = null;
		endConflict("it was deleted");
	}

	/** The holder's own lease duration; ours when the record's is missing or not positive. */
	private long leaseDurationNanos(LeaseRecord record) {
		Integer seconds = record.leaseDurationSeconds();
		return (seconds != null && seconds > 0) ? Duration.ofSeconds(seconds).toNanos() : this.leaseDurationNanos;
	}

	private void stayOut(long forNanos) {
		this.stayingOut = true;
		this.stayOutUntilNanos = now() + forNanos;
	}

	private boolean stayingOut(long now) {
		if (this.stayingOut && now - this.stayOutUntilNanos >= 0) {
			this.stayingOut = false;
		}
		return this.stayingOut;
	}

	private long followerDelay() {
		return this.retryPeriodNanos + (long) (this.retryPeriodNanos * FOLLOWER_JITTER * this.runtime.random().nextDouble());
	}

	private void succeeded() {
		if (this.lastError != null) {
			this.failureLog.succeeded(now());
		}
		this.lastError = null;
		this.failingSinceNanos = NEVER;
		this.failingVerb = null;
	}

	private void failed(Throwable failure) {
		this.failureLog.failed(failure, now());
		this.lastError = String.valueOf(failure.getMessage());
		this.failingVerb = (failure instanceof LeaseStoreException storeFailure) ? storeFailure.getVerb() : null;
		if (this.failingSinceNanos == NEVER) {
			this.failingSinceNanos = now();
		}
	}

	private Instant wallNow() {
		return this.runtime.wallClock().instant();
	}

	private long now() {
		return this.runtime.monotonicClock().nanoTime();
	}

	/**
	 * A term of leadership: what the acquiring write made of the Lease, and when the last
	 * successful write was sent. Its gate is open until that moment plus the renew deadline,
	 * unless it was closed to finish the term.
	 */
	private record Term(long number, long fencingToken, String fencingTokenSource, LeaseRecord acquired,
			String preferredHolderAtGrant, long lastRenewStartNanos, boolean gateOpen) {

		long gateClosesAt(long renewDeadlineNanos) {
			return this.lastRenewStartNanos + renewDeadlineNanos;
		}

		boolean gateOpenAt(long now, long renewDeadlineNanos) {
			return this.gateOpen && now - gateClosesAt(renewDeadlineNanos) < 0;
		}

		Term renewedAt(long sentAt) {
			return new Term(this.number, this.fencingToken, this.fencingTokenSource, this.acquired,
					this.preferredHolderAtGrant, sentAt, this.gateOpen);
		}

		Term closed() {
			return new Term(this.number, this.fencingToken, this.fencingTokenSource, this.acquired,
					this.preferredHolderAtGrant, this.lastRenewStartNanos, false);
		}

	}

	/** A claim on its way, and what to do with it if it succeeds after a stop or a step-down. */
	private final class Claim {

		/** The leaseTransitions the claim writes. */
		private final int transitions;

		/** Whether the claim creates the Lease, which this replica last saw missing. */
		private final boolean created;

		/** Whether the answer calls for a read at once. */
		private boolean readAtOnce;

		private Release giveBack;

		Claim(int transitions, boolean created) {
			this.transitions = transitions;
			this.created = created;
		}

		Release giveBack(RevocationCause cause, boolean write) {
			if (this.giveBack == null) {
				this.giveBack = new Release(cause, write);
				this.giveBack.detail = "a claim was on its way: it is released if it succeeded";
				Election.this.lastRelease = this.giveBack;
				Election.this.pendingRelease = this.giveBack.done;
			}
			else if (write) {
				this.giveBack.write = true;
			}
			return this.giveBack;
		}

	}

	/** A release of our own accord: the term being finished and how far its release got. */
	private final class Release {

		private final RevocationCause cause;

		private boolean write;

		private long termNumber;

		/** Completes once the gated work stopped and the calls under way ended. */
		private CompletableFuture<Void> drain = CompletableFuture.completedFuture(null);

		/** Whether the drain ended, or ran out; guarded by the election. */
		private boolean settled;

		private volatile StepDown.Release outcome = StepDown.Release.WAITING_FOR_CALLS;

		private volatile String detail;

		private final CompletableFuture<Void> done = new CompletableFuture<>();

		Release(RevocationCause cause, boolean write) {
			this.cause = cause;
			this.write = write;
		}

		StepDown describe() {
			StepDown.Release now = this.outcome;
			boolean unreleased = now == StepDown.Release.WAITING_FOR_CALLS || now == StepDown.Release.NOT_WRITTEN;
			List<String> calls = unreleased ? callsUnderWay() : List.of();
			return new StepDown(Election.this.settings.name(), now, calls, this.detail);
		}

	}

	/**
	 * The renewTimes this process sent naming itself: a version naming our identity is ours only
	 * if it carries one of them, whether or not its write was answered. Two processes would have
	 * to write the same microsecond for one to take the other's version for its own.
	 * <p>
	 * A version of ours written since the last term ended (a claim whose answer was lost) is
	 * claimed again at once; one written in a term that has ended is not: the calls of that term
	 * may still run, so it waits to expire like anybody's.
	 */
	private final class OwnWrites {

		/** Far more than a term can send unanswered before its gate closes. */
		private static final int MOST_UNANSWERED = 1024;

		/** The last write known to be stored: every write sent before it can no longer be. */
		private Sent answered;

		/** The writes sent since, whose answer is not known: any of them may be stored. */
		private final Deque<Sent> unanswered = new ArrayDeque<>();

		/** Counts the terms ended. */
		private long termsEnded;

		Sent sent(LeaseRecord record, long sentAtNanos, boolean claim) {
			if (this.unanswered.size() == MOST_UNANSWERED) {
				this.unanswered.removeFirst();
			}
			Sent write = new Sent(record.renewTime(), sentAtNanos, claim, this.termsEnded);
			this.unanswered.addLast(write);
			return write;
		}

		/**
		 * The write was refused for sure (a 4xx answer: a conflict, a missing Lease, a denial),
		 * so no version carries it: a version with its renewTime is another writer's, one that
		 * wrote the same microsecond under our identity.
		 */
		void refusedIf(Sent write, Throwable failure) {
			if (failure instanceof LeaseStoreException refusal && refusal.getStatusCode() >= 400
					&& refusal.getStatusCode() < 500) {
				this.unanswered.removeIf((unanswered) -> unanswered == write);
			}
		}

		/** The write that stored this version was answered: the ones sent before it were not applied. */
		void answered(LeaseRecord stored) {
			Sent write = find(stored);
			if (write != null) {
				this.answered = write;
				this.unanswered.clear();
			}
		}

		void termEnded() {
			this.termsEnded++;
		}

		boolean wrote(LeaseRecord version) {
			return find(version) != null;
		}

		/** Whether the version is ours and written since the last term ended. */
		boolean claimableAtOnce(LeaseRecord version) {
			Sent write = find(version);
			return write != null && write.termsEndedBefore == this.termsEnded;
		}

		/**
		 * The claim of ours, sent since the last term ended and after the given moment, whose
		 * answer never came but whose write is this version; {@code null} when none.
		 */
		Sent claimSince(LeaseRecord version, long notBeforeNanos) {
			Sent write = find(version);
			return (write != null && write.claim && write.termsEndedBefore == this.termsEnded
					&& write != this.answered && write.sentAtNanos - notBeforeNanos > 0) ? write : null;
		}

		private Sent find(LeaseRecord version) {
			if (!version.isHeldBy(Election.this.identity)) {
				return null;
			}
			if (this.answered != null && this.answered.wrote(version)) {
				return this.answered;
			}
			for (Sent write : this.unanswered) {
				if (write.wrote(version)) {
					return write;
				}
			}
			return null;
		}

		private record Sent(Instant renewTime, long sentAtNanos, boolean claim, long termsEndedBefore) {

			boolean wrote(LeaseRecord version) {
				return LeaseRecord.sameInstant(this.renewTime, version.renewTime());
			}

		}
	}

}
