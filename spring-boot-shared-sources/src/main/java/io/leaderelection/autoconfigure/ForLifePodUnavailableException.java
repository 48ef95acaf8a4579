package io.leaderelection.autoconfigure;

import io.leaderelection.LeaderElector;
import io.leaderelection.engine.ForLifePodException;

/**
 * A leader-for-life election cannot start because this replica's Pod is not found or cannot be
 * read; reported at start-up with what to give it.
 */
public class ForLifePodUnavailableException extends LeaderElectionConfigurationException {

	private final String election;

	public ForLifePodUnavailableException(ForLifePodException cause) {
		super(cause.getMessage());
		initCause(cause);
		this.election = cause.getElection();
	}

	@Override
	public String description() {
		return "Leader election cannot start: " + getMessage();
	}

	@Override
	public String action() {
		String property = LeaderElector.DEFAULT_ELECTION.equals(this.election)
				? LeaderElectionProperties.PREFIX + ".mode"
				: LeaderElectionProperties.PREFIX + ".elections." + this.election + ".mode";
		return "Set POD_NAME from the downward API and grant the service account 'get' on 'pods' (see "
				+ "docs/operations.md, RBAC for for-life), or set '" + property + "' to 'lease'.";
	}

}
