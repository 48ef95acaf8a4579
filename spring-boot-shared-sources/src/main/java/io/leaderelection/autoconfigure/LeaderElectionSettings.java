package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.leaderelection.engine.ElectionSettings;

/**
 * The validated configuration of every election of this application instance.
 *
 * @param identity the candidate identity written as holderIdentity
 * @param elections the default election first, then the named ones, a sharded election as its
 * shards in the order of their index
 * @param releaseOnShutdown whether held Leases are released when the context closes
 * @param onLost what happens when leadership is lost
 */
public record LeaderElectionSettings(String identity, List<ElectionSettings> elections, boolean releaseOnShutdown,
		LeaderElectionProperties.OnLost onLost) {

	public LeaderElectionSettings {
		elections = List.copyOf(elections);
	}

	/**
	 * How long shutdown waits for leader work within Spring's shutdown phase timeout: the
	 * phase less the longest renew deadline, which bounds a release write, but at least half of it.
	 */
	public Duration drainTimeout(Duration shutdownPhase) {
		Duration longestRelease = this.elections.stream()
			.map(ElectionSettings::renewDeadline)
			.max(Duration::compareTo)
			.orElse(Duration.ZERO);
		Duration drainTimeout = shutdownPhase.minus(longestRelease);
		Duration half = shutdownPhase.dividedBy(2);
		return (drainTimeout.compareTo(half) < 0) ? half : drainTimeout;
	}

	/** The configured election names, the default election first. */
	public List<String> electionNames() {
		return this.elections.stream().map(ElectionSettings::name).toList();
	}

}
