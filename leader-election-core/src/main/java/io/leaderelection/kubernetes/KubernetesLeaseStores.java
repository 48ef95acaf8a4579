package io.leaderelection.kubernetes;

import java.util.Map;
import java.util.concurrent.Executor;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaseStoreFactory;
import io.leaderelection.engine.MembershipStore;

/**
 * Creates the {@link KubernetesLeaseStore} of each election on one fabric8 client. All stores
 * share one HTTP client derived from it, with the client's own retries turned off: the engine
 * retries on its own schedule, and a request retried behind its back would outlive the renew
 * deadline it was sent under.
 */
public final class KubernetesLeaseStores implements LeaseStoreFactory {

	private final KubernetesClient client;

	private final HttpClient httpClient;

	private final Executor watchOpener;

	/**
	 * @param client the fabric8 client every store talks through
	 * @param watchOpener where watches are opened: fabric8 blocks until the server accepted a
	 * watch, and the engine's threads must never block
	 */
	public KubernetesLeaseStores(KubernetesClient client, Executor watchOpener) {
		this.client = client;
		this.watchOpener = watchOpener;
		this.httpClient = client.getHttpClient()
			.newBuilder()
			.tag(new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
				.withRequestRetryBackoffLimit(0)
				.build())
			.build();
	}

	/** The store of the Lease with the given namespace and name. */
	public KubernetesLeaseStore forLease(String namespace, String name) {
		return new KubernetesLeaseStore(this.client, this.httpClient, this.watchOpener, namespace, name, Map.of());
	}

	@Override
	public KubernetesLeaseStore create(ElectionSettings election) {
		return new KubernetesLeaseStore(this.client, this.httpClient, this.watchOpener, election.namespace(),
				election.leaseName(), LeaseLabels.of(election));
	}

	@Override
	public MembershipStore membership(String namespace) {
		return new KubernetesMembership(this.client, this.watchOpener, namespace);
	}

}
