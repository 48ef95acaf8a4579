package io.leaderelection.kubernetes;

import java.time.Instant;
import java.util.List;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Pods whose status the test writes as a kubelet would, for a server without one: one container
 * {@value #CONTAINER} (and, where asked, a sidecar), reported running, terminated, or running again
 * at a higher restartCount with the run before as its last state.
 */
final class Kubelet {

	static final String CONTAINER = "app";

	static final String SIDECAR = "proxy";

	private final KubernetesClient client;

	private final String namespace;

	Kubelet(KubernetesClient client, String namespace) {
		this.client = client;
		this.namespace = namespace;
	}

	/** Creates the Pod with its container reported running at restartCount 0; returns its uid. */
	String run(String name) {
		return run(name, false);
	}

	String run(String name, boolean withSidecar) {
		PodBuilder pod = new PodBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(this.namespace)
			.endMetadata()
			.withNewSpec()
			.withNodeName("node-1")
			.addNewContainer()
			.withName(CONTAINER)
			.withImage("app")
			.endContainer()
			.endSpec();
		if (withSidecar) {
			pod.editSpec().addNewContainer().withName(SIDECAR).withImage("proxy").endContainer().endSpec();
		}
		Pod created = this.client.pods().inNamespace(this.namespace).resource(pod.build()).create();
		write(created, running(0, null));
		return created.getMetadata().getUid();
	}

	Pod pod(String name) {
		return this.client.pods().inNamespace(this.namespace).withName(name).get();
	}

	/** The container's process exited: terminated at the restartCount it ran at. */
	void terminated(String name) {
		Pod pod = pod(name);
		int restartCount = restartCount(pod);
		write(pod, new ContainerStatusBuilder().withName(CONTAINER)
			.withRestartCount(restartCount)
			.withNewState()
			.withNewTerminated()
			.withExitCode(137)
			.withReason("Error")
			.withFinishedAt(Instant.now().toString())
			.endTerminated()
			.endState()
			.build());
	}

	/** The container runs again: restartCount one higher, the run before as its last state. */
	void restarted(String name) {
		Pod pod = pod(name);
		ContainerStatus again = running(restartCount(pod) + 1, Instant.now());
		again.setLastState(new io.fabric8.kubernetes.api.model.ContainerStateBuilder().withNewTerminated()
			.withExitCode(137)
			.endTerminated()
			.build());
		write(pod, again);
	}

	/** The Pod object removed without any status first, as a force deletion (grace period 0) does. */
	void forceDelete(String name) {
		this.client.pods().inNamespace(this.namespace).withName(name).withGracePeriod(0).delete();
	}

	private void write(Pod pod, ContainerStatus container) {
		Pod written = new PodBuilder(pod).editOrNewStatus()
			.withPhase("Running")
			.withContainerStatuses(List.of(container))
			.endStatus()
			.build();
		this.client.pods().inNamespace(this.namespace).resource(written).update();
	}

	private static ContainerStatus running(int restartCount, Instant startedAt) {
		return new ContainerStatusBuilder().withName(CONTAINER)
			.withReady(true)
			.withRestartCount(restartCount)
			.withNewState()
			.withNewRunning()
			.withStartedAt(((startedAt != null) ? startedAt : Instant.now()).toString())
			.endRunning()
			.endState()
			.build();
	}

	private static int restartCount(Pod pod) {
		return pod.getStatus().getContainerStatuses().get(0).getRestartCount();
	}

}
