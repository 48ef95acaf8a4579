package io.leaderelection.forlife;

import java.time.Instant;
import java.util.List;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.kubernetes.MockApiServer;

/**
 * What Kubernetes does around the replicas in these tests: it creates their Pods, changes their
 * phase, marks them for deletion, deletes them, and, as the garbage collector, deletes the Leases
 * a deleted Pod owned.
 */
final class Cluster implements AutoCloseable {

	private final KubernetesClient client;

	Cluster(MockApiServer server) {
		this.client = server.client("kubernetes");
	}

	KubernetesClient client() {
		return this.client;
	}

	/** Creates a running Pod (on the given Node, or none) and returns its uid. */
	String runPod(String name, String nodeName) {
		Pod pod = this.client.pods()
			.inNamespace(ForLifeReplica.NAMESPACE)
			.resource(new PodBuilder().withNewMetadata()
				.withName(name)
				.withNamespace(ForLifeReplica.NAMESPACE)
				.endMetadata()
				.withNewSpec()
				.withNodeName(nodeName)
				.endSpec()
				.withNewStatus()
				.withPhase("Running")
				.endStatus()
				.build())
			.create();
		return pod.getMetadata().getUid();
	}

	String runPod(String name) {
		return runPod(name, null);
	}

	Pod pod(String name) {
		return this.client.pods().inNamespace(ForLifeReplica.NAMESPACE).withName(name).get();
	}

	/** The kubelet reports the phase, e.g. {@code Failed} for an evicted Pod. */
	void setPhase(String name, String phase) {
		Pod pod = pod(name);
		pod.getStatus().setPhase(phase);
		this.client.pods().inNamespace(ForLifeReplica.NAMESPACE).resource(pod).update();
	}

	/** A graceful deletion began: deletionTimestamp set, the Pod kept until its containers end. */
	void markForDeletion(String name, long gracePeriodSeconds) {
		Pod pod = pod(name);
		pod.getMetadata()
			.setDeletionTimestamp(DateTimeFormatter.ISO_INSTANT.format(Instant.now().atZone(ZoneOffset.UTC)));
		pod.getMetadata().setDeletionGracePeriodSeconds(gracePeriodSeconds);
		// held by a finalizer, as the kubelet holds it until the containers ended: the CRUD server
		// deletes an object marked for deletion at once when nothing holds it
		pod.getMetadata().setFinalizers(List.of("test.leaderelection.io/kubelet"));
		this.client.pods().inNamespace(ForLifeReplica.NAMESPACE).resource(pod).update();
	}

	/** Deletes the Pod's object and nothing else: the garbage collector has not run yet. */
	void deletePodObject(String name) {
		this.client.pods().inNamespace(ForLifeReplica.NAMESPACE).withName(name).delete();
	}

	/** Deletes the Pod, then, as the garbage collector, every Lease it owned. */
	void deletePod(String name) {
		String uid = pod(name).getMetadata().getUid();
		deletePodObject(name);
		for (Lease lease : this.client.leases().inNamespace(ForLifeReplica.NAMESPACE).list().getItems()) {
			if (lease.getMetadata().getOwnerReferences().stream().anyMatch((owner) -> uid.equals(owner.getUid()))) {
				this.client.leases().inNamespace(ForLifeReplica.NAMESPACE).resource(lease).delete();
			}
		}
	}

	void node(String name, boolean ready) {
		this.client.nodes()
			.resource(new NodeBuilder().withNewMetadata()
				.withName(name)
				.endMetadata()
				.withNewStatus()
				.addNewCondition()
				.withType("Ready")
				.withStatus(ready ? "True" : "Unknown")
				.endCondition()
				.endStatus()
				.build())
			.createOr((existing) -> existing.update());
	}

	Lease lock() {
		return this.client.leases().inNamespace(ForLifeReplica.NAMESPACE).withName(ForLifeReplica.LEASE).get();
	}

	@Override
	public void close() {
		this.client.close();
	}

}
