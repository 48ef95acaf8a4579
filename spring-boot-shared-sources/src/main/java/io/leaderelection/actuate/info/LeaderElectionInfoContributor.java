package io.leaderelection.actuate.info;

import java.util.LinkedHashMap;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code leader} to {@code /actuator/info}: this replica's identity and, per election,
 * whether it leads and who holds the Lease. {@code /actuator/leader} has the full status.
 */
public class LeaderElectionInfoContributor implements InfoContributor {

	private final LeaderElector elector;

	public LeaderElectionInfoContributor(LeaderElector elector) {
		this.elector = elector;
	}

	@Override
	public void contribute(Info.Builder builder) {
		Map<String, Object> elections = new LinkedHashMap<>();
		for (LeaderStatus status : this.elector.statuses().values()) {
			Map<String, Object> election = new LinkedHashMap<>();
			election.put("leader", status.leader());
			election.put("holderIdentity", status.holderIdentity());
			election.put("namespace", status.namespace());
			election.put("leaseName", status.leaseName());
			elections.put(status.election(), election);
		}
		builder.withDetail("leader", Map.of("identity", this.elector.identity(), "elections", elections));
	}

}
