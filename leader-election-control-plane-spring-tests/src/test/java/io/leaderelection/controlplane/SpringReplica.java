package io.leaderelection.controlplane;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderElector;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One application instance on the control plane, as a user runs the starter: a Spring context of
 * its own, started as an application is (so that it campaigns once it is ready), with its own
 * identity and its own fabric8 client built from its ServiceAccount's configuration, registered
 * as the context's {@code KubernetesClient} bean.
 */
final class SpringReplica implements AutoCloseable {

	/** The timings {@link EngineReplica#election} uses: lease 3s, renew deadline 2s, retry 500ms. */
	static final Map<String, Object> TIMINGS = Map.of("leader.election.lease-duration", "3s",
			"leader.election.renew-deadline", "2s", "leader.election.retry-period", "500ms");

	private final String identity;

	private final KubernetesClient client;

	private final ConfigurableApplicationContext context;

	private SpringReplica(String identity, KubernetesClient client, ConfigurableApplicationContext context) {
		this.identity = identity;
		this.client = client;
		this.context = context;
	}

	/**
	 * Starts a replica in the namespace whose context holds, besides the auto-configuration, the
	 * given configuration classes and the given objects as singletons (listeners such as
	 * {@link Terms#recorderFor}, recorders the test shares between replicas).
	 * @param identity the replica's identity, {@code leader.election.identity}
	 * @param config the client configuration of its ServiceAccount
	 * @param namespace {@code leader.election.namespace}
	 * @param properties more properties, over {@link #TIMINGS}
	 * @param singletons objects to register as beans of the context
	 * @param configurations configuration classes of the application
	 */
	static SpringReplica start(String identity, Config config, String namespace, Map<String, Object> properties,
			List<?> singletons, Class<?>... configurations) {
		KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("spring.application.name", "control-plane");
		all.put("leader.election.identity", identity);
		all.put("leader.election.namespace", namespace);
		all.putAll(TIMINGS);
		all.putAll(properties);
		Class<?>[] sources = new Class<?>[configurations.length + 1];
		sources[0] = ReplicaApplication.class;
		System.arraycopy(configurations, 0, sources, 1, configurations.length);
		try {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(sources)
				.web(WebApplicationType.NONE)
				.properties(all)
				.initializers((applicationContext) -> {
					applicationContext.getBeanFactory().registerSingleton("kubernetesClient", client);
					for (int i = 0; i < singletons.size(); i++) {
						applicationContext.getBeanFactory().registerSingleton("testSingleton" + i, singletons.get(i));
					}
				})
				.run();
			return new SpringReplica(identity, client, context);
		}
		catch (RuntimeException ex) {
			client.close();
			throw ex;
		}
	}

	String identity() {
		return this.identity;
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	LeaderElector elector() {
		return this.context.getBean(LeaderElector.class);
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	/** Whether its gate of the election is open; {@code false} once the context is closed. */
	boolean isLeader(String election) {
		return this.context.isActive() && elector().isLeader(election);
	}

	/** Closes the context, as a graceful shutdown does (a leader releases), then the client. */
	@Override
	public void close() {
		this.context.close();
		this.client.close();
	}

	@Override
	public String toString() {
		return this.identity;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ReplicaApplication {

	}

}
