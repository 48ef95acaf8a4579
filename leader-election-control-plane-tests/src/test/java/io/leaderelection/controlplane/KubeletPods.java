package io.leaderelection.controlplane;

import java.time.Instant;
import java.util.List;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import static org.awaitility.Awaitility.await;

/**
 * Pods of a namespace as a kubelet would leave them, on a control plane that has none: created
 * bound to a node, their status written through the status subresource, deleted gracefully and
 * then removed once their containers are reported terminated, as the kubelet confirms.
 */
final class KubeletPods {

	static final String NODE = "node-1";

	private static final String CONTAINER = "app";

	private final KubernetesClient admin;

	private final String namespace;

	private final String serviceAccount;

	KubeletPods(KubernetesClient admin, String namespace, String serviceAccount) {
		this.admin = admin;
		this.namespace = namespace;
		this.serviceAccount = serviceAccount;
	}

	/** A Pod bound to the node, its container running and Ready, as the kubelet reports it. */
	Pod running(String name) {
		return running(name, null);
	}

	/** A Pod bound to the node with the given address, its container running and Ready. */
	Pod running(String name, String podIp) {
		Pod created = this.admin.pods()
			.inNamespace(this.namespace)
			.resource(new PodBuilder().withNewMetadata()
				.withName(name)
				.endMetadata()
				.withNewSpec()
				.withNodeName(NODE)
				.withServiceAccountName(this.serviceAccount)
				.withAutomountServiceAccountToken(false)
				.addNewContainer()
				.withName(CONTAINER)
				.withImage("leader-election-sample-app:0.1.0-SNAPSHOT")
				.endContainer()
				.endSpec()
				.build())
			.create();
		return writeStatus(new PodBuilder(created).editOrNewStatus().withPodIP(podIp).endStatus().build(), "Running",
				true, runningContainer(0));
	}

	/** The kubelet reports the container ended (its process exited) and the Pod Failed. */
	Pod terminated(String name, int exitCode) {
		Pod pod = this.admin.pods().inNamespace(this.namespace).withName(name).get();
		return writeStatus(pod, "Failed", false, new ContainerStatusBuilder().withName(CONTAINER)
			.withImage("leader-election-sample-app:0.1.0-SNAPSHOT")
			.withReady(false)
			.withRestartCount(restartCount(pod))
			.withNewState()
			.withNewTerminated()
			.withExitCode(exitCode)
			.withReason((exitCode == 137) ? "OOMKilled" : "Error")
			.withFinishedAt(Instant.now().toString())
			.endTerminated()
			.endState()
			.build());
	}

	/**
	 * Deletes the Pod as its end goes on a node: the process ended and was reported terminated,
	 * then the kubelet removes the object (grace period 0).
	 */
	void endAndRemove(String name) {
		terminated(name, 137);
		this.admin.pods().inNamespace(this.namespace).withName(name).withGracePeriod(0).delete();
	}

	/**
	 * The kubelet reports the Pod's container running again after its process ended: its
	 * restartCount one higher, the run before as its last state, the Pod still Running.
	 */
	Pod restarted(String name) {
		Pod pod = this.admin.pods().inNamespace(this.namespace).withName(name).get();
		ContainerStatus again = runningContainer(restartCount(pod) + 1);
		again.setLastState(new ContainerStateBuilder().withNewTerminated()
			.withExitCode(137)
			.withReason("Error")
			.withFinishedAt(Instant.now().toString())
			.endTerminated()
			.build());
		return writeStatus(pod, "Running", true, again);
	}

	/**
	 * Removes the Pod's object at once, with nothing reported of its container first: a force
	 * deletion ({@code kubectl delete --grace-period=0 --force}), whose process may run on.
	 */
	void forceDelete(String name) {
		this.admin.pods().inNamespace(this.namespace).withName(name).withGracePeriod(0).delete();
		await().until(() -> this.admin.pods().inNamespace(this.namespace).withName(name).get() == null);
	}

	private Pod writeStatus(Pod pod, String phase, boolean ready, ContainerStatus container) {
		Pod status = new PodBuilder(pod).editOrNewStatus()
			.withPhase(phase)
			.withConditions(new PodConditionBuilder().withType("Ready")
				.withStatus(ready ? "True" : "False")
				.withLastTransitionTime(Instant.now().toString())
				.build())
			.withContainerStatuses(List.of(container))
			.endStatus()
			.build();
		return this.admin.pods().inNamespace(this.namespace).resource(status).updateStatus();
	}

	private static ContainerStatus runningContainer(int restartCount) {
		return new ContainerStatusBuilder().withName(CONTAINER)
			.withImage("leader-election-sample-app:0.1.0-SNAPSHOT")
			.withReady(true)
			.withStarted(true)
			.withRestartCount(restartCount)
			.withNewState()
			.withNewRunning()
			.withStartedAt(Instant.now().toString())
			.endRunning()
			.endState()
			.build();
	}

	private static int restartCount(Pod pod) {
		return (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null
				&& !pod.getStatus().getContainerStatuses().isEmpty())
						? pod.getStatus().getContainerStatuses().get(0).getRestartCount() : 0;
	}

}
