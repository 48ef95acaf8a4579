package io.leaderelection.autoconfigure.shedlock;

import java.util.List;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.InvalidLeaderElectionPropertyException;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.ShardedElections;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;

/**
 * The election whose leader takes ShedLock's locks ({@value #PROPERTY}).
 *
 * @param name the election's name, as configured
 * @param sharded the election's shards, when it is sharded; {@code null} otherwise
 */
record LockElection(String name, ShardedElection sharded) {

	static final String PROPERTY = LeaderElectionProperties.PREFIX + ".shedlock.election";

	/**
	 * The election of the given name among the elector's.
	 * @throws InvalidLeaderElectionPropertyException naming {@value #PROPERTY}, when no such
	 * election is configured, or it runs for life
	 */
	static LockElection of(LeaderElector elector, String name) {
		Map<String, LeaderStatus> statuses = elector.statuses();
		List<String> configured = ShardedElections.electionNames(statuses);
		if (!configured.contains(name)) {
			throw new InvalidLeaderElectionPropertyException(PROPERTY, name,
					"must name a configured election, one of " + configured);
		}
		if (ShardedElections.runsForLife(statuses, name)) {
			throw new InvalidLeaderElectionPropertyException(PROPERTY, name,
					"must name an election in lease mode: election '" + name + "' runs for life, and its leader, "
							+ "never writing its Lease again, cannot record a lock under its term");
		}
		return new LockElection(name, ShardedElections.of(statuses).get(name));
	}

	/** The election, or the shard, whose leader takes the lock of the given name. */
	String electionOf(String lockName) {
		return (this.sharded != null) ? this.sharded.shardNameOf(lockName) : this.name;
	}

	/** The elections locks are taken in: the shards of a sharded election, else the election. */
	List<String> elections() {
		return (this.sharded != null) ? this.sharded.shardNames() : List.of(this.name);
	}

}
