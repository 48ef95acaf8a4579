package io.leaderelection.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import static org.awaitility.Awaitility.await;

/**
 * The Pods lease-mode processes run in where the run reports their end as a kubelet does
 * ({@link FaultKind#EXIT_REPORTED}): one per process, named after its identity, whose only
 * container is reported running from the start and terminated once its process was killed. It
 * talks to the API server directly, not through any replica's link, retrying for a while as the
 * server may be slow.
 */
final class ContainerPods implements AutoCloseable {

	private static final String CONTAINER = "app";

	private static final Duration RETRY_FOR = Duration.ofSeconds(10);

	private final KubernetesClient client;

	ContainerPods(ChaosServer server) {
		this.client = server.client("kubelet");
	}

	/** Creates the Pod, its container reported running at restartCount 0. */
	void run(String name) {
		Pod pod = new PodBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(ChaosSettings.NAMESPACE)
			.endMetadata()
			.withNewSpec()
			.addNewContainer()
			.withName(CONTAINER)
			.withImage("app")
			.endContainer()
			.endSpec()
			.withNewStatus()
			.withPhase("Running")
			.withContainerStatuses(container(true))
			.endStatus()
			.build();
		retrying(() -> this.client.pods().inNamespace(ChaosSettings.NAMESPACE).resource(pod).createOr((existing) -> existing.update()));
	}

	/** The container's process exited: its state reported terminated, the Pod Failed. */
	void terminated(String name) {
		retrying(() -> {
			Pod pod = this.client.pods().inNamespace(ChaosSettings.NAMESPACE).withName(name).get();
			pod.getStatus().setContainerStatuses(List.of(container(false)));
			pod.getStatus().setPhase("Failed");
			return this.client.pods().inNamespace(ChaosSettings.NAMESPACE).resource(pod).update();
		});
	}

	private static ContainerStatus container(boolean running) {
		ContainerStatusBuilder status = new ContainerStatusBuilder().withName(CONTAINER).withRestartCount(0);
		return running ? status.withNewState().withNewRunning().withStartedAt(Instant.now().toString()).endRunning()
			.endState().build()
				: status.withNewState().withNewTerminated().withExitCode(137).withReason("Error")
					.withFinishedAt(Instant.now().toString()).endTerminated().endState().build();
	}

	private static void retrying(java.util.concurrent.Callable<Pod> call) {
		await().atMost(RETRY_FOR).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(call, (pod) -> pod != null);
	}

	@Override
	public void close() {
		this.client.close();
	}

}
