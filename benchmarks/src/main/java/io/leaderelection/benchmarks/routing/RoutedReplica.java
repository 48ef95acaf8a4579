package io.leaderelection.benchmarks.routing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.RevocationCause;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Timings;
import io.leaderelection.engine.ElectionListener;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * One replica of {@link LeaderOnlyRouting}: a Spring Boot web application (Spring MVC on Tomcat)
 * with the starter's auto-configuration, routing the default election's leader-only traffic
 * through the EndpointSlice of a Service without selector, under its own Pod name and address
 * (192.0.2.N, of TEST-NET-1: a real API server refuses loopback addresses in a slice; the clients
 * reach it on this host, as kube-proxy forwards to an endpoint), its API traffic through a TCP
 * proxy of its own that a kill black-holes. It records its gate's intervals and the leader-only
 * requests it served, on the JVM's monotonic clock.
 */
final class RoutedReplica implements AutoCloseable {

	/** The Service, and the EndpointSlice of the same name. */
	static final String SERVICE = "bench-leader";

	static final String LEASE = "bench-routing-leader";

	static final String PATH = "/leader-only";

	private final String name;

	private final String address;

	private final TcpCrusher proxy;

	private final KubernetesClient client;

	private final ConfigurableApplicationContext context;

	private final Gates gates;

	private RoutedReplica(String name, String address, TcpCrusher proxy, KubernetesClient client,
			ConfigurableApplicationContext context, Gates gates) {
		this.name = name;
		this.address = address;
		this.proxy = proxy;
		this.client = client;
		this.context = context;
		this.gates = gates;
	}

	/**
	 * Starts replica number {@code index} (from 1): named {@code replica-<index>}, in Pod
	 * {@code pod-<index>} (which must exist), at address 192.0.2.(index).
	 */
	static RoutedReplica start(int index, ApiServer server, NioReactor reactor, Timings timings, Served served) {
		String name = "replica-" + index;
		String address = "192.0.2." + index;
		TcpCrusher proxy = TcpCrusherBuilder.builder()
			.withReactor(reactor)
			.withBindAddress("127.0.0.1", freePort())
			.withConnectAddress("127.0.0.1", server.port())
			.buildAndOpen();
		KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
			.withMasterUrl("http://127.0.0.1:" + proxy.getBindAddress().getPort())
			.withNamespace(ApiServer.NAMESPACE)
			.withHttp2Disable(true)
			.withCustomHeaders(Map.of(ApiServer.CLIENT_HEADER, name))
			.build()).build();
		Gates gates = new Gates();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.main.banner-mode", "off");
		properties.put("logging.level.root", "warn");
		properties.put("server.port", "0");
		properties.put("leader.election.identity", name);
		properties.put("leader.election.namespace", ApiServer.NAMESPACE);
		properties.put("leader.election.lease-name", LEASE);
		properties.put("leader.election.lease-duration", Timings.format(timings.leaseDuration()));
		properties.put("leader.election.renew-deadline", Timings.format(timings.renewDeadline()));
		properties.put("leader.election.retry-period", Timings.format(timings.retryPeriod()));
		properties.put("leader.election.events.enabled", "false");
		properties.put("leader.election.routing.service", SERVICE);
		properties.put("POD_NAME", podName(index));
		properties.put("POD_IP", address);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.SERVLET)
			.properties(properties)
			.initializers((applicationContext) -> {
				applicationContext.getBeanFactory().registerSingleton("kubernetesClient", client);
				applicationContext.getBeanFactory().registerSingleton("gates", gates);
				applicationContext.getBeanFactory().registerSingleton("served", served);
			})
			.run();
		return new RoutedReplica(name, address, proxy, client, context, gates);
	}

	static String podName(int index) {
		return "pod-" + index;
	}

	String name() {
		return this.name;
	}

	String address() {
		return this.address;
	}

	LeaderElector elector() {
		return this.context.getBean(LeaderElector.class);
	}

	boolean isLeader() {
		return this.context.isActive() && elector().isLeader();
	}

	/** The gate's intervals so far, each {@code [opened, closed]}, {@code closed} MAX_VALUE while open. */
	List<long[]> gateIntervals() {
		return this.gates.intervals();
	}

	/**
	 * The process dies: its web server stops answering and its API traffic goes nowhere, so it can
	 * neither withdraw its route nor release its Lease.
	 */
	void kill() {
		this.proxy.freeze();
		((WebServerApplicationContext) this.context).getWebServer().stop();
	}

	@Override
	public void close() {
		this.context.close();
		this.client.close();
		this.proxy.close();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The leader-only requests every replica served: which, and when the handler began. */
	static final class Served {

		private final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();

		void add(String replica, long at) {
			this.requests.add(new Request(replica, at));
		}

		List<Request> all() {
			return new ArrayList<>(this.requests);
		}

		record Request(String replica, long at) {

		}

	}

	/** One replica's gate: every interval it was open. */
	static final class Gates implements ElectionListener {

		private final List<long[]> intervals = new ArrayList<>();

		@Override
		public synchronized void granted(String election, long fencingToken, long gateOpenedAt) {
			this.intervals.add(new long[] { gateOpenedAt, Long.MAX_VALUE });
		}

		@Override
		public synchronized void revoked(String election, RevocationCause cause, long gateClosedAt) {
			if (!this.intervals.isEmpty()) {
				this.intervals.get(this.intervals.size() - 1)[1] = gateClosedAt;
			}
		}

		synchronized List<long[]> intervals() {
			List<long[]> copy = new ArrayList<>();
			for (long[] interval : this.intervals) {
				copy.add(interval.clone());
			}
			return copy;
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@RestController
		static class LeaderOnlyController {

			private final Served served;

			private final String replica;

			LeaderOnlyController(Served served, @Value("${leader.election.identity}") String replica) {
				this.served = served;
				this.replica = replica;
			}

			@LeaderOnly
			@GetMapping(PATH)
			public String serve() {
				this.served.add(this.replica, System.nanoTime());
				return this.replica;
			}

		}

	}

}
