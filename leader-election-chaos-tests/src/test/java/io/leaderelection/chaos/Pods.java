package io.leaderelection.chaos;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Kubernetes does around the replicas of a for-life chaos run, as far as their elections
 * can tell. It creates a Pod, with a fresh uid, for a replica's process to run in, and keeps it
 * while the process's container restarts; deletes it when its process is stopped or killed;
 * reports it {@code Failed} when it is evicted, and leaves it there; creates its successor under
 * the same name, as a StatefulSet does (deleting a Failed Pod first), or under a new one, as a
 * Deployment does. The garbage collector deletes every Lease whose owner Pod no longer exists,
 * with the Lease's uid as precondition, as Kubernetes' collector does, so that it never deletes a
 * lock created again under the same name: at once after a Pod's deletion, when asked to, so that
 * followers find the lock gone, and on a thread of its own a few times a second, so that they
 * also find the owner gone and the lock still there.
 * <p>
 * It talks to the API server directly, not through any replica's link. Everything but the
 * collector runs on the run's driver thread.
 */
final class Pods implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(Pods.class);

	/** How often the garbage collector looks for Leases whose owner is gone. */
	private static final Duration COLLECTOR_PERIOD = Duration.ofMillis(250);

	/** How long a Pod operation is retried (the API server may be slow, or restarting). */
	private static final Duration RETRY_FOR = Duration.ofSeconds(10);

	private final KubernetesClient client;

	private final KubernetesClient collectorClient;

	private final Thread collector;

	private final String prefix;

	/** The Pod each replica's processes run in, or ran in last (Failed, evicted); driver thread only. */
	private final Map<ReplicaSlot, RunPod> pods = new HashMap<>();

	/** How many Pods each replica had; driver thread only. */
	private final Map<ReplicaSlot, Integer> created = new HashMap<>();

	private volatile boolean running = true;

	private final AtomicInteger collected = new AtomicInteger();

	private Pods(ChaosServer server, String prefix) {
		this.client = server.client("kubernetes");
		this.collectorClient = server.client("garbage-collector");
		this.prefix = prefix;
		this.collector = new Thread(this::collect, "garbage-collector");
		this.collector.setDaemon(true);
	}

	/** @param prefix how the Pods' names begin, e.g. {@code life} for {@code life-r0-1} */
	static Pods start(ChaosServer server, String prefix) {
		Pods pods = new Pods(server, prefix);
		pods.collector.start();
		return pods;
	}

	/**
	 * The Pod the replica's next process runs in: the Pod it runs in already (a container
	 * restart), or a new one, under the name of the one before or a new name.
	 * @param sameName whether a new Pod takes the name of the one before, as a StatefulSet's
	 * does; a Deployment's gets a new name
	 * @return the Pod's name, which the process campaigns under
	 */
	String podFor(ReplicaSlot slot, boolean sameName) {
		RunPod before = this.pods.get(slot);
		if (before != null && !before.gone) {
			return before.name;
		}
		String name;
		if (before != null && sameName) {
			name = before.name;
			if (before.failed) {
				// a StatefulSet deletes its Failed Pod before it creates the next one of that name
				deletePod(before);
			}
		}
		else {
			name = this.prefix + "-" + slot.name() + "-" + this.created.merge(slot, 1, Integer::sum);
		}
		String uid = retrying("create Pod " + name, () -> this.client.pods()
			.inNamespace(ChaosSettings.NAMESPACE)
			.resource(new PodBuilder().withNewMetadata()
				.withName(name)
				.withNamespace(ChaosSettings.NAMESPACE)
				.endMetadata()
				.withNewSpec()
				.endSpec()
				.withNewStatus()
				.withPhase("Running")
				.endStatus()
				.build())
			.create()
			.getMetadata()
			.getUid());
		this.pods.put(slot, new RunPod(name, uid));
		return name;
	}

	/**
	 * The replica's Pod is deleted, its process stopped or killed already; the collector deletes
	 * its locks.
	 * @param collectNow whether the collector deletes them at once, before this returns, rather
	 * than at its next round
	 */
	void delete(ReplicaSlot slot, boolean collectNow) {
		RunPod pod = this.pods.get(slot);
		if (pod != null && !pod.gone) {
			deletePod(pod);
			if (collectNow) {
				collectOrphans();
			}
		}
	}

	/**
	 * The replica's Pod is evicted, its process killed already: the kubelet reports it
	 * {@code Failed}, and it stays, with its locks, until its replica's next Pod.
	 */
	void evict(ReplicaSlot slot) {
		RunPod pod = this.pods.get(slot);
		retrying("set Pod " + pod.name + " Failed", () -> {
			Pod stored = this.client.pods().inNamespace(ChaosSettings.NAMESPACE).withName(pod.name).get();
			stored.getStatus().setPhase("Failed");
			return this.client.pods().inNamespace(ChaosSettings.NAMESPACE).resource(stored).update();
		});
		pod.gone = true;
		pod.failed = true;
	}

	/** How many Leases the garbage collector deleted. */
	int collected() {
		return this.collected.get();
	}

	@Override
	public void close() {
		this.running = false;
		this.collector.interrupt();
		try {
			this.collector.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.client.close();
		this.collectorClient.close();
	}

	private void deletePod(RunPod pod) {
		retrying("delete Pod " + pod.name, () -> this.client.pods()
			.inNamespace(ChaosSettings.NAMESPACE)
			.withName(pod.name)
			.delete());
		pod.gone = true;
	}

	private <T> T retrying(String what, Supplier<T> operation) {
		long giveUpAt = System.nanoTime() + RETRY_FOR.toNanos();
		while (true) {
			try {
				return operation.get();
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() - giveUpAt > 0) {
					throw new IllegalStateException("Kubernetes could not " + what, ex);
				}
				sleep(Duration.ofMillis(50));
			}
		}
	}

	private void collect() {
		while (this.running) {
			sleep(COLLECTOR_PERIOD);
			collectOrphans();
		}
	}

	/**
	 * A round of the garbage collector: Leases listed first, then Pods, so that a Lease listed
	 * has its owner listed if that owner exists (a process reads its Pod before it creates a lock).
	 */
	private void collectOrphans() {
		try {
			List<Lease> leases = this.collectorClient.leases().inNamespace(ChaosSettings.NAMESPACE).list().getItems();
			Set<String> pods = this.collectorClient.pods()
				.inNamespace(ChaosSettings.NAMESPACE)
				.list()
				.getItems()
				.stream()
				.map((pod) -> pod.getMetadata().getUid())
				.collect(Collectors.toSet());
			for (Lease lease : leases) {
				List<OwnerReference> owners = lease.getMetadata().getOwnerReferences();
				if (owners != null && !owners.isEmpty()
						&& owners.stream().noneMatch((owner) -> pods.contains(owner.getUid()))) {
					deleteOrphan(lease, owners.get(0));
				}
			}
		}
		catch (RuntimeException ex) {
			// the API server is down or slow: the next round tries again
		}
	}

	/** Deletes the Lease, and only that object: its uid is the precondition. */
	private void deleteOrphan(Lease lease, OwnerReference owner) {
		HttpClient http = this.collectorClient.getHttpClient();
		String master = this.collectorClient.getMasterUrl().toString();
		URI uri = URI.create((master.endsWith("/") ? master : master + "/") + "apis/coordination.k8s.io/v1/namespaces/"
				+ ChaosSettings.NAMESPACE + "/leases/" + lease.getMetadata().getName());
		HttpRequest request = http.newHttpRequestBuilder()
			.uri(uri)
			.delete("application/json", "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"preconditions\":{\"uid\":\""
					+ lease.getMetadata().getUid() + "\"}}")
			.build();
		try {
			HttpResponse<String> response = http.sendAsync(request, String.class).get(1, TimeUnit.SECONDS);
			if (response.code() == 200) {
				this.collected.incrementAndGet();
				logger.debug("The garbage collector deleted Lease {} of Pod {} (uid {})", lease.getMetadata().getName(),
						owner.getName(), owner.getUid());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			// the next sweep tries again
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A Pod of a replica: gone once deleted or Failed. */
	private static final class RunPod {

		private final String name;

		private final String uid;

		private boolean gone;

		private boolean failed;

		RunPod(String name, String uid) {
			this.name = name;
			this.uid = uid;
		}

		@Override
		public String toString() {
			return this.name + " (uid " + this.uid + ")";
		}

	}

}
