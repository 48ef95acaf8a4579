package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderElector;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * One replica of an application on the starter, for {@link ConfigMapMigrationTests} and
 * {@link LeaderRoutingTests}: a Spring Boot application context of its own (auto-configured as an
 * application is, without a web server), whose {@link KubernetesClient} bean is a client of its own
 * talking to the control plane as a ServiceAccount, with its own identity and Pod name
 * ({@code POD_NAME}, as the downward API gives it). Its properties come first in its environment,
 * before the JVM's environment variables (a {@code HOSTNAME} of the build machine, say).
 */
final class MigrationRoutingReplica implements AutoCloseable {

	/** Timings for the real control plane on a busy build machine, as {@link EngineReplica#election}'s. */
	static final Duration LEASE_DURATION = Duration.ofSeconds(3);

	static final Duration RENEW_DEADLINE = Duration.ofSeconds(2);

	static final Duration RETRY_PERIOD = Duration.ofMillis(500);

	private final String name;

	private final KubernetesClient client;

	private final ConfigurableApplicationContext context;

	private volatile boolean ended;

	private MigrationRoutingReplica(String name, KubernetesClient client, ConfigurableApplicationContext context) {
		this.name = name;
		this.client = client;
		this.context = context;
	}

	/**
	 * Starts a replica whose identity and {@code POD_NAME} are the given name; it campaigns once its
	 * context has started.
	 * @param config the client configuration of its ServiceAccount
	 * @param properties the application's own properties, beside the namespace, identity, Pod name
	 * and timings set here
	 * @param listeners told of its terms, as beans of its context
	 */
	static MigrationRoutingReplica start(String name, String namespace, Config config, Map<String, Object> properties,
			ElectionListener... listeners) {
		KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("leader.election.namespace", namespace);
		all.put("leader.election.identity", name);
		all.put("leader.election.lease-duration", LEASE_DURATION.toMillis() + "ms");
		all.put("leader.election.renew-deadline", RENEW_DEADLINE.toMillis() + "ms");
		all.put("leader.election.retry-period", RETRY_PERIOD.toMillis() + "ms");
		all.put("POD_NAME", name);
		all.putAll(properties);
		try {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(ReplicaApplication.class)
				.web(WebApplicationType.NONE)
				.bannerMode(org.springframework.boot.Banner.Mode.OFF)
				.logStartupInfo(false)
				.initializers((applicationContext) -> {
					applicationContext.getEnvironment()
						.getPropertySources()
						.addFirst(new MapPropertySource("replica-" + name, all));
					applicationContext.getBeanFactory().registerSingleton("kubernetesClient", client);
					for (int i = 0; i < listeners.length; i++) {
						applicationContext.getBeanFactory().registerSingleton("termRecorder" + i, listeners[i]);
					}
				})
				.run();
			return new MigrationRoutingReplica(name, client, context);
		}
		catch (RuntimeException ex) {
			client.close();
			throw ex;
		}
	}

	String name() {
		return this.name;
	}

	LeaderElector elector() {
		return this.context.getBean(LeaderElector.class);
	}

	ElectionEngine engine() {
		return this.context.getBean(ElectionEngine.class);
	}

	/** Whether its gate of the default election is open; never once it was stopped or killed. */
	boolean isLeader() {
		return !this.ended && this.context.isActive() && elector().isLeader();
	}

	boolean hasEnded() {
		return this.ended;
	}

	/**
	 * Stops it as the application's shutdown does: the context closes, the engine closes the gate,
	 * drains, withdraws what it wrote for its term and releases.
	 */
	void stop() {
		if (this.ended) {
			return;
		}
		this.ended = true;
		try {
			this.context.close();
		}
		finally {
			this.client.close();
		}
	}

	/**
	 * Ends it as a crash of its process would, as far as the API server sees it: the engine stops
	 * without releasing or withdrawing anything, then the context closes.
	 */
	void kill() {
		if (this.ended) {
			return;
		}
		this.ended = true;
		try {
			engine().stop(false).get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(this.name + ": its engine did not stop", ex);
		}
		finally {
			this.context.close();
			this.client.close();
		}
	}

	@Override
	public void close() {
		stop();
	}

	@Override
	public String toString() {
		return this.name + (this.ended ? " (ended)" : "");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ReplicaApplication {

	}

}
