package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.leaderelection.LeaderStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One election: the client-go loop of acquire, renew and release on a single Lease, run as a
 * chain of non-blocking steps on the shared scheduler.
 * <p>
 * Safety rests on two rules. A follower takes a held Lease only after it has seen the same
 * stored version for a whole lease duration on its own monotonic clock, counted from when the
 * read that first returned it completed. The leader's gate is open only until the moment its
 * last successful write was sent plus the renew deadline. A write is sent no earlier than its
 * commit, and a read completes no earlier than the commit it shows, so the gate closes before
 * any follower may take over as long as the renew deadline is shorter than the lease duration.
 */
final class Election {

	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private static final double FOLLOWER_JITTER = 0.2;

	private static final long NEVER = Long.MIN_VALUE;

	/** A watch that keeps ending is retried after at most this many retry periods. */
	private static final long MAX_WATCH_BACKOFF_FACTOR = 32;

	private final ElectionSettings settings;

	private final String identity;

	private final LeaseStore store;

	private final ElectionRuntime runtime;

	private final ElectionListener listener;

	private final long renewDeadlineNanos;

	private final long retryPeriodNanos;

	/** Read lock-free by the gate; {@code null} when not leading. */
	private volatile Leadership leadership;

	private volatile LeaseRecord lastSeen;

	private volatile String lastError;

	/** When the current streak of failed calls began; {@link #NEVER} while calls succeed. */
	private volatile long failingSinceNanos = NEVER;

	/** The verb of the call that failed last, when it was a store call; guarded by this. */
	private String failingVerb;

	/** When the loop last began an attempt or acted on a watch event; {@link #NEVER} before. */
	private volatile long lastAttemptNanos = NEVER;

	// The loop's state below is guarded by this.

	private boolean running;

	private long attemptSequence;

	private ElectionScheduler.Cancellable nextAttempt;

	private long observedAtNanos;

	private long stayOutUntilNanos;

	private boolean stayingOut;

	private int highestTransitionsSeen = -1;

	/** The last release written; complete when it was answered or timed out. */
	private CompletableFuture<Void> pendingRelease = CompletableFuture.completedFuture(null);

	/** A claim is on its way: its answer, not a watch event, decides what comes next. */
	private boolean claimInFlight;

	private LeaseWatch watch;

	private WatchListener watchListener;

	/** When a watch that ended may be started again; {@link #NEVER} when it may now. */
	private long watchRetryAtNanos = NEVER;

	private long watchBackoffNanos;

	Election(ElectionSettings settings, String identity, LeaseStore store, ElectionRuntime runtime,
			ElectionListener listener) {
		this.settings = settings;
		this.identity = identity;
		this.store = store;
		this.runtime = runtime;
		this.listener = listener;
		this.renewDeadlineNanos = settings.renewDeadline().toNanos();
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
		this.watchBackoffNanos = this.retryPeriodNanos;
	}

	ElectionSettings settings() {
		return this.settings;
	}

	/** The gate: held, and the last successful write was sent less than a renew deadline ago. */
	boolean isLeader() {
		Leadership current = this.leadership;
		return current != null && current.gateOpenAt(now(), this.renewDeadlineNanos);
	}

	LeaderStatus status() {
		Leadership current = this.leadership;
		boolean leader = current != null && current.gateOpenAt(now(), this.renewDeadlineNanos);
		LeaseRecord seen = this.lastSeen;
		return new LeaderStatus(this.settings.name(), this.settings.namespace(), this.settings.leaseName(), leader,
				(seen != null && seen.hasHolder()) ? seen.holderIdentity() : null,
				(seen != null) ? seen.acquireTime() : null, (seen != null) ? seen.renewTime() : null,
				(seen != null) ? seen.leaseTransitions() : null, leader ? current.fencingToken() : null,
				this.lastError);
	}

	ElectionHealth health() {
		long now = now();
		Leadership current = this.leadership;
		long pastDeadline = (current != null) ? now - current.gateClosesAt(this.renewDeadlineNanos) : 0;
		long failingSince = this.failingSinceNanos;
		long lastAttempt = this.lastAttemptNanos;
		return new ElectionHealth(this.settings.name(), Duration.ofNanos(Math.max(0, pastDeadline)),
				(failingSince != NEVER) ? Duration.ofNanos(now - failingSince) : Duration.ZERO, this.lastError,
				(lastAttempt != NEVER) ? Duration.ofNanos(now - lastAttempt) : null, this.settings.leaseDuration(),
				this.settings.retryPeriod());
	}

	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.claimInFlight = false;
		scheduleAttempt(0);
	}

	/**
	 * Stops campaigning. With {@code release}, a held Lease is released (gate closed first);
	 * otherwise it is left to expire.
	 */
	synchronized CompletableFuture<Void> stop(boolean release) {
		if (!this.running) {
			return CompletableFuture.completedFuture(null);
		}
		this.running = false;
		this.attemptSequence++;
		cancelNextAttempt();
		stopWatching();
		if (release) {
			return release(RevocationCause.SHUTDOWN);
		}
		revoke(RevocationCause.SHUTDOWN);
		return CompletableFuture.completedFuture(null);
	}

	/** Releases the Lease if held and stays out of the election for one lease duration. */
	synchronized CompletableFuture<Void> stepDown() {
		if (this.leadership == null) {
			return CompletableFuture.completedFuture(null);
		}
		this.stayingOut = true;
		this.stayOutUntilNanos = now() + this.settings.leaseDuration().toNanos();
		this.attemptSequence++;
		cancelNextAttempt();
		CompletableFuture<Void> released = release(RevocationCause.STEPPED_DOWN);
		if (this.running) {
			scheduleAttempt(followerDelay());
		}
		return released;
	}

	// ---- the attempt loop

	private void attempt(long sequence) {
		synchronized (this) {
			if (!this.running || sequence != this.attemptSequence) {
				return;
			}
			long now = now();
			this.lastAttemptNanos = now;
			if (this.leadership != null) {
				renew(now, sequence, false);
			}
			else {
				read(sequence);
			}
		}
	}

	private void renew(long sentAt, long sequence, boolean afterConflict) {
		long remaining = this.leadership.gateClosesAt(this.renewDeadlineNanos) - sentAt;
		if (remaining <= 0) {
			lose(RevocationCause.RENEW_DEADLINE_PASSED, 0);
			return;
		}
		LeaseRecord seen = this.lastSeen;
		Instant wallNow = this.runtime.wallClock().instant();
		LeaseRecord renewal = new LeaseRecord(this.identity, this.settings.leaseDurationSeconds(), seen.acquireTime(),
				wallNow, seen.leaseTransitions(), seen.resourceVersion());
		call("update", () -> this.store.update(renewal, Duration.ofNanos(remaining)), remaining, sequence,
				(stored, failure) -> renewed(sentAt, sequence, afterConflict, stored, failure));
	}

	private void renewed(long sentAt, long sequence, boolean afterConflict, LeaseRecord stored, Throwable failure) {
		this.listener.renewed(this.settings.name(), failure == null, now() - sentAt);
		if (failure == null) {
			succeeded();
			observe(stored, sentAt);
			this.leadership = this.leadership.renewedAt(sentAt);
			scheduleAttempt(sentAt + this.retryPeriodNanos - now());
		}
		else if (failure instanceof LeaseNotFoundException) {
			failed(failure);
			lose(RevocationCause.LEASE_DELETED, 0);
		}
		else if (failure instanceof LeaseConflictException && !afterConflict) {
			readWhileLeading(sequence);
		}
		else {
			failed(failure);
			retryRenewOrLose();
		}
	}

	/** After a conflict the cached version is stale: read once, then renew on it if still ours. */
	private void readWhileLeading(long sequence) {
		long remaining = this.leadership.gateClosesAt(this.renewDeadlineNanos) - now();
		if (remaining <= 0) {
			lose(RevocationCause.RENEW_DEADLINE_PASSED, 0);
			return;
		}
		call("get", () -> this.store.get(Duration.ofNanos(remaining)), remaining, sequence, (stored, failure) -> {
			if (failure != null) {
				failed(failure);
				retryRenewOrLose();
			}
			else if (stored == null) {
				lose(RevocationCause.LEASE_DELETED, 0);
			}
			else if (!stored.isHeldBy(this.identity)) {
				observe(stored, now());
				lose(RevocationCause.LEASE_TAKEN, followerDelay());
			}
			else {
				observe(stored, now());
				renew(now(), sequence, true);
			}
		});
	}

	private void retryRenewOrLose() {
		long untilGateCloses = this.leadership.gateClosesAt(this.renewDeadlineNanos) - now();
		if (untilGateCloses <= 0) {
			lose(RevocationCause.RENEW_DEADLINE_PASSED, 0);
		}
		else {
			scheduleAttempt(Math.min(this.retryPeriodNanos, untilGateCloses));
		}
	}

	private void read(long sequence) {
		long timeout = this.renewDeadlineNanos;
		call("get", () -> this.store.get(Duration.ofNanos(timeout)), timeout, sequence, (stored, failure) -> {
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
			watchFrom(stored, now);
			decide(stored, now, sequence);
		});
	}

	/**
	 * What a follower does with the record it just read or was sent: claim it if it is absent,
	 * free, its own or expired; otherwise wait until it would expire, polling meanwhile unless
	 * a watch will tell of changes. A streak of failed writes ends only when a write succeeds
	 * or there is nothing to claim, not when a read succeeds, so that a candidate that can read
	 * but never write (a missing namespace, no create permission) keeps failing.
	 */
	private void decide(LeaseRecord stored, long now, long sequence) {
		if (stayingOut(now)) {
			waitFor(Math.min(pollDelay(), this.stayOutUntilNanos - now));
		}
		else if (stored == null) {
			claim(null, (this.highestTransitionsSeen >= 0) ? this.highestTransitionsSeen + 1 : 0, sequence);
		}
		else if (!stored.hasHolder() || stored.isHeldBy(this.identity)) {
			claim(stored, stored.transitions() + 1, sequence);
		}
		else {
			long untilExpiry = this.observedAtNanos + leaseDurationNanos(stored) - now;
			if (untilExpiry <= 0) {
				claim(stored, stored.transitions() + 1, sequence);
			}
			else {
				waitFor(Math.min(pollDelay(), untilExpiry));
			}
		}
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
		}
	}

	private void stopWatching() {
		if (this.watch != null) {
			this.watch.close();
		}
		this.watch = null;
		this.watchListener = null;
	}

	private synchronized void watched(WatchListener listener, LeaseRecord record) {
		if (listener != this.watchListener || !this.running || this.leadership != null) {
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
		if (this.claimInFlight) {
			return;
		}
		cancelNextAttempt();
		decide(record, now, ++this.attemptSequence);
	}

	private synchronized void watchEnded(WatchListener listener, Throwable cause) {
		if (listener != this.watchListener) {
			return;
		}
		this.watch = null;
		this.watchListener = null;
		backOffWatching(now(), cause);
		if (this.running && this.leadership == null && !this.claimInFlight) {
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
		return (this.watch != null) ? Long.MAX_VALUE : followerDelay();
	}

	/** Hands the store's events to the scheduler; one per started watch, so stale ones are told apart. */
	private final class WatchListener implements LeaseWatch.Listener {

		@Override
		public void changed(LeaseRecord record) {
			Election.this.runtime.scheduler().execute(() -> watched(this, record));
		}

		@Override
		public void ended(Throwable cause) {
			Election.this.runtime.scheduler().execute(() -> watchEnded(this, cause));
		}

	}

	/** Writes this candidate as holder: an update of the version seen, or a create when none. */
	private void claim(LeaseRecord seen, int transitions, long sequence) {
		long sentAt = now();
		Instant wallNow = this.runtime.wallClock().instant();
		LeaseRecord claim = new LeaseRecord(this.identity, this.settings.leaseDurationSeconds(), wallNow, wallNow,
				transitions, (seen != null) ? seen.resourceVersion() : null);
		long timeout = this.renewDeadlineNanos;
		String verb = (seen != null) ? "update" : "create";
		Supplier<CompletableFuture<LeaseRecord>> write = (seen != null)
				? () -> this.store.update(claim, Duration.ofNanos(timeout))
				: () -> this.store.create(claim, Duration.ofNanos(timeout));
		this.claimInFlight = true;
		call(verb, write, timeout, sequence, (stored, failure) -> claimed(sentAt, stored, failure));
	}

	private void claimed(long sentAt, LeaseRecord stored, Throwable failure) {
		this.claimInFlight = false;
		if (failure instanceof LeaseConflictException) {
			succeeded();
			scheduleAttempt(followerDelay());
			return;
		}
		if (failure instanceof LeaseNotFoundException) {
			succeeded();
			scheduleAttempt(0);
			return;
		}
		if (failure != null) {
			failed(failure);
			scheduleAttempt(followerDelay());
			return;
		}
		succeeded();
		observe(stored, sentAt);
		Leadership granted = new Leadership(stored.transitions(), sentAt);
		long now = now();
		if (!granted.gateOpenAt(now, this.renewDeadlineNanos)) {
			// The write took longer than the renew deadline: the gate would already be closed.
			// The Lease is ours, so the next attempt claims it again at once.
			scheduleAttempt(0);
			return;
		}
		long gateOpenedAt = now();
		this.leadership = granted;
		stopWatching();
		logger.info("{} became leader of election '{}' ({}), fencing token {}", this.identity, this.settings.name(),
				this.store.describe(), granted.fencingToken());
		this.listener.granted(this.settings.name(), granted.fencingToken(), gateOpenedAt);
		scheduleAttempt(sentAt + this.retryPeriodNanos - now);
	}

	// ---- losing and releasing

	/** Closes the gate and campaigns again after the delay. */
	private void lose(RevocationCause cause, long retryDelayNanos) {
		logger.warn("{} lost leadership of election '{}' ({}): {}", this.identity, this.settings.name(),
				this.store.describe(), cause);
		revoke(cause);
		scheduleAttempt(retryDelayNanos);
	}

	private void revoke(RevocationCause cause) {
		Leadership revoked = this.leadership;
		if (revoked != null) {
			this.leadership = null;
			long now = now();
			long deadline = revoked.gateClosesAt(this.renewDeadlineNanos);
			long gateClosedAt = (now - deadline < 0) ? now : deadline;
			this.listener.revoked(this.settings.name(), cause, gateClosedAt);
		}
	}

	/**
	 * Closes the gate, then writes the release as client-go does: no holder and a lease duration
	 * of one second, so followers take over at once.
	 */
	private CompletableFuture<Void> release(RevocationCause cause) {
		Leadership released = this.leadership;
		if (released == null) {
			// A release written by a step-down may still be on its way: stopping waits for it too.
			return this.pendingRelease;
		}
		revoke(cause);
		CompletableFuture<Void> done = new CompletableFuture<>();
		this.pendingRelease = done;
		writeRelease(released, true, done);
		return done;
	}

	private void writeRelease(Leadership released, boolean retryOnConflict, CompletableFuture<Void> done) {
		long remaining = released.gateClosesAt(this.renewDeadlineNanos) - now();
		if (remaining <= 0) {
			done.complete(null);
			return;
		}
		LeaseRecord seen = this.lastSeen;
		Instant wallNow = this.runtime.wallClock().instant();
		LeaseRecord release = new LeaseRecord("", 1, wallNow, wallNow, seen.leaseTransitions(),
				seen.resourceVersion());
		call("update", () -> this.store.update(release, Duration.ofNanos(remaining)), remaining, -1,
				(stored, failure) -> {
					if (failure == null) {
						observe(stored, now());
						logger.info("{} released {} of election '{}'", this.identity, this.store.describe(),
								this.settings.name());
						done.complete(null);
					}
					else if (failure instanceof LeaseConflictException && retryOnConflict) {
						rereadBeforeRelease(released, done);
					}
					else {
						failed(failure);
						done.complete(null);
					}
				});
	}

	/** A renewal still in flight may have moved the version: release on the current one if ours. */
	private void rereadBeforeRelease(Leadership released, CompletableFuture<Void> done) {
		long remaining = released.gateClosesAt(this.renewDeadlineNanos) - now();
		call("get", () -> this.store.get(Duration.ofNanos(Math.max(remaining, 1))), Math.max(remaining, 1), -1,
				(stored, failure) -> {
					if (failure == null && stored != null && stored.isHeldBy(this.identity)) {
						observe(stored, now());
						writeRelease(released, false, done);
					}
					else {
						done.complete(null);
					}
				});
	}

	// ---- helpers

	/**
	 * Sends a store call with a timeout measured on the engine's clock and continues on the
	 * scheduler with its result, unless the election moved on meanwhile (sequence -1 always
	 * continues).
	 */
	private <T> void call(String verb, Supplier<CompletableFuture<T>> request, long timeoutNanos, long sequence,
			BiConsumer<T, Throwable> then) {
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
						Duration.ofNanos(timeoutNanos), null)));
			}
		}, timeoutNanos);
		future.whenComplete((value, failure) -> {
			if (settled.compareAndSet(false, true)) {
				timer.cancel();
				Throwable cause = unwrap(verb, failure);
				this.runtime.scheduler().execute(() -> continueWith(sequence, () -> then.accept(value, cause)));
			}
		});
	}

	private synchronized void continueWith(long sequence, Runnable step) {
		if (sequence != -1 && (!this.running || sequence != this.attemptSequence)) {
			return;
		}
		try {
			step.run();
		}
		catch (RuntimeException ex) {
			logger.error("Election '{}' step failed; retrying", this.settings.name(), ex);
			failed(ex);
			if (this.running && sequence != -1) {
				scheduleAttempt(this.retryPeriodNanos);
			}
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
		this.nextAttempt = this.runtime.scheduler().schedule(() -> attempt(sequence), Math.max(0, delayNanos));
	}

	private void cancelNextAttempt() {
		if (this.nextAttempt != null) {
			this.nextAttempt.cancel();
			this.nextAttempt = null;
		}
	}

	private void observe(LeaseRecord record, long at) {
		if (!record.sameVersionAs(this.lastSeen)) {
			this.lastSeen = record;
			this.observedAtNanos = at;
		}
		this.highestTransitionsSeen = Math.max(this.highestTransitionsSeen, record.transitions());
	}

	/** The holder's own lease duration; ours when the record's is missing or not positive. */
	private long leaseDurationNanos(LeaseRecord record) {
		Integer seconds = record.leaseDurationSeconds();
		return (seconds != null && seconds > 0) ? Duration.ofSeconds(seconds).toNanos()
				: this.settings.leaseDuration().toNanos();
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
		this.lastError = null;
		this.failingSinceNanos = NEVER;
		this.failingVerb = null;
	}

	private void failed(Throwable failure) {
		String message = String.valueOf(failure.getMessage());
		if (!message.equals(this.lastError)) {
			logger.warn("Election '{}': {}", this.settings.name(), message);
		}
		this.lastError = message;
		this.failingVerb = (failure instanceof LeaseStoreException storeFailure) ? storeFailure.getVerb() : null;
		if (this.failingSinceNanos == NEVER) {
			this.failingSinceNanos = now();
		}
	}

	private long now() {
		return this.runtime.monotonicClock().nanoTime();
	}

	/** Leadership held since a grant, with the send time of the last successful write. */
	private record Leadership(long fencingToken, long lastRenewStartNanos) {

		long gateClosesAt(long renewDeadlineNanos) {
			return this.lastRenewStartNanos + renewDeadlineNanos;
		}

		boolean gateOpenAt(long now, long renewDeadlineNanos) {
			return now - gateClosesAt(renewDeadlineNanos) < 0;
		}

		Leadership renewedAt(long sentAt) {
			return new Leadership(this.fencingToken, sentAt);
		}

	}

}
