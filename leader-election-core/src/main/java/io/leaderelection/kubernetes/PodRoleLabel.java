package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.fabric8.kubernetes.client.http.HttpRequest;
import io.leaderelection.store.LeaseStoreException;

/**
 * A label on this replica's own Pod telling whether it leads an election,
 * {@code leaderelection.io/<election>: leader} or {@code follower}, for {@code kubectl get pods -L}
 * and for Services that select by label. Written by a JSON merge patch of that one label, so
 * that the Pod's other labels, and every other field, stay as they are.
 */
final class PodRoleLabel {

	/** The label's value on the leader's Pod. */
	static final String LEADER = "leader";

	/** The label's value on the other replicas' Pods. */
	static final String FOLLOWER = "follower";

	private static final String MERGE_PATCH = "application/merge-patch+json";

	private final ApiCalls calls;

	private final String namespace;

	private final String key;

	private final String podUri;

	private final String description;

	PodRoleLabel(ApiCalls calls, String namespace, String podName, String key) {
		this.calls = calls;
		this.namespace = namespace;
		this.key = key;
		this.podUri = calls.coreObjectUri(namespace, "pods", podName);
		this.description = "label " + key + " of Pod " + namespace + "/" + podName;
	}

	String describe() {
		return this.description;
	}

	CompletableFuture<Void> set(String value, Duration timeout) {
		String patch = this.calls.serialization().asJson(Map.of("metadata", Map.of("labels", Map.of(this.key, value))));
		HttpRequest request = this.calls.request(this.podUri, timeout).patch(MERGE_PATCH, patch).build();
		return this.calls.send("patch", request, timeout, this.description).thenApply((response) -> {
			int code = response.code();
			if (code / 100 == 2) {
				return null;
			}
			String detail = code + " " + this.calls.reason(response);
			if (code == 403) {
				detail += "; grant 'patch' on 'pods' in namespace '" + this.namespace
						+ "', or set leader.election.routing.pod-label=false";
			}
			else if (code == 404) {
				detail += "; the Pod is named by the environment variable POD_NAME (else HOSTNAME): set it from the "
						+ "downward API (fieldRef metadata.name)";
			}
			throw new LeaseStoreException("patch", this.description, code, detail);
		});
	}

}
