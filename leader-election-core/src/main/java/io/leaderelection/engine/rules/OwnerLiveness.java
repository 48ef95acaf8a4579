package io.leaderelection.engine.rules;

import java.time.Duration;

import io.leaderelection.store.PodReference;
import io.leaderelection.store.PodState;

/**
 * Judges, from a follower's reads, whether the Pod that owns a for-life lock is gone. Every wait
 * runs on the follower's own monotonic clock from when it first saw the state, never from a
 * timestamp another machine wrote: a deletion's grace period counts from when the follower first
 * saw the Pod terminating, so it ends no earlier than the kubelet's. A Pod deleted because its
 * Node is lost counts as one on a NotReady Node: its kubelet may never have stopped it.
 */
public final class OwnerLiveness {

	/** Kubernetes' default terminationGracePeriodSeconds, for a deletion that names none. */
	private static final int DEFAULT_GRACE_SECONDS = 30;

	private final long notReadyNodeTakeoverNanos;

	private String terminatingUid;

	private long terminatingSinceNanos;

	private String notReadyUid;

	private long notReadySinceNanos;

	/** @param notReadyNodeTakeover {@code null} to never take over from a Pod on a NotReady Node */
	public OwnerLiveness(Duration notReadyNodeTakeover) {
		this.notReadyNodeTakeoverNanos = (notReadyNodeTakeover != null) ? notReadyNodeTakeover.toNanos() : -1;
	}

	/** Whether the Node of a live owner must be read too. */
	public boolean readsNodes() {
		return this.notReadyNodeTakeoverNanos >= 0;
	}

	/**
	 * @param owner the Pod the lock names as its owner
	 * @param pod what was read under that name, {@code null} when no such Pod exists
	 * @param nodeReady whether the Pod's Node is Ready, {@code null} when not read or unknown
	 * @param now when the reads completed, on the monotonic clock
	 */
	public Verdict judge(PodReference owner, PodState pod, Boolean nodeReady, long now) {
		if (pod == null) {
			return Verdict.gone("its owner, Pod " + owner + ", no longer exists");
		}
		if (!owner.uid().equals(pod.uid())) {
			return Verdict.gone("its owner, Pod " + owner + ", no longer exists: Pod " + pod.name()
					+ " is another Pod now (uid " + pod.uid() + ")");
		}
		if (pod.finished()) {
			return Verdict.gone("its owner, Pod " + owner + ", is " + pod.phase()
					+ ": its containers stopped for good (evicted, preempted, failed or completed)");
		}
		long wait = Long.MAX_VALUE;
		if (pod.deletionRequested() && !pod.deletedForItsNode()) {
			if (!pod.uid().equals(this.terminatingUid)) {
				this.terminatingUid = pod.uid();
				this.terminatingSinceNanos = now;
			}
			int graceSeconds = (pod.deletionGracePeriodSeconds() != null) ? pod.deletionGracePeriodSeconds()
					: DEFAULT_GRACE_SECONDS;
			long left = this.terminatingSinceNanos + Duration.ofSeconds(graceSeconds).toNanos() - now;
			if (left <= 0) {
				return Verdict.gone("its owner, Pod " + owner + ", was deleted and its grace period of " + graceSeconds
						+ " s has passed since this replica saw it terminating");
			}
			wait = left;
		}
		if ((Boolean.FALSE.equals(nodeReady) || pod.deletedForItsNode()) && readsNodes()) {
			if (!pod.uid().equals(this.notReadyUid)) {
				this.notReadyUid = pod.uid();
				this.notReadySinceNanos = now;
			}
			long left = this.notReadySinceNanos + this.notReadyNodeTakeoverNanos - now;
			if (left <= 0) {
				return Verdict.gone("the Node of its owner, Pod " + owner + " on " + pod.nodeName()
						+ ", has been NotReady or lost for " + Duration.ofNanos(this.notReadyNodeTakeoverNanos).toMillis()
						+ " ms (taking over from a NotReady Node is switched on; its leader may still run)");
			}
			wait = Math.min(wait, left);
		}
		else {
			this.notReadyUid = null;
		}
		return new Verdict(null, wait);
	}

	/**
	 * @param goneBecause why the owner is gone; {@code null} while it lives
	 * @param untilGoneNanos how long until it counts as gone if nothing changes; {@link Long#MAX_VALUE}
	 * when no such moment is known
	 */
	public record Verdict(String goneBecause, long untilGoneNanos) {

		public static Verdict gone(String because) {
			return new Verdict(because, 0);
		}

		public boolean gone() {
			return this.goneBecause != null;
		}

	}

}
