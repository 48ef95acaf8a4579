package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.leaderelection.engine.rules.FollowerStep;
import io.leaderelection.engine.rules.ForLifeRules;
import io.leaderelection.engine.rules.OwnerLiveness;
import io.leaderelection.engine.rules.Refusal;
import io.leaderelection.engine.rules.ReleaseRules;
import io.leaderelection.store.ForLifeLockStore;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.PodReference;
import io.leaderelection.store.PodState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim rules of leader-for-life (operator-sdk's): the lock is a Lease created owned by this
 * replica's Pod and never renewed, so its gate has no deadline; the leader watches it and closes
 * the gate if it is deleted or rewritten. A follower takes over when the lock is released or
 * deleted, or deletes it itself, with a uid and resourceVersion precondition, once its owner Pod
 * is gone. A release deletes it.
 * <p>
 * A missing lock never seen held is created at once; but a follower that saw it missing and then
 * had a gap (a failed call, an ended watch, a pause) cannot know that no lock came and went
 * meanwhile, and waits for a lease duration of unbroken absence first, time enough for a leader
 * whose lock was deleted to see the deletion.
 */
final class ForLifeMode implements ElectionMode {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	/** The gate deadline of a for-life term: none, written so that deadline arithmetic cannot overflow. */
	private static final long UNBOUNDED = Long.MAX_VALUE / 2;

	private final ElectionLoop loop;

	private final ElectionSettings settings;

	private final ForLifeLockStore store;

	private final OwnerLiveness ownerLiveness;

	private final long leaseDurationNanos;

	private final long renewDeadlineNanos;

	/** The Pod this process runs in, owner of the lock; read before campaigning. */
	private volatile PodReference ownPod;

	/** Why this follower last set out to take the lock over, logged once per reason. */
	private String lastTakeOverReason;

	private ForLifeMode(ElectionLoop loop, ElectionSettings settings, ForLifeLockStore store) {
		this.loop = loop;
		this.settings = settings;
		this.store = store;
		this.ownerLiveness = new OwnerLiveness(settings.forLife().notReadyNodeTakeover());
		this.leaseDurationNanos = settings.leaseDuration().toNanos();
		this.renewDeadlineNanos = settings.renewDeadline().toNanos();
	}

	/**
	 * @throws IllegalArgumentException when the store cannot keep a lock owned by a Pod, or the
	 * election is to migrate from an older one, which runs on renewed Leases
	 */
	static ForLifeMode of(ElectionLoop loop, ElectionSettings settings, LeaseStore store, MigrationKey migrationKey) {
		if (!(store instanceof ForLifeLockStore lockStore)) {
			throw new IllegalArgumentException("Election '" + settings.name() + "' runs for-life, which needs a "
					+ "lock owned by a Pod; " + store.describe() + " cannot be one (for-life runs on Kubernetes only)");
		}
		if (migrationKey != null) {
			throw new IllegalArgumentException("Election '" + settings.name() + "' runs for-life, and cannot "
					+ "migrate from " + migrationKey.describe() + ": a migration runs in lease mode");
		}
		return new ForLifeMode(loop, settings, lockStore);
	}

	@Override
	public long gateDeadlineNanos() {
		return UNBOUNDED;
	}

	/**
	 * Reads the Pod this process runs in, which is to own the lock; blocks for up to a renew
	 * deadline.
	 * @throws ForLifePodException when the Pod is not found or cannot be read
	 */
	@Override
	public void prepare() {
		String podName = this.settings.forLife().podName();
		String pod = "Pod " + this.settings.namespace() + "/" + podName;
		String prefix = "Election '" + this.settings.name() + "' runs for-life: its lock is owned by the Pod this "
				+ "replica runs in, but ";
		Duration timeout = this.settings.renewDeadline();
		PodState read;
		try {
			read = this.store.pod(podName, timeout).get(timeout.toNanos() * 2, TimeUnit.NANOSECONDS);
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

	/** Decides with {@link ForLifeRules} on what was seen, and carries the step out. */
	@Override
	public void decide(long now) {
		FollowerStep step = this.loop.core.followLock(now, this.ownPod, this.store::podOwner,
				this.leaseDurationNanos);
		if (step instanceof FollowerStep.Wait wait) {
			this.loop.waitAtMost(wait.atMostNanos());
		}
		else if (step instanceof FollowerStep.Claim claim) {
			this.loop.claims.claim(claim.seen(), claim.transitions());
		}
		else if (step instanceof FollowerStep.CheckOwner check) {
			checkOwner(check.seen(), check.owner());
		}
		else if (step instanceof FollowerStep.ReplaceLock replace) {
			replaceLock(replace.seen(), replace.because());
		}
		else {
			throw new IllegalStateException("Not a for-life step: " + step);
		}
	}

	/** Reads the lock's owner Pod (and its Node, where that may count) and judges whether it is gone. */
	private void checkOwner(LeaseRecord seen, PodReference owner) {
		long timeout = this.renewDeadlineNanos;
		long sequence = this.loop.steps.attemptSequence();
		this.loop.steps.call("get Pod " + owner.name() + " owning", () -> this.store.pod(owner.name(), Duration.ofNanos(timeout)),
				timeout, sequence, (pod, failure) -> {
					if (failure != null) {
						this.loop.failed(failure);
						this.loop.scheduleAttempt(this.loop.followerDelay());
					}
					else if (pod != null && pod.nodeName() != null && owner.uid().equals(pod.uid())
							&& this.ownerLiveness.readsNodes()) {
						this.loop.steps.call("get Node " + pod.nodeName() + " of the owner of",
								() -> this.store.nodeReady(pod.nodeName(), Duration.ofNanos(timeout)), timeout, sequence,
								(ready, nodeFailure) -> {
									if (nodeFailure != null) {
										// judged as if Ready: only a Node seen NotReady counts
										this.loop.failed(nodeFailure);
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
		OwnerLiveness.Verdict verdict = this.ownerLiveness.judge(owner, pod, nodeReady, this.loop.now());
		if (verdict.gone()) {
			replaceLock(seen, verdict.goneBecause());
		}
		else if (readsSucceeded) {
			this.loop.waitFor(Math.min(this.loop.followerDelay(), verdict.untilGoneNanos()));
		}
		else {
			this.loop.scheduleAttempt(Math.min(this.loop.followerDelay(), verdict.untilGoneNanos()));
		}
	}

	/**
	 * Deletes the version seen, with its uid and resourceVersion as precondition, then creates
	 * this replica's lock: of followers racing to do so, one deletes and one creates, and the
	 * others find the lock changed or existing.
	 */
	private void replaceLock(LeaseRecord seen, String because) {
		if (!because.equals(this.lastTakeOverReason)) {
			logger.info("{} takes {} of election '{}' over: {}", this.loop.identity(), this.store.describe(),
					this.settings.name(), because);
			this.lastTakeOverReason = because;
		}
		long timeout = this.loop.claims.timeout();
		this.loop.steps.call("delete", () -> this.store.delete(seen, Duration.ofNanos(timeout)), timeout,
				this.loop.steps.attemptSequence(), (ignored, failure) -> {
					if (failure == null || failure instanceof LeaseNotFoundException) {
						this.loop.succeeded();
						this.loop.observeAbsent(this.loop.now());
						this.loop.claims.claim(null,
								Math.max(seen.transitions(), this.loop.core.observation().highestTransitionsSeen()) + 1);
					}
					else {
						Refusal refusal = Refusal.ofLockDeletion(failure);
						this.loop.refused(refusal, failure);
						this.loop.scheduleAttempt(refusal.looksAgainAtOnce() ? 0 : this.loop.followerDelay());
					}
				});
	}

	@Override
	public boolean decidesOnWatchAlone() {
		// the watch tells of every change of the lock; what the loop must poll is its owner
		return true;
	}

	@Override
	public boolean mayDecideAgain() {
		return false;
	}

	// ---- leading

	/** A leader's tick for life: nothing to renew; read the lock only while no watch tells of its changes. */
	@Override
	public void lead(long now, long sequence) {
		if (this.loop.running() && !this.loop.following.watchStarted()) {
			this.loop.following.watchFrom(now);
		}
		if (this.loop.core.observation().watched()) {
			this.loop.scheduleAttempt(this.loop.followerDelay());
			return;
		}
		long timeout = this.renewDeadlineNanos;
		this.loop.steps.call("get", () -> this.store.get(Duration.ofNanos(timeout)), timeout, sequence, (stored, failure) -> {
			if (failure != null) {
				this.loop.failed(failure);
			}
			else {
				this.loop.succeeded();
				leaderSaw(stored, this.loop.now());
			}
			if (this.loop.leadership.term() != null) {
				this.loop.scheduleAttempt(this.loop.followerDelay());
			}
		});
	}

	/**
	 * What a for-life leader does with a version of its lock: keeps leading while it is the
	 * object acquired and written by this process (whatever else, a label, changed), and closes
	 * the gate once it was deleted, created again or written by another.
	 */
	@Override
	public void leaderSaw(LeaseRecord record, long now) {
		if (record != null && record.isOlderThan(this.loop.core.observation().lastSeen())) {
			return;
		}
		this.loop.stillLeadsOn(record, now);
	}

	@Override
	public boolean watchesWhileLeading() {
		return true;
	}

	// ---- claiming and releasing

	@Override
	public int claimedLeaseDurationSeconds() {
		return LeaseRecord.FOR_LIFE_LEASE_DURATION_SECONDS;
	}

	@Override
	public CompletableFuture<LeaseRecord> create(LeaseRecord claimed, Duration timeout) {
		return this.store.createOwnedBy(claimed, this.ownPod, timeout);
	}

	@Override
	public boolean guardsClaims() {
		return false;
	}

	@Override
	public String notReleasedBecause() {
		return "the lock is deleted with this Pod";
	}

	/**
	 * Deletes a lock once released: released first, so that followers that saw it held by a live
	 * Pod know the deletion was no hand's. A follower may replace the released lock first; then
	 * this deletion finds it changed or gone, and the release stands.
	 */
	@Override
	public void released(Release release, LeaseRecord stored, long timeoutNanos) {
		this.loop.steps.call("delete", () -> this.store.delete(stored, Duration.ofNanos(timeoutNanos)), timeoutNanos,
				Steps.ALWAYS, (ignored, failure) -> this.loop.leadership.carryOut(release, ReleaseRules.lockDeleted(failure)),
				(ex) -> this.loop.leadership.carryOut(release, ReleaseRules.lockDeletionThrew(ex)));
	}

	/** A renew deadline: a lock has no gate deadline to keep within, and is deleted after its release. */
	@Override
	public long releaseTimeLeft(long now) {
		return this.renewDeadlineNanos;
	}

	/** A lock for life never expires: it is deleted once the calls end, or with this Pod. */
	@Override
	public boolean keepsTermUntilWorkEnds() {
		return true;
	}

	@Override
	public long stayOutAfterRelease() {
		return this.leaseDurationNanos;
	}

	@Override
	public String lockOwner(LeaseRecord seen) {
		PodReference owner = (seen != null) ? this.store.podOwner(seen) : null;
		return (owner != null) ? owner.toString() : null;
	}

}
