package io.leaderelection.autoconfigure.leaderonly;

import java.net.InetAddress;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashMap;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/**
 * fabric8's Kubernetes mock server in CRUD mode on the loopback address, for the
 * {@code @LeaderOnly} tests: it stores Leases, bumps resourceVersion and answers stale updates
 * with 409, like an API server.
 */
final class MockLeaseServer implements AutoCloseable {

	/** The namespace every test context is configured with. */
	static final String NAMESPACE = "leader-only";

	private final KubernetesMockServer server;

	/** A client for the test's own reads and writes; never handed to an application context. */
	private final KubernetesClient client;

	private MockLeaseServer() {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
	}

	static MockLeaseServer start() {
		return new MockLeaseServer();
	}

	/** A new client for one application context, which closes it with the context. */
	KubernetesClient newClient() {
		return this.server.createClient();
	}

	/**
	 * Creates the Lease held by another candidate, renewed now, for an hour: a replica that
	 * campaigns for it stays a follower for the whole test.
	 */
	void holdForAnHour(String leaseName, String holderIdentity) {
		ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
		Lease lease = new LeaseBuilder().withNewMetadata()
			.withNamespace(NAMESPACE)
			.withName(leaseName)
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity(holderIdentity)
			.withLeaseDurationSeconds(3600)
			.withAcquireTime(now)
			.withRenewTime(now)
			.withLeaseTransitions(0)
			.endSpec()
			.build();
		this.client.leases().inNamespace(NAMESPACE).resource(lease).create();
	}

	Lease lease(String leaseName) {
		return this.client.leases().inNamespace(NAMESPACE).withName(leaseName).get();
	}

	@Override
	public void close() {
		this.client.close();
		this.server.destroy();
	}

}
