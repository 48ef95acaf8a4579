package io.leaderelection;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Takes part in every configured election on behalf of this application instance and tells
 * whether it currently leads each of them.
 * <p>
 * {@link #isLeader(String)} is the time-bounded gate: it is {@code true} only while the Lease
 * is held and the last successful renewal was sent less than a renew deadline ago, so it turns
 * {@code false} on time even when the API server stops answering.
 */
public interface LeaderElector {

	/** Name of the election configured by the top-level {@code leader.election.*} properties. */
	String DEFAULT_ELECTION = "default";

	/** The candidate identity this instance writes as the Lease's holderIdentity. */
	String identity();

	/** Whether this instance leads the default election right now. */
	default boolean isLeader() {
		return isLeader(DEFAULT_ELECTION);
	}

	/**
	 * Whether this instance leads the given election right now. A shard is an election of its
	 * own, named as {@link Shard#name()} tells; a sharded election is led shard by shard, so its
	 * own name is answered by {@link #owns} and {@link #ownedShards}, not here.
	 * @throws UnknownElectionException if no election of that name is configured, or it is sharded
	 */
	boolean isLeader(String election);

	/**
	 * Whether this instance leads the shard of the given election that the key belongs to, right
	 * now: the same time-bounded gate as {@link #isLeader(String)}, on that shard. For an election
	 * that is not sharded, whether this instance leads it.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	default boolean owns(String election, String key) {
		return isLeader(election);
	}

	/**
	 * The shard of the given election that the key belongs to, by {@link Shard#of(String, int)};
	 * {@code 0} for an election that is not sharded.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	default int shardOf(String election, String key) {
		status(election);
		return 0;
	}

	/**
	 * A snapshot of the shard of the given election that the key belongs to, e.g. for the fencing
	 * token of the term a call for that key runs under; for an election that is not sharded, its
	 * {@link #status(String)}.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	default LeaderStatus status(String election, String key) {
		return status(election);
	}

	/**
	 * The shards of the given election whose gates are open now; for an election that is not
	 * sharded, {@code {0}} while this instance leads it.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	default Set<Integer> ownedShards(String election) {
		return isLeader(election) ? Set.of(0) : Set.of();
	}

	/**
	 * A snapshot of the given election.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	LeaderStatus status(String election);

	/** A snapshot of every configured election, keyed by election name. */
	Map<String, LeaderStatus> statuses();

	/**
	 * The jobs of the given election that run at most once per window (ShedLock locks,
	 * {@code @LeaderOnly(atMostEvery)} methods), as this instance sees them; for a sharded
	 * election, those of every shard. None by default.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	default List<WindowStatus> windows(String election) {
		status(election);
		return List.of();
	}

	/**
	 * Gives up the election if this instance leads it, so that another replica takes over: the
	 * gate closes at once, gated lifecycle beans stop, and once the {@code @LeaderOnly} calls under
	 * way have ended the Lease is released; this instance then stays out of the election for one
	 * lease duration, or until another replica took over. Returns at once.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	void stepDown(String election);

	/**
	 * Steps down as {@link #stepDown(String)} does, waiting up to the given time for the release
	 * to be written, and tells how far it got.
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	default StepDown stepDown(String election, Duration wait) {
		boolean leader = isLeader(election);
		stepDown(election);
		return new StepDown(election, leader ? StepDown.Release.REQUESTED : StepDown.Release.NOT_LEADER, List.of(),
				null);
	}

}
