package io.leaderelection.autoconfigure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;

/**
 * The sharded elections and balanced groups of a snapshot of an elector's statuses. An elector
 * knows each shard as an election of its own; this puts them back together under the name the
 * application configured and annotates with, for {@code @LeaderOnly}, the endpoint, health, info
 * and metrics.
 */
public final class ShardedElections {

	private ShardedElections() {
	}

	/** The sharded elections among the statuses, by name, in the order their shards come. */
	public static Map<String, ShardedElection> of(Map<String, LeaderStatus> statuses) {
		Map<String, List<LeaderStatus>> shards = new LinkedHashMap<>();
		for (LeaderStatus status : statuses.values()) {
			if (status.shard() != null) {
				shards.computeIfAbsent(status.shard().election(), (name) -> new ArrayList<>()).add(status);
			}
		}
		Map<String, ShardedElection> sharded = new LinkedHashMap<>();
		shards.forEach((name, ofElection) -> {
			ofElection.sort(Comparator.comparingInt((status) -> status.shard().index()));
			sharded.put(name, new ShardedElection(name, List.copyOf(ofElection)));
		});
		return sharded;
	}

	/**
	 * The names an application uses for its elections: the elections that are not shards and the
	 * sharded elections, in the order the statuses come.
	 */
	public static List<String> electionNames(Map<String, LeaderStatus> statuses) {
		return statuses.values()
			.stream()
			.map((status) -> (status.shard() != null) ? status.shard().election() : status.election())
			.distinct()
			.toList();
	}

	/**
	 * Whether the election, by the name the application uses, runs for life: its leader never
	 * renews its Lease, so nothing can be recorded under its term.
	 */
	public static boolean runsForLife(Map<String, LeaderStatus> statuses, String election) {
		ShardedElection sharded = of(statuses).get(election);
		LeaderStatus status = (sharded != null) ? sharded.shards().get(0) : statuses.get(election);
		return status != null && LeaderStatus.FOR_LIFE_MODE.equals(status.mode());
	}

	/** The balanced groups among the statuses, by name, in the order they first come. */
	public static Map<String, LeaderStatus.Group> groups(Map<String, LeaderStatus> statuses) {
		Map<String, LeaderStatus.Group> groups = new LinkedHashMap<>();
		for (LeaderStatus status : statuses.values()) {
			if (status.group() != null) {
				// every election of a group tells the same group, the first one seen will do
				groups.putIfAbsent(status.group().name(), status.group());
			}
		}
		return groups;
	}

	/**
	 * An election split into shards.
	 *
	 * @param name the election's name, as configured and named by {@code @LeaderOnly}
	 * @param shards the status of each shard, in the order of their index
	 */
	public record ShardedElection(String name, List<LeaderStatus> shards) {

		/** How many shards the election is split into. */
		public int count() {
			return this.shards.size();
		}

		/** The names of the shards, by which the elector knows them, in the order of their index. */
		public List<String> shardNames() {
			return this.shards.stream().map(LeaderStatus::election).toList();
		}

		/** The indexes of the shards this instance led when the statuses were taken, ascending. */
		public List<Integer> owned() {
			return this.shards.stream().filter(LeaderStatus::leader).map((status) -> status.shard().index()).toList();
		}

		/** The group the shards are spread over replicas in; {@code null} when they are not balanced. */
		public LeaderStatus.Group group() {
			return this.shards.isEmpty() ? null : this.shards.get(0).group();
		}

		/** The shard, among these, that the key belongs to, by {@link Shard#of(String, int)}. */
		public String shardNameOf(String key) {
			return this.shards.get(Shard.of(key, count())).election();
		}

	}

}
