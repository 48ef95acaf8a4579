package io.leaderelection.chaos;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.leaderelection.kubernetes.MockApiServer;

/** The core's mock API server as the server of a chaos run. */
public final class ChaosApiServer extends MockApiServer implements ChaosServer {

	private ChaosApiServer() {
	}

	public static ChaosApiServer start() {
		return new ChaosApiServer();
	}

	/** Plain HTTP, every request naming the client in {@value #CLIENT_HEADER}. */
	@Override
	public ConfigBuilder config(int port, String clientName) {
		return clientConfig(port, clientName);
	}

	/** Answers the client's requests with 500, as an API server failing for it would. */
	@Override
	public Runnable failing(String clientName) {
		return answer(from(clientName), () -> status(500, "InternalError", "injected by the chaos run"))::close;
	}

}
