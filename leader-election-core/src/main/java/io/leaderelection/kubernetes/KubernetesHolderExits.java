package io.leaderelection.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.store.ContainerInstance;
import io.leaderelection.store.HolderExits;
import io.leaderelection.store.LeaseRecord;

/**
 * The kubelet's word on a Lease holder's process: the run its Lease's annotation
 * ({@link HolderInstanceAnnotation}) names, judged by its Pod's status, followed with a watch of
 * that Pod shared by every election following it.
 */
final class KubernetesHolderExits implements HolderExits {

	private final HolderInstanceAnnotation annotation;

	private final PodWatches pods;

	KubernetesHolderExits(HolderInstanceAnnotation annotation, PodWatches pods) {
		this.annotation = annotation;
		this.pods = pods;
	}

	@Override
	public ContainerInstance holderInstance(LeaseRecord version) {
		return (version.stored() instanceof Lease lease) ? this.annotation.read(lease.getMetadata()) : null;
	}

	@Override
	public Followed follow(ContainerInstance instance, Runnable changed) {
		FollowedRun run = new FollowedRun(instance, changed);
		run.unfollow = this.pods.follow(instance.namespace(), instance.pod(), run::seen);
		return run;
	}

	/** What the Pod's status says of the named container; {@code null} when it says nothing. */
	static ContainerInstance.ContainerReport report(Pod pod, String container) {
		if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
			return null;
		}
		for (ContainerStatus status : pod.getStatus().getContainerStatuses()) {
			if (container.equals(status.getName())) {
				return new ContainerInstance.ContainerReport(pod.getMetadata().getUid(),
						(status.getRestartCount() != null) ? status.getRestartCount() : 0,
						status.getState() != null && status.getState().getTerminated() != null);
			}
		}
		return null;
	}

	private static final class FollowedRun implements Followed {

		private final ContainerInstance instance;

		private final Runnable changed;

		private volatile String endedBecause;

		private volatile Runnable unfollow;

		FollowedRun(ContainerInstance instance, Runnable changed) {
			this.instance = instance;
			this.changed = changed;
		}

		void seen(Pod pod) {
			if (this.endedBecause != null) {
				return;
			}
			String ended = this.instance.endedBecause(report(pod, this.instance.container()));
			if (ended != null) {
				this.endedBecause = ended;
				this.changed.run();
			}
		}

		@Override
		public String endedBecause() {
			return this.endedBecause;
		}

		@Override
		public void close() {
			Runnable unfollowing = this.unfollow;
			if (unfollowing != null) {
				unfollowing.run();
			}
		}

	}

}
