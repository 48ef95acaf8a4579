package io.leaderelection.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

import io.leaderelection.engine.rules.UnbrokenRun;
import io.leaderelection.store.LeaderKeyStore;
import io.leaderelection.store.LeaderKeyStore.LeaderKey;
import io.leaderelection.store.LeaseConflictException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's side of the older protocol during a migration from it: the key its replicas keep
 * their leader's id in (spring-cloud-kubernetes' ConfigMap leader), followed every retry period
 * with the readiness of the Pod it names.
 * <p>
 * The key may be claimed only after it was seen naming no one, or naming a Pod that is gone or
 * not Ready, for a whole lease duration on this process's monotonic clock, with no change of the
 * id, of the Pod it names or of the ConfigMap's version in between: an old replica writes the
 * key's removal before it tells its own code to stop, and learns that its own Pod turned unready
 * only through a watch, so its leader work may run for a while after the key looks free. An old
 * replica may also take the key and give it back between two looks, which only the version
 * shows; a write of another key of the ConfigMap starts the wait again too, as the version does
 * not say which key changed. It is claimed by writing this replica's Pod name, which the old
 * replicas check the readiness of, over the version read.
 * A key naming this replica's own Pod (a container restarted in it) is its own.
 */
public final class MigrationKey implements ClaimGuard {

	private static final Logger logger = LoggerFactory.getLogger(MigrationKey.class);

	/** A Pod name: a DNS-1123 subdomain. */
	private static final Pattern POD_NAME = Pattern
		.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

	private final LeaderKeyStore store;

	private final String ownPod;

	private final long leaseDurationNanos;

	private final long retryPeriodNanos;

	private final ElectionRuntime runtime;

	private Runnable changed = () -> {
	};

	private boolean following;

	private ElectionScheduler.Cancellable nextLook;

	private LeaderKey seen;

	/** What the key was seen naming and, when a Pod, that Pod's uid: a change restarts the wait. */
	private String seenHolder;

	/**
	 * The looks that found the key free, one every retry period: a failed look, one that came
	 * late (this process paused) or one that found a new version of the ConfigMap ends the run,
	 * and the wait for a free key starts again.
	 */
	private final UnbrokenRun free;

	private String problem;

	/**
	 * Whether this replica's own Pod was Ready at the last look, and was read by it: the old
	 * replicas take the key of one that is not, and a look that failed cannot tell.
	 */
	private boolean ownPodReady;

	/**
	 * @param ownPod the name of the Pod this process runs in, written as the key's value
	 */
	public MigrationKey(LeaderKeyStore store, String ownPod, ElectionSettings settings, ElectionRuntime runtime) {
		this.store = Objects.requireNonNull(store, "store");
		this.ownPod = Objects.requireNonNull(ownPod, "ownPod");
		this.leaseDurationNanos = settings.leaseDuration().toNanos();
		this.retryPeriodNanos = settings.retryPeriod().toNanos();
		this.runtime = runtime;
		// a look a retry period after the one before, its three reads a retry period each at most
		this.free = new UnbrokenRun(4 * this.retryPeriodNanos);
	}

	/** Names the key for messages. */
	@Override
	public String describe() {
		return this.store.describe();
	}

	/**
	 * Follows the key every retry period until {@link #stop()}, telling {@code changed} (on the
	 * scheduler) whenever it may have become claimable or stopped naming this replica's Pod.
	 */
	@Override
	public synchronized void start(Runnable changed) {
		this.changed = changed;
		if (this.following) {
			return;
		}
		this.following = true;
		look();
	}

	@Override
	public synchronized void stop() {
		this.following = false;
		if (this.nextLook != null) {
			this.nextLook.cancel();
			this.nextLook = null;
		}
	}

	/** Whether the key, as last seen, names this replica's Pod. */
	synchronized boolean ours() {
		return this.seen != null && this.ownPod.equals(this.seen.value());
	}

	/**
	 * Whether this replica holds the key as the old replicas see it: it names this replica's Pod,
	 * and that Pod was Ready at the last look. They take the key of a Pod that is not at once.
	 */
	@Override
	public synchronized boolean held() {
		return ours() && this.ownPodReady;
	}

	/**
	 * Whether this replica may take the key now: its own Pod is Ready, as an old replica writes
	 * itself only when its Pod is, and the key is its own or was free for a lease duration.
	 */
	@Override
	public synchronized boolean permitsClaim(long now) {
		return this.ownPodReady && (ours()
				|| (this.free.running() && this.free.lastedAt(now) >= this.leaseDurationNanos));
	}

	/**
	 * Two lease durations and a retry period: the others first wait a lease duration for the key
	 * the release removed, and a replica that stepped down would otherwise win the race for it.
	 */
	@Override
	public long stayOutAfterRelease(long leaseDurationNanos, long retryPeriodNanos) {
		return 2 * leaseDurationNanos + retryPeriodNanos;
	}

	/** Why the key cannot be claimed, when it holds what is no Pod name or the Pod could not be read; else {@code null}. */
	@Override
	public synchronized String problem() {
		return this.problem;
	}

	/** Writes this replica's Pod name into the key, over the version last seen. */
	@Override
	public CompletableFuture<Void> claim(Duration timeout) {
		LeaderKey over;
		synchronized (this) {
			over = this.seen;
		}
		if (over == null) {
			return CompletableFuture.failedFuture(new LeaseConflictException("write", describe(), "not read yet"));
		}
		return this.store.write(over, this.ownPod, timeout).thenAccept(this::claimed);
	}

	private synchronized void claimed(LeaderKey written) {
		this.seen = written;
		this.seenHolder = this.ownPod;
		this.free.end();
		logger.info("{} now names Pod '{}'", describe(), this.ownPod);
	}

	/**
	 * Removes the key if it still names this replica's Pod, read again first: never the key of
	 * a replica that took it since.
	 */
	@Override
	public CompletableFuture<Void> removeIfOurs(Duration timeout) {
		return this.store.read(timeout).thenCompose((current) -> {
			if (!this.ownPod.equals(current.value())) {
				return CompletableFuture.completedFuture(null);
			}
			return this.store.write(current, null, timeout).thenAccept((removed) -> {
				synchronized (this) {
					this.seen = removed;
					this.seenHolder = null;
					this.free.end();
				}
				logger.info("{} removed, naming Pod '{}' no more", describe(), this.ownPod);
			});
		});
	}

	/**
	 * Reads this replica's own Pod, then the key, then the Pod the key names, and hands what it
	 * saw to {@link #looked} on the scheduler, where all of it takes effect at once: a change of
	 * {@link #held()} is then always told.
	 */
	private void look() {
		Duration timeout = Duration.ofNanos(this.retryPeriodNanos);
		this.store.pod(this.ownPod, timeout)
			.thenCompose((ownPod) -> this.store.read(timeout)
				.thenCompose((key) -> holderOf(key, ownPod != null && ownPod.ready(), timeout))
				.thenApply((look) -> (ownPod != null) ? look : look.withProblem(ownPodMissing())))
			.whenComplete((look, failure) -> this.runtime.scheduler().execute(() -> looked(look, failure)));
	}

	/**
	 * Why the key must not name this replica's Pod when that Pod does not exist: a key naming a
	 * Pod that does not exist, or is not Ready, looks free to the old replicas, which take it at
	 * once.
	 */
	private String ownPodMissing() {
		return "Pod '" + this.ownPod + "' (POD_NAME, else HOSTNAME) does not exist beside " + describe()
				+ ": the old replicas would take a key naming it at once, as they take the key of a Pod that "
				+ "is gone. Set POD_NAME from the downward API (fieldRef metadata.name); this replica takes "
				+ "no leadership until its Pod is found";
	}

	/**
	 * What the key names: {@code ""} when no one, else the id and the uid of its Pod; with what the
	 * look read of this replica's own Pod.
	 */
	private CompletableFuture<Look> holderOf(LeaderKey key, boolean ownPodReady, Duration timeout) {
		if (key.empty()) {
			return CompletableFuture.completedFuture(new Look(key, "", true, null, ownPodReady));
		}
		String id = key.value();
		if (id.equals(this.ownPod)) {
			return CompletableFuture.completedFuture(new Look(key, id, false, null, ownPodReady));
		}
		if (id.length() > 253 || !POD_NAME.matcher(id).matches()) {
			return CompletableFuture.completedFuture(new Look(key, id, false, describe() + " holds '" + id
					+ "', which is no Pod name: the leader election it migrates from writes a Pod name there "
					+ "(spring.cloud.kubernetes.leader.id); this replica takes no leadership until the key is "
					+ "emptied or names a Pod", ownPodReady));
		}
		return this.store.pod(id, timeout).thenApply((pod) -> {
			if (pod == null) {
				return new Look(key, id, true, null, ownPodReady);
			}
			return new Look(key, id + "/" + pod.uid(), !pod.ready(), null, ownPodReady);
		});
	}

	private synchronized void looked(Look look, Throwable failure) {
		if (!this.following) {
			return;
		}
		long now = this.runtime.monotonicClock().nanoTime();
		boolean wasHeld = held();
		boolean wasClaimable = permitsClaim(now);
		if (failure != null) {
			// not seen: the wait for a free key starts again from the next look
			this.free.end();
			this.ownPodReady = false;
			Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
			logger.debug("{} could not be read: {}", describe(), cause.toString());
		}
		else {
			this.ownPodReady = look.ownPodReady;
			// a new version naming the same holder may have named another in between, unseen
			boolean sameVersion = this.seen != null && Objects.equals(this.seen.version(), look.key.version());
			this.seen = look.key;
			String problem = look.problem;
			if (problem != null && !problem.equals(this.problem)) {
				logger.error(problem);
			}
			this.problem = problem;
			boolean sameHolder = look.holder.equals(this.seenHolder);
			this.seenHolder = look.holder;
			if (!look.free || problem != null) {
				this.free.end();
			}
			else {
				if (!sameHolder || !sameVersion) {
					this.free.end();
				}
				if (this.free.seen(now, false)) {
					this.runtime.scheduler().schedule(this::tell, this.leaseDurationNanos);
				}
			}
		}
		if (wasHeld != held() || wasClaimable != permitsClaim(now)) {
			// told after this look lets go of the key's lock: the election takes its own lock first,
			// and from there this key's, to claim it
			this.runtime.scheduler().execute(this::tell);
		}
		this.nextLook = this.runtime.scheduler().schedule(this::look, this.retryPeriodNanos);
	}

	/** Tells the election the key changed; never under the key's lock, which the election may need then. */
	private void tell() {
		Runnable told;
		synchronized (this) {
			if (!this.following) {
				return;
			}
			told = this.changed;
		}
		told.run();
	}

	/**
	 * What one look saw.
	 *
	 * @param holder what the key names, with the Pod's uid when there is that Pod
	 * @param free whether the old replicas take the key as it is: empty, or a Pod gone or not Ready
	 * @param problem why the key cannot be taken as it is; {@code null} when it can be judged
	 * @param ownPodReady whether this replica's own Pod was Ready
	 */
	private record Look(LeaderKey key, String holder, boolean free, String problem, boolean ownPodReady) {

		Look withProblem(String problem) {
			return new Look(this.key, this.holder, this.free, problem, this.ownPodReady);
		}

	}

}
