package io.leaderelection.chaos;

import java.util.List;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * A writer of Leases other than the electors, as a controller, a deploy tool or someone with
 * {@code kubectl} would be: it talks to the API server directly, not through any replica's link.
 * Every change is a JSON merge patch, which the server applies to the version it has, so that it
 * never conflicts; a write to a Lease that is missing fails and is let go.
 */
final class ForeignWriter implements AutoCloseable {

	/** The labels an edit changes, one after the other: the first edits add them, later ones change them. */
	private static final int EDITED_LABELS = 3;

	/** What KEP-4355 defines as the only strategy so far. */
	private static final String STRATEGY = "OldestEmulationVersion";

	private final KubernetesClient client;

	private long edits;

	private ForeignWriter(KubernetesClient client) {
		this.client = client;
	}

	/** @param name the writer's name, which the server sees as its client's */
	static ForeignWriter open(ChaosServer server, String name) {
		return new ForeignWriter(server.client(name));
	}

	/** Sets an annotation. */
	void annotate(String lease, String key, String value) {
		patch(lease, "{\"metadata\":{\"annotations\":{\"" + key + "\":\"" + value + "\"}}}");
	}

	/** Adds or changes a label and an annotation, differently at each edit. */
	void editMetadata(String lease) {
		long edit = ++this.edits;
		patch(lease, "{\"metadata\":{\"labels\":{\"chaos.io/edited-" + (edit % EDITED_LABELS) + "\":\"edit-" + edit
				+ "\"},\"annotations\":{\"chaos.io/last-edit\":\"" + edit + "\"}}}");
	}

	/** Names a preferred holder, as a coordinated leader election controller does (KEP-4355). */
	void prefer(String lease, String identity) {
		patch(lease, "{\"spec\":{\"preferredHolder\":\"" + identity + "\",\"strategy\":\"" + STRATEGY + "\"}}");
	}

	/** Removes the preferred holder and the strategy. */
	void clearPreference(String lease) {
		patch(lease, "{\"spec\":{\"preferredHolder\":null,\"strategy\":null}}");
	}

	void delete(String lease) {
		try {
			lease(lease).delete();
		}
		catch (KubernetesClientException ex) {
			// the API server is down, or answers with errors: nothing deleted
		}
	}

	/**
	 * Deletes the Leases all at once, each on a thread of its own, and returns once every
	 * deletion was answered: one after the other, the last would come a few round trips after the
	 * first, a long time on a loaded machine for a fault timed to the millisecond.
	 */
	void deleteAll(List<String> leases) {
		List<Thread> deleting = leases.stream().map((lease) -> new Thread(() -> delete(lease), "delete-" + lease)).toList();
		deleting.forEach(Thread::start);
		for (Thread thread : deleting) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private void patch(String lease, String mergePatch) {
		try {
			lease(lease).patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
		}
		catch (KubernetesClientException ex) {
			// a Lease missing, or not created yet: nothing to change
		}
	}

	private Resource<Lease> lease(String name) {
		return this.client.leases().inNamespace(ChaosSettings.NAMESPACE).withName(name);
	}

	@Override
	public void close() {
		this.client.close();
	}

}
