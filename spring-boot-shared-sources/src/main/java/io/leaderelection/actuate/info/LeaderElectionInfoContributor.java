package io.leaderelection.actuate.info;

import java.util.LinkedHashMap;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.ShardedElections;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code leader} to {@code /actuator/info}: this replica's identity and, per election,
 * whether it leads and who holds the Lease; per sharded election, the indexes of the shards it
 * leads ({@code shards}), and per balanced group, how many replicas take part ({@code groups}).
 * {@code /actuator/leader} has the full status.
 */
public class LeaderElectionInfoContributor implements InfoContributor {

	private final LeaderElector elector;

	public LeaderElectionInfoContributor(LeaderElector elector) {
		this.elector = elector;
	}

	@Override
	public void contribute(Info.Builder builder) {
		Map<String, LeaderStatus> statuses = this.elector.statuses();
		Map<String, Object> elections = new LinkedHashMap<>();
		for (LeaderStatus status : statuses.values()) {
			Map<String, Object> election = new LinkedHashMap<>();
			election.put("leader", status.leader());
			election.put("holderIdentity", status.holderIdentity());
			election.put("namespace", status.namespace());
			election.put("leaseName", status.leaseName());
			elections.put(status.election(), election);
		}
		Map<String, Object> leader = new LinkedHashMap<>();
		leader.put("identity", this.elector.identity());
		leader.put("elections", elections);
		Map<String, Object> shards = new LinkedHashMap<>();
		ShardedElections.of(statuses).forEach((name, sharded) -> shards.put(name, sharded.owned()));
		if (!shards.isEmpty()) {
			leader.put("shards", shards);
		}
		Map<String, Object> groups = new LinkedHashMap<>();
		ShardedElections.groups(statuses).forEach((name, group) -> groups.put(name, group.members()));
		if (!groups.isEmpty()) {
			leader.put("groups", groups);
		}
		builder.withDetail("leader", leader);
	}

}
