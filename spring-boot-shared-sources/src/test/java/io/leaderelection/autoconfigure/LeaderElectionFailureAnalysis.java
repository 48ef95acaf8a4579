package io.leaderelection.autoconfigure;

import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Lets tests in other packages run the package-private {@link LeaderElectionFailureAnalyzer}.
 */
public final class LeaderElectionFailureAnalysis {

	private LeaderElectionFailureAnalysis() {
	}

	/** What the failure analyzer reports for a start-up failure; {@code null} when not ours. */
	public static FailureAnalysis of(Throwable failure) {
		return new LeaderElectionFailureAnalyzer().analyze(failure);
	}

}
