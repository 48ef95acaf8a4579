package io.leaderelection.store;

/**
 * What a follower reads of the Pod that owns a for-life lock.
 *
 * @param name metadata.name
 * @param uid metadata.uid
 * @param phase status.phase ({@code Pending}, {@code Running}, {@code Succeeded}, {@code Failed},
 * {@code Unknown}), {@code null} when not reported yet
 * @param deletionRequested whether metadata.deletionTimestamp is set
 * @param deletionGracePeriodSeconds metadata.deletionGracePeriodSeconds, {@code null} when unset
 * @param nodeName spec.nodeName, {@code null} while not scheduled
 * @param deletedForItsNode whether Kubernetes deletes the Pod because its Node is unreachable or
 * NotReady (condition DisruptionTarget, reason DeletionByTaintManager): a kubelet cut off cannot
 * stop its containers, so the end of the grace period proves nothing
 * @param ready whether the Pod reports its condition Ready as True
 */
public record PodState(String name, String uid, String phase, boolean deletionRequested,
		Integer deletionGracePeriodSeconds, String nodeName, boolean deletedForItsNode, boolean ready) {

	/** Whether the Pod's containers have stopped for good: evicted, preempted, failed or completed. */
	public boolean finished() {
		return "Failed".equals(this.phase) || "Succeeded".equals(this.phase);
	}

}
