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

	/**
	 * The election is sharded: it is led shard by shard, each shard an election of its own.
	 * @param shards the names of its shards
	 */
	public static UnknownElectionException sharded(String election, List<String> shards,
			Collection<String> configuredElections) {
		return new UnknownElectionException(election, configuredElections, "Leader election '" + election
				+ "' is sharded into " + shards.size() + ": ask owns(election, key) or ownedShards(election), "
				+ "or name one of its shards " + shards);
	}

	private UnknownElectionException(String election, Collection<String> configuredElections, String message) {
		super(message);
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
