package io.leaderelection.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a leader election configuration error into a start-up report that names the property
 * or the annotation at fault and what to change.
 */
class LeaderElectionFailureAnalyzer extends AbstractFailureAnalyzer<LeaderElectionConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LeaderElectionConfigurationException cause) {
		return new FailureAnalysis(cause.description(), cause.action(), cause);
	}

}
