package io.leaderelection.chaos;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.leaderelection.engine.ElectionSettings;

/**
 * The shape of a chaos run. Timings are client-go's defaults (lease 15 s, renew deadline 10 s,
 * retry 2 s) divided by {@value #TIME_SCALE}, so that a run sees many transitions in little time.
 *
 * @param seed seeds the choice of every fault, its target and its duration
 * @param replicas how many replicas campaign
 * @param elections how many elections (each its own Lease) every replica campaigns in
 * @param transitions the run ends once this many leadership transitions happened and every kind
 * of fault of its mix was injected...
 * @param timeLimit ...or once it has run this long
 * @param balancedShards whether the elections are the shards of one election, spread over the
 * replicas by balancing ({@link ElectionSettings#shard}): {@link #SHARDED_ELECTION} split into
 * {@code elections} shards, each on its Lease, with the members' Leases of the balanced group on
 * the same API server
 * @param mixedFaultEvery {@code null} for faults one at a time, the run waiting for every election
 * to have a leader after each; otherwise, how often, on average, a fault is injected, whatever is
 * held and whoever leads (a user's cluster, {@link FaultMix#USERS_CLUSTER}): the run then goes on
 * for its time limit
 */
record ChaosSettings(long seed, int replicas, int elections, int transitions, Duration timeLimit,
		boolean balancedShards, Duration mixedFaultEvery) {

	static final String NAMESPACE = "chaos";

	/**
	 * The sharded election of a run of balanced shards, on the Lease {@code chaos-shards}: its
	 * shards are named {@code shards-INDEX-of-COUNT}, on the Leases
	 * {@code chaos-shards-INDEX-of-COUNT}, and its members' Leases are labelled
	 * {@code leaderelection.io/member-of=chaos-shards}.
	 */
	static final String SHARDED_ELECTION = "shards";

	/** How much faster than client-go's defaults the run's clocks tick. */
	static final int TIME_SCALE = 15;

	static final Duration LEASE_DURATION = Duration.ofSeconds(15).dividedBy(TIME_SCALE);

	static final Duration RENEW_DEADLINE = Duration.ofSeconds(10).dividedBy(TIME_SCALE);

	static final Duration RETRY_PERIOD = Duration.ofSeconds(2).dividedBy(TIME_SCALE);

	/**
	 * How long a release of our own accord waits for the leader work to end before it leaves
	 * the Lease to expire instead: shorter than the longest leader-only job, so that some drains
	 * run out.
	 */
	static final Duration DRAIN_TIMEOUT = Duration.ofMillis(400);

	/** How long the run waits, after a fault is healed, for every election to have a leader. */
	static final Duration RECOVERY_TIMEOUT = LEASE_DURATION.multipliedBy(10);

	/**
	 * For balanced shards, how many replicas may join beside the others
	 * ({@link FaultKind#REPLICA_JOINS}), each in a replica slot of its own, up to two at once.
	 */
	static final int SPARE_REPLICAS = 2;

	/** Elections of their own, each on its Lease, not balanced, faults one at a time. */
	ChaosSettings(long seed, int replicas, int elections, int transitions, Duration timeLimit) {
		this(seed, replicas, elections, transitions, timeLimit, false, null);
	}

	/** The given number of shards of one election, balanced over the replicas. */
	static ChaosSettings balancedShards(long seed, int replicas, int shards, int transitions, Duration timeLimit) {
		return new ChaosSettings(seed, replicas, shards, transitions, timeLimit, true, null);
	}

	/**
	 * A user's cluster: elections of their own, faults of {@link FaultMix#USERS_CLUSTER} injected
	 * at random moments, one every so often on average, for the given time.
	 */
	static ChaosSettings usersCluster(long seed, int replicas, int elections, Duration time, Duration faultEvery) {
		return new ChaosSettings(seed, replicas, elections, 0, time, false, faultEvery);
	}

	/** Whether faults come at random moments, held together, rather than one after another. */
	boolean mixed() {
		return this.mixedFaultEvery != null;
	}

	/** The replica slots left empty at the start, for replicas that join: none unless balanced shards. */
	int spareReplicas() {
		return this.balancedShards ? SPARE_REPLICAS : 0;
	}

	/**
	 * The election names: {@code e0}, {@code e1}, ...; for balanced shards, the shards' names,
	 * {@code shards-0-of-32}, {@code shards-1-of-32}, ...
	 */
	List<String> electionNames() {
		return electionSettings().stream().map(ElectionSettings::name).toList();
	}

	/** {@code chaos-ELECTION}: for a shard, the Lease {@link ElectionSettings#shard} names. */
	String leaseName(String election) {
		return "chaos-" + election;
	}

	List<ElectionSettings> electionSettings() {
		if (this.balancedShards) {
			ElectionSettings sharded = new ElectionSettings(SHARDED_ELECTION, NAMESPACE, leaseName(SHARDED_ELECTION),
					LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD)
				.renewingEvery(RETRY_PERIOD);
			List<ElectionSettings> shards = IntStream.range(0, this.elections)
				.mapToObj((index) -> sharded.shard(index, this.elections, true))
				.toList();
			for (ElectionSettings shard : shards) {
				// the run finds an election's Lease by its name: a shard's must be the one it is on
				if (!shard.leaseName().equals(leaseName(shard.name()))) {
					throw new IllegalStateException("Shard " + shard.name() + " is on Lease " + shard.leaseName());
				}
			}
			return shards;
		}
		return IntStream.range(0, this.elections)
			.mapToObj((index) -> "e" + index)
			.map((election) -> new ElectionSettings(election, NAMESPACE, leaseName(election), LEASE_DURATION,
					RENEW_DEADLINE, RETRY_PERIOD)
				.renewingEvery(RETRY_PERIOD))
			.toList();
	}

	/** A client default scaled like the election timings, e.g. fabric8's 10 s request timeout. */
	static Duration scaled(Duration clientDefault) {
		return clientDefault.dividedBy(TIME_SCALE);
	}

}
