package io.leaderelection.sample.apiserver;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a taken port of the standalone local API server into a start-up report that says what to
 * do, instead of a stack trace.
 */
class LocalApiServerFailureAnalyzer extends AbstractFailureAnalyzer<LocalApiServerPortTakenException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LocalApiServerPortTakenException cause) {
		return new FailureAnalysis(
				"The local API server cannot listen on 127.0.0.1:" + cause.port() + ": the port is taken.",
				"Stop what listens on port " + cause.port() + " (a local API server already running?), or start "
						+ "this one with --sample.local-api-server.port=<another port>, and the replicas with the same.",
				cause);
	}

}
