package io.leaderelection.controlplane;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One etcd member on loopback, the store of every API server of the control plane. Without
 * fsync: a test's data need not outlive the machine.
 */
final class Etcd {

	private static final ObjectMapper JSON = new ObjectMapper();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final int clientPort = ServerProcess.freePort();

	private final ServerProcess process;

	Etcd(KubeBinaries binaries, Path directory) {
		int peerPort = ServerProcess.freePort();
		String peer = "http://127.0.0.1:" + peerPort;
		this.process = new ServerProcess("etcd", List.of(binaries.etcd().toString(), "--name", "control-plane",
				"--data-dir", directory.resolve("data").toString(), "--listen-client-urls", url(),
				"--advertise-client-urls", url(), "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
				"--initial-cluster", "control-plane=" + peer, "--unsafe-no-fsync", "--log-level", "warn"),
				directory.resolve("etcd.log"), this::healthy);
	}

	Etcd start() {
		this.process.start();
		return this;
	}

	void kill() {
		this.process.kill();
	}

	/** The address API servers reach it at. */
	String url() {
		return "http://127.0.0.1:" + this.clientPort;
	}

	/**
	 * Compacts every revision before the current one away, as the API server's own compaction
	 * does every five minutes: a watch from an older resourceVersion can no longer be served
	 * from etcd. Returns the revision compacted to.
	 */
	long compact() {
		long revision = post("/v3/kv/range", "{\"key\":\"AA==\"}").path("header").path("revision").asLong();
		post("/v3/kv/compaction", "{\"revision\":" + revision + ",\"physical\":true}");
		return revision;
	}

	private boolean healthy() {
		try {
			HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(url() + "/health"))
				.timeout(Duration.ofSeconds(2))
				.build(), HttpResponse.BodyHandlers.ofString());
			return response.statusCode() == 200 && response.body().contains("true");
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** A call of etcd's JSON gateway to its v3 API. */
	private JsonNode post(String path, String body) {
		try {
			HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(url() + path))
				.timeout(Duration.ofSeconds(10))
				.POST(HttpRequest.BodyPublishers.ofString(body))
				.build(), HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IllegalStateException("etcd " + path + " answered " + response.statusCode() + ": "
						+ response.body());
			}
			return JSON.readTree(response.body());
		}
		catch (IOException ex) {
			throw new IllegalStateException("etcd " + path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted calling etcd " + path, ex);
		}
	}

}
