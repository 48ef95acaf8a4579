package io.leaderelection;

import java.util.Collection;
import java.util.List;

/** Thrown when an election is asked for by a name that is not configured. */
public class UnknownElectionException extends IllegalArgumentException {

	private final String election;

	private final List<String> configuredElections;

	public UnknownElectionException(String election, Collection<String> configuredElections) {
		super("No leader election named '" + election + "' is configured; configured elections: "
				+ List.copyOf(configuredElections));
		this.election = election;
		this.configuredElections = List.copyOf(configuredElections);
	}

	public String getElection() {
		return this.election;
	}

	public List<String> getConfiguredElections() {
		return this.configuredElections;
	}

}
