package io.leaderelection.integration;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * fabric8's mock API server in CRUD mode on loopback: it stores objects, bumps resourceVersion
 * and answers a stale update or a duplicate create with 409.
 */
final class CrudApiServer implements AutoCloseable {

	static final String NAMESPACE = "test";

	static final String CLIENT_HEADER = "X-Test-Client";

	private final KubernetesMockServer server;

	/** By client: see {@link #firstLeaseRequestAt}. */
	private final Map<String, Long> firstLeaseRequests = new ConcurrentHashMap<>();

	private CrudApiServer() {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher() {
					@Override
					public MockResponse dispatch(RecordedRequest request) {
						noteFirstLeaseRequest(request);
						return super.dispatch(request);
					}
				}, false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
	}

	static CrudApiServer start() {
		return new CrudApiServer();
	}

	int port() {
		return this.server.getPort();
	}

	/** A client that talks to the server directly. */
	KubernetesClient client(String clientName) {
		return clientFor(port(), clientName);
	}

	/**
	 * A client for a server (or proxy) on a loopback port whose every request carries the
	 * {@value #CLIENT_HEADER} header, so the server can tell replicas apart. HTTP/1.1 only, as
	 * the Boot 3.5 line's Vert.x client speaks to plain HTTP: the JDK's client (the Boot 4 line's)
	 * would ask for an h2c upgrade, which a real API server, on TLS, never sees.
	 */
	static KubernetesClient clientFor(int port, String clientName) {
		return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + port)
			.withNamespace(NAMESPACE)
			.withConnectionTimeout(500)
			.withHttp2Disable(true)
			.withCustomHeaders(Map.of(CLIENT_HEADER, clientName))
			.build()).build();
	}

	/** Every request served since the last call, as "client METHOD path". */
	List<String> takeRequests() throws InterruptedException {
		List<String> requests = new ArrayList<>();
		RecordedRequest request;
		while ((request = this.server.takeRequest(0, TimeUnit.MILLISECONDS)) != null) {
			requests.add(request.getHeader(CLIENT_HEADER) + " " + request.getMethod() + " " + request.getPath());
		}
		return requests;
	}

	/**
	 * When the server got the client's first request about a Lease, on {@link System#nanoTime()}
	 * as the engine's clock: before the client can have learned anything from its answer.
	 * @return {@code null} until one came
	 */
	Long firstLeaseRequestAt(String client) {
		return this.firstLeaseRequests.get(client);
	}

	private void noteFirstLeaseRequest(RecordedRequest request) {
		String client = request.getHeader(CLIENT_HEADER);
		String path = request.getPath();
		if (client != null && path != null && path.contains("/leases")) {
			this.firstLeaseRequests.putIfAbsent(client, System.nanoTime());
		}
	}

	@Override
	public void close() {
		this.server.destroy();
	}

}
