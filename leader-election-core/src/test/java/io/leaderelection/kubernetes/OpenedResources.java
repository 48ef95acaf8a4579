package io.leaderelection.kubernetes;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;

/**
 * What a test opened (clients, threads, stores, engines), closed in the reverse order, the last
 * opened first, and the mock API server they ran on, stopped after them.
 */
final class OpenedResources implements AutoCloseable {

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final KubernetesMockServer server;

	/** On a mock API server on loopback answering with the given dispatcher. */
	OpenedResources(Dispatcher dispatcher) {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
	}

	KubernetesMockServer server() {
		return this.server;
	}

	<T extends AutoCloseable> T open(T resource) {
		this.resources.add(resource);
		return resource;
	}

	@Override
	public void close() throws Exception {
		for (int last = this.resources.size() - 1; last >= 0; last--) {
			this.resources.get(last).close();
		}
		this.server.destroy();
	}

}
