package io.leaderelection.sample;

import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.sample.apiserver.LocalApiServer;
import io.leaderelection.sample.apiserver.LocalApiServerApplication;
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
 * With no cluster configured, runs against a {@link LocalApiServer local API server} on
 * {@code sample.local-api-server.port} (7070 unless told otherwise): it joins the one listening
 * there (the standalone {@link LocalApiServerApplication}, or another replica's), or else serves
 * one itself, which then stops with it.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(LocalApiServerConfiguration.NoClusterConfigured.class)
class LocalApiServerConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(LocalApiServerConfiguration.class);

	@Bean(destroyMethod = "close")
	LocalApiServerEndpoint localApiServer(
			@Value("${sample.local-api-server.port:" + LocalApiServer.DEFAULT_PORT + "}") int port) {
		try {
			LocalApiServer server = LocalApiServer.start(port);
			logger.info("No Kubernetes cluster configured: started a local API server on http://127.0.0.1:{}, which "
					+ "stops with this replica. See its Leases with: {}", server.port(),
					LocalApiServer.kubectlGetLeases(server.port()));
			return new LocalApiServerEndpoint(server, server.port());
		}
		catch (BindException ex) {
			logger.info("No Kubernetes cluster configured: joined the local API server on http://127.0.0.1:{}. "
					+ "See its Leases with: {}", port, LocalApiServer.kubectlGetLeases(port));
			return new LocalApiServerEndpoint(null, port);
		}
	}

	@Bean(destroyMethod = "close")
	KubernetesClient kubernetesClient(LocalApiServerEndpoint localApiServer) {
		return new KubernetesClientBuilder().withConfig(new ConfigBuilder()
			.withMasterUrl("http://127.0.0.1:" + localApiServer.port())
			.withNamespace("default")
			// plain HTTP: no h2c upgrade for the JDK client (the Boot 4 line's) to ask for
			.withHttp2Disable(true)
			.build()).build();
	}

	/**
	 * The local API server this replica uses.
	 * @param served the server when this replica serves it, {@code null} when it joined another's
	 * @param port its port on 127.0.0.1
	 */
	record LocalApiServerEndpoint(LocalApiServer served, int port) implements AutoCloseable {

		@Override
		public void close() {
			if (this.served != null) {
				this.served.close();
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
