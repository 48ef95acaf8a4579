package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.store.LeaderKeyStore;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseStoreException;
import io.leaderelection.store.PodState;

/**
 * The key of spring-cloud-kubernetes' ConfigMap leader: one data key of a ConfigMap (by default
 * {@code leaders}, key {@code leader.id.<role>}) holding the leader's Pod name. A write replaces
 * the ConfigMap read, at its resourceVersion, with only that key changed, so the keys of other
 * roles are never reverted; an absent ConfigMap is created.
 */
final class ConfigMapLeaderKeyStore implements LeaderKeyStore {

	private final ApiCalls calls;

	private final KubernetesSerialization serialization;

	private final KubernetesLeaseStore pods;

	private final String namespace;

	private final String name;

	private final String key;

	private final String collectionUri;

	private final String objectUri;

	private final String description;

	/**
	 * @param pods reads the Pods the key names, in the same namespace
	 */
	ConfigMapLeaderKeyStore(ApiCalls calls, KubernetesLeaseStore pods, String namespace, String name, String key) {
		this.calls = calls;
		this.serialization = calls.serialization();
		this.pods = pods;
		this.namespace = namespace;
		this.name = name;
		this.key = key;
		this.collectionUri = calls.serverUri() + "api/v1/namespaces/" + KubernetesLeaseStore.encode(namespace)
				+ "/configmaps";
		this.objectUri = this.collectionUri + "/" + KubernetesLeaseStore.encode(name);
		this.description = "key '" + key + "' of ConfigMap " + namespace + "/" + name;
	}

	@Override
	public String describe() {
		return this.description;
	}

	@Override
	public CompletableFuture<LeaderKey> read(Duration timeout) {
		return this.calls.read(this.objectUri, this.description, ConfigMap.class, timeout).thenApply(this::keyOf);
	}

	@Override
	public CompletableFuture<LeaderKey> write(LeaderKey read, String value, Duration timeout) {
		ConfigMap stored = (read.stored() instanceof ConfigMap map) ? this.serialization.clone(map) : null;
		if (stored == null && value == null) {
			return CompletableFuture.completedFuture(read);
		}
		HttpRequest request;
		if (stored == null) {
			ConfigMap created = new ConfigMapBuilder().withNewMetadata()
				.withName(this.name)
				.withNamespace(this.namespace)
				.endMetadata()
				.withData(Map.of(this.key, value))
				.build();
			request = this.calls.request(this.collectionUri, timeout)
				.post(ApiCalls.JSON, this.serialization.asJson(created))
				.build();
		}
		else {
			Map<String, String> data = new LinkedHashMap<>((stored.getData() != null) ? stored.getData() : Map.of());
			if (value == null) {
				data.remove(this.key);
			}
			else {
				data.put(this.key, value);
			}
			stored.setData(data);
			request = this.calls.request(this.objectUri, timeout)
				.put(ApiCalls.JSON, this.serialization.asJson(stored))
				.build();
		}
		String verb = (stored == null) ? "create" : "update";
		return this.calls.send(verb, request, timeout, this.description).thenApply((response) -> written(verb, response));
	}

	@Override
	public CompletableFuture<PodState> pod(String podName, Duration timeout) {
		return this.pods.pod(podName, timeout);
	}

	private LeaderKey written(String verb, HttpResponse<String> response) {
		int code = response.code();
		if (code == 200 || code == 201) {
			return keyOf(this.serialization.unmarshal(response.body(), ConfigMap.class));
		}
		String detail = code + " " + this.calls.reason(response);
		if (code == 409 || code == 404) {
			// written, created or deleted by someone else since it was read
			throw new LeaseConflictException(verb, this.description, detail);
		}
		throw new LeaseStoreException(verb, this.description, code, detail);
	}

	private LeaderKey keyOf(ConfigMap map) {
		if (map == null) {
			return new LeaderKey(null, null, null);
		}
		String value = (map.getData() != null) ? map.getData().get(this.key) : null;
		return new LeaderKey(value, map.getMetadata().getResourceVersion(), map);
	}

}
