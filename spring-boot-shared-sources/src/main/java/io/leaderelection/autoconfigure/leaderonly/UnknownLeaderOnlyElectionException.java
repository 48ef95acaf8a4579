package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;

import io.leaderelection.autoconfigure.LeaderElectionConfigurationException;

/**
 * A {@code @LeaderOnly} names an election that is not configured.
 */
public class UnknownLeaderOnlyElectionException extends LeaderElectionConfigurationException {

	private final String beanName;

	private final String election;

	private final List<String> configuredElections;

	public UnknownLeaderOnlyElectionException(String beanName, String election, List<String> configuredElections) {
		super("@LeaderOnly(\"" + election + "\") on bean '" + beanName + "' names an election that is not configured; "
				+ "configured elections: " + configuredElections);
		this.beanName = beanName;
		this.election = election;
		this.configuredElections = List.copyOf(configuredElections);
	}

	@Override
	public String description() {
		return String.format("@LeaderOnly(\"%s\") on bean '%s' names an election that is not configured. "
				+ "Configured elections: %s.", this.election, this.beanName, this.configuredElections);
	}

	@Override
	public String action() {
		return String.format("Configure the election with leader.election.elections.%s.* properties, or name one "
				+ "of %s in the annotation.", this.election, this.configuredElections);
	}

}
