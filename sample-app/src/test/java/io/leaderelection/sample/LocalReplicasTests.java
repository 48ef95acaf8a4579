package io.leaderelection.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import io.leaderelection.LeaderElector;
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
 * Several local replicas as the README starts them: the first serves the local API server on
 * {@code sample.local-api-server.port}, the next ones join it, and stepping down through the
 * leader endpoint hands leadership over.
 */
class LocalReplicasTests {

	/** The local API server starts empty: the first leader creates the Lease a lease duration (15s) later. */
	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final TestRestTemplate http = new TestRestTemplate();

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	@AfterEach
	void stopReplicas() {
		// The first replica serves the API server: it stops last.
		if (this.second != null) {
			this.second.close();
		}
		if (this.first != null) {
			this.first.close();
		}
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

	private static ConfigurableApplicationContext startReplica(int apiServerPort) {
		return new SpringApplicationBuilder(SampleApplication.class)
			.run("--server.port=0", "--sample.local-api-server.enabled=true",
					"--sample.local-api-server.port=" + apiServerPort, "--management.endpoint.leader.access=unrestricted");
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
