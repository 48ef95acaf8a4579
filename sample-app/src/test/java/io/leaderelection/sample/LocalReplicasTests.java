package io.leaderelection.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.leaderelection.LeaderElector;
import io.leaderelection.sample.LocalApiServerConfiguration.LocalApiServerEndpoint;
import io.leaderelection.sample.apiserver.LocalApiServerApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.web.client.TestRestTemplate;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several local replicas as the README starts them, in the local profile: on the standalone local
 * API server, where any replica can stop and the others carry on; or the first serves the local
 * API server on {@code sample.local-api-server.port}, and the next ones join it; stepping down
 * through the leader endpoint hands leadership over.
 */
class LocalReplicasTests {

	/**
	 * The local API server starts empty: the first leader claims the Lease a lease duration (2s in
	 * the local profile) after creating it without holder; the rest is room for a slow machine.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final TestRestTemplate http = new TestRestTemplate();

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	private ConfigurableApplicationContext third;

	private ConfigurableApplicationContext standaloneApiServer;

	@AfterEach
	void stopReplicas() {
		// The first replica serves the API server: it stops last.
		if (this.third != null) {
			this.third.close();
		}
		if (this.second != null) {
			this.second.close();
		}
		if (this.first != null) {
			this.first.close();
		}
		if (this.standaloneApiServer != null) {
			this.standaloneApiServer.close();
		}
	}

	@Test
	void onTheStandaloneApiServerTheReplicasCarryOnWhicheverStops() {
		int apiServerPort = freePort();
		this.standaloneApiServer = LocalApiServerApplication.application()
			.run("--sample.local-api-server.port=" + apiServerPort);
		this.first = startReplica(apiServerPort);
		this.second = startReplica(apiServerPort);
		assertThat(List.of(this.first, this.second)).allSatisfy((replica) -> assertThat(
				replica.getBean(LocalApiServerEndpoint.class).served())
			.as("the replica's own API server")
			.isNull());
		LeaderElector firstElector = this.first.getBean(LeaderElector.class);
		LeaderElector secondElector = this.second.getBean(LeaderElector.class);
		await().atMost(TIMEOUT).until(() -> firstElector.isLeader() || secondElector.isLeader());

		// the first replica started stops: when it served the API server, that ended the election
		this.first.close();
		await().atMost(TIMEOUT).until(secondElector::isLeader);
		this.third = startReplica(apiServerPort);
		LeaderElector thirdElector = this.third.getBean(LeaderElector.class);
		this.second.close();
		await().atMost(TIMEOUT).until(thirdElector::isLeader);
	}

	@Test
	void aSecondReplicaJoinsTheFirstOnesApiServerAndTakesOverWhenTheLeaderStepsDown() {
		int apiServerPort = freePort();
		this.first = startReplica(apiServerPort);
		LeaderElector firstElector = this.first.getBean(LeaderElector.class);
		await().atMost(TIMEOUT).until(firstElector::isLeader);
		this.second = startReplica(apiServerPort);
		LeaderElector secondElector = this.second.getBean(LeaderElector.class);
		await().atMost(TIMEOUT)
			.until(() -> firstElector.identity().equals(secondElector.status("default").holderIdentity()));
		assertThat(secondElector.isLeader()).isFalse();

		ResponseEntity<String> stepDown = this.http.exchange(url(this.first, "/actuator/leader/default"),
				HttpMethod.DELETE, null, String.class);

		assertThat(stepDown.getStatusCode()).isEqualTo(HttpStatus.OK);
		await().atMost(TIMEOUT).until(secondElector::isLeader);
		assertThat(firstElector.isLeader()).isFalse();
		assertThat(this.http.getForObject(url(this.second, "/work"), String.class)).contains("\"default\":true");
	}

	@Test
	void threeReplicasEachShipTheOrdersOfTwoOrThreeOfTheEightOrderShards() {
		int apiServerPort = freePort();
		this.first = startReplica(apiServerPort, "--sample.jobs.interval=200ms");
		this.second = startReplica(apiServerPort, "--sample.jobs.interval=200ms");
		this.third = startReplica(apiServerPort, "--sample.jobs.interval=200ms");
		List<ConfigurableApplicationContext> replicas = List.of(this.first, this.second, this.third);
		await().atMost(TIMEOUT).untilAsserted(() -> {
			List<Set<Integer>> owned = replicas.stream()
				.map((replica) -> replica.getBean(LeaderElector.class).ownedShards("orders"))
				.toList();
			assertThat(owned).allSatisfy((shards) -> assertThat(shards).hasSizeBetween(2, 3));
			assertThat(owned.stream().flatMap(Set::stream).distinct().count()).isEqualTo(8);
		});
		for (ConfigurableApplicationContext replica : replicas) {
			Set<Integer> owned = replica.getBean(LeaderElector.class).ownedShards("orders");
			String work = this.http.getForObject(url(replica, "/work"), String.class);
			assertThat(work).contains("\"ownedOrderShards\":" + owned.stream().sorted().map(String::valueOf)
				.collect(Collectors.joining(",", "[", "]")));
			await().atMost(TIMEOUT).untilAsserted(() -> assertThat(this.http.getForObject(url(replica, "/work"), String.class))
				.containsPattern("orders-[0-9]-of-8\",\"fencingToken\":[0-9]+,\"what\":\"shipped order-"));
		}
	}

	private static ConfigurableApplicationContext startReplica(int apiServerPort, String... args) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--spring.profiles.active=local",
				"--sample.local-api-server.enabled=true", "--sample.local-api-server.port=" + apiServerPort,
				"--management.endpoint.leader.access=unrestricted"));
		arguments.addAll(List.of(args));
		return new SpringApplicationBuilder(SampleApplication.class).run(arguments.toArray(String[]::new));
	}

	private static String url(ConfigurableApplicationContext replica, String path) {
		return "http://127.0.0.1:" + ((WebServerApplicationContext) replica).getWebServer().getPort() + path;
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
