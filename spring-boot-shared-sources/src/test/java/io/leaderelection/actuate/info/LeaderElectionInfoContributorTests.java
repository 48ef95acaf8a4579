package io.leaderelection.actuate.info;

import java.util.LinkedHashMap;
import java.util.Map;

import io.leaderelection.actuate.StaticLeaderElector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.info.Info;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LeaderElectionInfoContributor}.
 */
class LeaderElectionInfoContributorTests {

	@Test
	void contributesTheIdentityAndWhoLeadsEachElection() {
		Info.Builder builder = new Info.Builder();
		new LeaderElectionInfoContributor(new StaticLeaderElector()).contribute(builder);

		Map<String, Object> defaultElection = new LinkedHashMap<>();
		defaultElection.put("leader", true);
		defaultElection.put("holderIdentity", "me");
		defaultElection.put("namespace", "team-a");
		defaultElection.put("leaseName", "orders-leader");
		Map<String, Object> billing = new LinkedHashMap<>();
		billing.put("leader", false);
		billing.put("holderIdentity", "other");
		billing.put("namespace", "team-a");
		billing.put("leaseName", "orders-billing-leader");
		assertThat(builder.build().getDetails()).containsOnlyKeys("leader")
			.containsEntry("leader",
					Map.of("identity", "me", "elections", Map.of("default", defaultElection, "billing", billing)));
	}

}
