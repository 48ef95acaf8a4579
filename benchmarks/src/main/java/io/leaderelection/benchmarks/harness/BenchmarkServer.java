package io.leaderelection.benchmarks.harness;

import java.time.Duration;

/**
 * The API server a benchmark's electors talk to, counting every request by the client that sent
 * it: fabric8's CRUD mock server ({@link ApiServer}) or the real control plane
 * ({@code ControlPlaneServer}, on the test class path beside the control plane's harness).
 */
public interface BenchmarkServer {

	/** The loopback port it listens on: where a replica's TCP proxy connects to. */
	int port();

	/**
	 * How the named client reaches the server through the given loopback port, the server's own
	 * or a proxy's; the server counts the client's requests under that name.
	 */
	ClientAccess access(String client, int port);

	/** How the named client reaches the server directly. */
	default ClientAccess access(String client) {
		return access(client, port());
	}

	/** The requests counted for a client so far, growing as the server serves more. */
	ApiServer.Counts counts(String client);

	/**
	 * Waits until the server has served at least one request of the given kind from the client.
	 * @return whether it did within the timeout
	 */
	default boolean awaitRequest(String client, ApiServer.Kind kind, Duration timeout) throws InterruptedException {
		ApiServer.Counts counts = counts(client);
		return Waits.within(() -> counts.get(kind) > 0, Waits.deadline(timeout));
	}

}
