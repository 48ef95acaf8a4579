package io.leaderelection.integration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.engine.ElectionListener;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One application instance: its own Spring context, identity and fabric8 client, talking to
 * the API server through its own TCP proxy so that its traffic can be cut alone.
 */
final class Replica implements AutoCloseable {

	/** Test timings: lease 2s, renew deadline 1s, retry 250ms. */
	static final Map<String, Object> FAST_TIMINGS = Map.of("leader.election.lease-duration", "2s",
			"leader.election.renew-deadline", "1s", "leader.election.retry-period", "250ms");

	private final String name;

	private final TcpCrusher proxy;

	private final KubernetesClient client;

	private final ConfigurableApplicationContext context;

	private Replica(String name, TcpCrusher proxy, KubernetesClient client, ConfigurableApplicationContext context) {
		this.name = name;
		this.proxy = proxy;
		this.client = client;
		this.context = context;
	}

	/**
	 * Starts a replica whose context holds the given configuration classes besides the
	 * auto-configuration.
	 */
	static Replica start(String name, CrudApiServer server, NioReactor reactor, GateHistory history,
			Map<String, Object> properties, Class<?>... configurations) {
		TcpCrusher proxy = TcpCrusherBuilder.builder()
			.withReactor(reactor)
			.withBindAddress("127.0.0.1", freePort())
			.withConnectAddress("127.0.0.1", server.port())
			.buildAndOpen();
		KubernetesClient client = CrudApiServer.clientFor(proxy.getBindAddress().getPort(), name);
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("spring.application.name", "it");
		all.put("leader.election.identity", name);
		all.putAll(FAST_TIMINGS);
		all.putAll(properties);
		Class<?>[] sources = new Class<?>[configurations.length + 1];
		sources[0] = ReplicaApplication.class;
		System.arraycopy(configurations, 0, sources, 1, configurations.length);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(sources)
			.web(WebApplicationType.NONE)
			.properties(all)
			.initializers((applicationContext) -> {
				applicationContext.getBeanFactory().registerSingleton("kubernetesClient", client);
				applicationContext.getBeanFactory().registerSingleton("gateRecorder", history.recorderFor(name));
			})
			.run();
		return new Replica(name, proxy, client, context);
	}

	String name() {
		return this.name;
	}

	LeaderElector elector() {
		return this.context.getBean(LeaderElector.class);
	}

	boolean isLeader() {
		return this.context.isActive() && elector().isLeader();
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	/** Its traffic to the API server from now on gets no answer: connections stay open, silent. */
	void blackHole() {
		this.proxy.freeze();
	}

	void restoreNetwork() {
		this.proxy.unfreeze();
	}

	@Override
	public void close() {
		this.context.close();
		this.client.close();
		this.proxy.close();
	}

	@Override
	public String toString() {
		return this.name;
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ReplicaApplication {

	}

}
