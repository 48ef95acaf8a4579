package io.leaderelection.autoconfigure;

/**
 * Leader election is configured in a way it cannot run with. Reported at start-up by
 * {@link LeaderElectionFailureAnalyzer} with its description and the action to take.
 */
public abstract class LeaderElectionConfigurationException extends RuntimeException {

	protected LeaderElectionConfigurationException(String message) {
		super(message);
	}

	/** What is wrong, naming the property or the code that says it. */
	public abstract String description();

	/** What the user should change. */
	public abstract String action();

}
