package io.leaderelection.autoconfigure;

import java.util.List;

import io.leaderelection.engine.ElectionSettings;

/**
 * The validated configuration of every election of this application instance.
 *
 * @param identity the candidate identity written as holderIdentity
 * @param elections the default election first, then the named ones
 * @param releaseOnShutdown whether held Leases are released when the context closes
 * @param onLost what happens when leadership is lost
 */
public record LeaderElectionSettings(String identity, List<ElectionSettings> elections, boolean releaseOnShutdown,
		LeaderElectionProperties.OnLost onLost) {

	public LeaderElectionSettings {
		elections = List.copyOf(elections);
	}

	/** The configured election names, the default election first. */
	public List<String> electionNames() {
		return this.elections.stream().map(ElectionSettings::name).toList();
	}

}
