package io.leaderelection.actuate.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.ShardedElections;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Leadership as the elector's gate tells it at every scrape. Works with any {@link LeaderElector}.
 * <ul>
 * <li>{@code leader.election.leader{election}}: 1 while this replica leads the election, else 0;
 * each shard of a sharded election is an election of its own, tagged with the shard's name;</li>
 * <li>{@code leader.election.owned.shards{election}}: how many shards of a sharded election this
 * replica leads;</li>
 * <li>{@code leader.election.group.members{group}}: how many replicas a balanced group of Leases is
 * spread over, this one included.</li>
 * </ul>
 */
public class LeadershipMetrics implements MeterBinder {

	private final LeaderElector elector;

	public LeadershipMetrics(LeaderElector elector) {
		this.elector = elector;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Map<String, LeaderStatus> statuses = this.elector.statuses();
		for (String election : statuses.keySet()) {
			Gauge.builder("leader.election.leader", this.elector, (elector) -> elector.isLeader(election) ? 1 : 0)
				.tag("election", election)
				.description("Whether this replica leads the election (1) or not (0)")
				.register(registry);
		}
		for (String sharded : ShardedElections.of(statuses).keySet()) {
			Gauge.builder("leader.election.owned.shards", this.elector, (elector) -> elector.ownedShards(sharded).size())
				.tag("election", sharded)
				.description("How many shards of the sharded election this replica leads")
				.register(registry);
		}
		Map<String, String> oneElectionPerGroup = new LinkedHashMap<>();
		statuses.values()
			.stream()
			.filter((status) -> status.group() != null)
			.forEach((status) -> oneElectionPerGroup.putIfAbsent(status.group().name(), status.election()));
		oneElectionPerGroup.forEach((group, election) -> Gauge
			// read through one election of the group: each tells the whole group's view
			.builder("leader.election.group.members", this.elector, (elector) -> members(elector, election))
			.tag("group", group)
			.description("How many replicas the group of Leases is spread over, this one included")
			.register(registry));
	}

	private static double members(LeaderElector elector, String election) {
		LeaderStatus.Group group = elector.status(election).group();
		return (group != null) ? group.members() : Double.NaN;
	}

}
