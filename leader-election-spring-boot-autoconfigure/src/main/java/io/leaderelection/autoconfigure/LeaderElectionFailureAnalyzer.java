package io.leaderelection.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an invalid {@code leader.election.*} property into a start-up report that names it.
 */
class LeaderElectionFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLeaderElectionPropertyException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLeaderElectionPropertyException cause) {
		String description = String.format("Leader election cannot start: property '%s' (value: %s) is invalid: %s.",
				cause.getProperty(), cause.getValue(), cause.getReason());
		String action = String.format("Update '%s' in your configuration: it %s.", cause.getProperty(),
				cause.getReason());
		return new FailureAnalysis(description, action, cause);
	}

}
