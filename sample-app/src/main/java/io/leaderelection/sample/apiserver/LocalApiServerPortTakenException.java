package io.leaderelection.sample.apiserver;

import java.net.BindException;

/**
 * The standalone local API server cannot listen on its port: something else does.
 */
class LocalApiServerPortTakenException extends RuntimeException {

	private final int port;

	LocalApiServerPortTakenException(int port, BindException cause) {
		super("Port " + port + " of 127.0.0.1 is taken", cause);
		this.port = port;
	}

	int port() {
		return this.port;
	}

}
