package io.leaderelection.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.web.WebStackReplica;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leader-only Service end to end, on fabric8's CRUD mock API server: two web replicas, each
 * its own context, client, identity, Pod and address, route their leader-only traffic through the
 * EndpointSlice of a Service without selector, which a client here reads as kube-proxy does. The
 * addresses are of TEST-NET-1 (192.0.2.1 and 192.0.2.2), as a real API server accepts them (not
 * loopback ones), and the client reaches them on this host as kube-proxy would forward them: at
 * 127.0.0.1 and the replica's port. Through a handover by step-down and one by a cut (the
 * leader's API traffic black-holed), the slice follows the term and never names two replicas, and
 * a request sent along the route as it was before the handover reaches the former leader and is
 * refused there, its handler never run.
 */
class LeaderOnlyRoutingIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(40);

	private static final String SERVICE = "it-leader";

	private final List<WebStackReplica> replicas = new ArrayList<>();

	private final List<TcpCrusher> proxies = new ArrayList<>();

	private final RestClient http = RestClient.create();

	private CrudApiServer server;

	private KubernetesClient client;

	private NioReactor reactor;

	@BeforeEach
	void start() throws Exception {
		this.server = CrudApiServer.start();
		this.client = this.server.client("test");
		this.reactor = new NioReactor();
		this.client.services()
			.inNamespace(CrudApiServer.NAMESPACE)
			.resource(new ServiceBuilder().withNewMetadata()
				.withName(SERVICE)
				.endMetadata()
				.withNewSpec()
				.addNewPort()
				.withName("http")
				.withPort(80)
				.endPort()
				.endSpec()
				.build())
			.create();
		for (String pod : List.of("pod-a", "pod-b")) {
			this.client.pods()
				.inNamespace(CrudApiServer.NAMESPACE)
				.resource(new PodBuilder().withNewMetadata().withName(pod).endMetadata().build())
				.create();
		}
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(WebStackReplica::close);
		this.proxies.forEach(TcpCrusher::close);
		this.reactor.close();
		this.client.close();
		this.server.close();
	}

	@Test
	void theSliceFollowsTheTermAndAStaleRouteIsRefused() {
		List<EndpointSlice> versions = new CopyOnWriteArrayList<>();
		try (Watch watch = this.client.discovery()
			.v1()
			.endpointSlices()
			.inNamespace(CrudApiServer.NAMESPACE)
			.watch(new Watcher<>() {
				@Override
				public void eventReceived(Action action, EndpointSlice slice) {
					versions.add(slice);
				}

				@Override
				public void onClose(WatcherException cause) {
				}
			})) {
			WebStackReplica a = start("a", "pod-a", "192.0.2.1");
			await().atMost(TIMEOUT).until(() -> a.elector().isLeader());
			WebStackReplica b = start("b", "pod-b", "192.0.2.2");
			TcpCrusher bTraffic = this.proxies.get(this.proxies.size() - 1);
			String routeToA = "http://192.0.2.1:" + a.port();
			await().atMost(TIMEOUT).untilAsserted(() -> {
				assertThat(route()).isEqualTo(routeToA);
				assertThat(podLabels()).containsEntry("pod-a", "leader").containsEntry("pod-b", "follower");
			});
			ResponseEntity<String> served = get(route());
			assertThat(served.getStatusCode()).isEqualTo(HttpStatus.OK);
			assertThat(served.getHeaders().getFirst("Leader-Election-Fencing-Token")).isEqualTo(token());

			// a step-down: the slice is emptied, then names the successor
			a.elector().stepDown(LeaderElector.DEFAULT_ELECTION);
			String routeToB = "http://192.0.2.2:" + b.port();
			await().atMost(TIMEOUT).untilAsserted(() -> {
				assertThat(route()).isEqualTo(routeToB);
				assertThat(podLabels()).containsEntry("pod-a", "follower").containsEntry("pod-b", "leader");
			});
			int servedByA = a.bean(Work.class).runs();
			ResponseEntity<String> stale = get(routeToA);
			assertThat(stale.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
			assertThat(stale.getHeaders().getFirst("Retry-After")).isEqualTo("1");
			assertThat(a.bean(Work.class).runs()).isEqualTo(servedByA);
			assertThat(get(route()).getHeaders().getFirst("Leader-Election-Fencing-Token")).isEqualTo(token());

			// a cut: the leader can neither renew nor withdraw; the other takes over once the Lease expired
			bTraffic.freeze();
			await().atMost(TIMEOUT).untilAsserted(() -> assertThat(route()).isEqualTo(routeToA));
			int servedByB = b.bean(Work.class).runs();
			assertThat(get(routeToB).getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
			assertThat(b.bean(Work.class).runs()).isEqualTo(servedByB);
			String tokenOfA = token();
			// back on the network, the deposed leader's withdrawal finds the newer term and leaves it
			bTraffic.unfreeze();
			await().atMost(TIMEOUT).until(() -> "follower".equals(podLabels().get("pod-b")));
			await().during(Duration.ofSeconds(2))
				.atMost(TIMEOUT)
				.until(() -> routeToA.equals(route()) && tokenOfA.equals(token()));
		}
		assertThat(versions).isNotEmpty()
			.allSatisfy((version) -> assertThat(addresses(version)).hasSizeLessThanOrEqualTo(1));
	}

	/**
	 * A leader cut off from the API loses its gate while the withdrawal of its route cannot be
	 * written: its other leader work stops as soon as the gate closes, not once the withdrawal gave
	 * up, so that it does not run beside the successor's.
	 */
	@Test
	void aLostGateStopsTheLeaderWorkAtOnceWhileTheWithdrawalCannotBeWritten() {
		WebStackReplica a = start("a", "pod-a", "192.0.2.1", Poller.class);
		TcpCrusher aTraffic = this.proxies.get(this.proxies.size() - 1);
		await().atMost(TIMEOUT).until(() -> a.elector().isLeader());
		await().atMost(TIMEOUT).until(() -> route() != null);
		Poller poller = a.bean(Poller.class);
		assertThat(poller.isRunning()).isTrue();

		aTraffic.freeze();
		await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(10)).until(() -> !a.elector().isLeader());
		long gateClosed = System.nanoTime();
		// the withdrawal alone may take two calls of a renew deadline (8 s) each
		await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10)).until(() -> !poller.isRunning());
		assertThat(Duration.ofNanos(poller.stoppedAt() - gateClosed)).isLessThan(Duration.ofSeconds(3));
		aTraffic.unfreeze();
		await().atMost(TIMEOUT).until(() -> route() == null);
	}

	/** A replica whose API traffic goes through a proxy of its own, which the test can cut. */
	private WebStackReplica start(String identity, String pod, String address, Class<?>... leaderWork) {
		TcpCrusher proxy = TcpCrusherBuilder.builder()
			.withReactor(this.reactor)
			.withBindAddress("127.0.0.1", Replica.freePort())
			.withConnectAddress("127.0.0.1", this.server.port())
			.buildAndOpen();
		this.proxies.add(proxy);
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("leader.election.namespace", CrudApiServer.NAMESPACE);
		properties.put("leader.election.routing.service", SERVICE);
		properties.put("POD_NAME", pod);
		properties.put("POD_IP", address);
		List<Class<?>> components = new ArrayList<>(List.of(leaderWork));
		components.add(Work.class);
		WebStackReplica replica = WebStackReplica.start(WebApplicationType.SERVLET, identity,
				CrudApiServer.clientFor(proxy.getBindAddress().getPort(), identity), properties,
				components.toArray(Class<?>[]::new));
		this.replicas.add(replica);
		return replica;
	}

	/** Where the slice sends leader-only traffic, as kube-proxy reads it; {@code null} when nowhere. */
	private String route() {
		EndpointSlice slice = slice();
		List<String> addresses = (slice != null) ? addresses(slice) : List.of();
		if (addresses.isEmpty()) {
			return null;
		}
		return "http://" + addresses.get(0) + ":" + slice.getPorts().get(0).getPort();
	}

	private String token() {
		return slice().getMetadata().getAnnotations().get("leaderelection.io/fencing-token");
	}

	private EndpointSlice slice() {
		return this.client.discovery().v1().endpointSlices().inNamespace(CrudApiServer.NAMESPACE).withName(SERVICE).get();
	}

	private Map<String, String> podLabels() {
		Map<String, String> labels = new LinkedHashMap<>();
		for (String pod : List.of("pod-a", "pod-b")) {
			Map<String, String> podLabels = this.client.pods()
				.inNamespace(CrudApiServer.NAMESPACE)
				.withName(pod)
				.get()
				.getMetadata()
				.getLabels();
			labels.put(pod, (podLabels != null) ? podLabels.get("leaderelection.io/default") : null);
		}
		return labels;
	}

	private static List<String> addresses(EndpointSlice slice) {
		List<String> addresses = new ArrayList<>();
		for (Endpoint endpoint : (slice.getEndpoints() != null) ? slice.getEndpoints() : List.<Endpoint>of()) {
			addresses.addAll(endpoint.getAddresses());
		}
		return addresses;
	}

	/** Sends a request along the route as kube-proxy forwards it: to this host, at the endpoint's port. */
	private ResponseEntity<String> get(String route) {
		return this.http.get()
			.uri(route.replaceFirst("^http://192\\.0\\.2\\.\\d+:", "http://127.0.0.1:") + "/work")
			.retrieve()
			.onStatus((status) -> true, (request, response) -> {
			})
			.toEntity(String.class);
	}

	/** Leader work of the user's, stopped after the route would be (a lower phase). */
	@LeaderOnly
	static class Poller implements SmartLifecycle {

		private volatile boolean running;

		private volatile long stoppedAt;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.stoppedAt = System.nanoTime();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return 0;
		}

		long stoppedAt() {
			return this.stoppedAt;
		}

	}

	@RestController
	static class Work {

		private int runs;

		@LeaderOnly
		@GetMapping("/work")
		public synchronized String work() {
			this.runs++;
			return "done";
		}

		public synchronized int runs() {
			return this.runs;
		}

	}

}
