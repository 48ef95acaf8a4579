package io.leaderelection.sample;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * With no cluster configured, runs against an embedded local API server: fabric8's mock server
 * in CRUD mode on loopback, which stores Leases and enforces resourceVersion as a real API
 * server does. Replicas started with the same {@code sample.local-api-server.port} share it:
 * the first one serves it, the others connect to it.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(LocalApiServerConfiguration.NoClusterConfigured.class)
class LocalApiServerConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(LocalApiServerConfiguration.class);

	@Bean(destroyMethod = "close")
	LocalApiServer localApiServer(@Value("${sample.local-api-server.port:0}") int port) {
		if (port != 0 && !isFree(port)) {
			logger.info("Joining the local API server already listening on 127.0.0.1:{}", port);
			return new LocalApiServer(null, port);
		}
		KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		server.init(InetAddress.getLoopbackAddress(), port);
		logger.info("No Kubernetes cluster configured: started a local API server on http://127.0.0.1:{}",
				server.getPort());
		return new LocalApiServer(server, server.getPort());
	}

	@Bean(destroyMethod = "close")
	KubernetesClient kubernetesClient(LocalApiServer localApiServer) {
		return new KubernetesClientBuilder().withConfig(new ConfigBuilder()
			.withMasterUrl("http://127.0.0.1:" + localApiServer.port())
			.withNamespace("default")
			// plain HTTP: no h2c upgrade for the JDK client (the Boot 4 line's) to ask for
			.withHttp2Disable(true)
			.build()).build();
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** The embedded server, or {@code null} when this replica joined another replica's. */
	record LocalApiServer(KubernetesMockServer server, int port) implements AutoCloseable {

		@Override
		public void close() {
			if (this.server != null) {
				this.server.destroy();
			}
		}

	}

	/**
	 * True unless a cluster is reachable the way fabric8 looks for one: in-cluster service
	 * account, {@code KUBECONFIG}, {@code ~/.kube/config} or {@code KUBERNETES_MASTER}; or
	 * unless {@code sample.local-api-server.enabled} says otherwise.
	 */
	static class NoClusterConfigured implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			String enabled = context.getEnvironment().getProperty("sample.local-api-server.enabled");
			if (enabled != null) {
				return Boolean.parseBoolean(enabled);
			}
			return System.getenv("KUBERNETES_SERVICE_HOST") == null && System.getenv("KUBECONFIG") == null
					&& System.getenv("KUBERNETES_MASTER") == null
					&& !Files.exists(Path.of(System.getProperty("user.home"), ".kube", "config"));
		}

	}

}
