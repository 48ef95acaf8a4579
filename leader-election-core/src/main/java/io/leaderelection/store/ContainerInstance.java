package io.leaderelection.store;

import java.util.Objects;

/**
 * One run of one container: the process a Lease's holder runs in, as its Pod's status tells it
 * apart from the runs before and after it. The kubelet counts a container's runs in its
 * restartCount and reports a run terminated only once its process has exited, so that a run
 * reported terminated, or followed by a later one, runs no more leader work.
 *
 * @param holder the holderIdentity this run wrote; {@code null} while not yet written into a Lease
 * @param namespace the Pod's namespace
 * @param pod the Pod's name, which a later Pod may take again
 * @param podUid the Pod's uid, which only this Pod has
 * @param container the container's name in the Pod's spec
 * @param restartCount the container's restartCount while this run runs
 */
public record ContainerInstance(String holder, String namespace, String pod, String podUid, String container,
		int restartCount) {

	public ContainerInstance {
		Objects.requireNonNull(namespace, "namespace");
		Objects.requireNonNull(pod, "pod");
		Objects.requireNonNull(podUid, "podUid");
		Objects.requireNonNull(container, "container");
		if (restartCount < 0) {
			throw new IllegalArgumentException("restartCount must not be negative, was " + restartCount);
		}
	}

	/** The same run, named as the holder of a Lease by the given identity. */
	public ContainerInstance heldBy(String identity) {
		return new ContainerInstance(identity, this.namespace, this.pod, this.podUid, this.container, this.restartCount);
	}

	/**
	 * Why the Pod's status proves this run ended, or {@code null} when it does not: the same Pod
	 * (same uid) reports the container terminated at this restartCount, or at a higher one. A Pod
	 * gone, another Pod of the same name, a Pod being deleted, or one whose Node stopped reporting
	 * prove nothing: the process may run on where no kubelet stopped it.
	 * @param reported what the Pod's status says of the container, {@code null} when there is no
	 * such Pod or container
	 */
	public String endedBecause(ContainerReport reported) {
		if (reported == null || !this.podUid.equals(reported.podUid())) {
			return null;
		}
		if (reported.restartCount() > this.restartCount) {
			return "container '" + this.container + "' of Pod " + this.pod + " restarted (restartCount "
					+ reported.restartCount() + ", the holder ran as " + this.restartCount + ")";
		}
		if (reported.restartCount() == this.restartCount && reported.terminated()) {
			return "container '" + this.container + "' of Pod " + this.pod + " terminated (restartCount "
					+ this.restartCount + ")";
		}
		return null;
	}

	@Override
	public String toString() {
		return "container '" + this.container + "' of Pod " + this.namespace + "/" + this.pod + " (uid " + this.podUid
				+ "), restartCount " + this.restartCount;
	}

	/**
	 * What a Pod's status says of one of its containers.
	 *
	 * @param podUid the Pod's uid
	 * @param restartCount the container's restartCount
	 * @param terminated whether the container's current state is terminated
	 */
	public record ContainerReport(String podUid, int restartCount, boolean terminated) {
	}

}
