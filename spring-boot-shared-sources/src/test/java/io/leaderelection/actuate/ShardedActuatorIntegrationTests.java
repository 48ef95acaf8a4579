package io.leaderelection.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The leader endpoint, health, info and metrics over HTTP show a sharded election's shards and the
 * balanced groups, on one standalone replica that leads every shard: the election {@code orders}
 * in four balanced shards, and the default and {@code billing} elections balanced together.
 */
class ShardedActuatorIntegrationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private static final String ELECTIONS_GROUP = "shop-leader" + LeaderStatus.ELECTIONS_GROUP_SUFFIX;

	@Test
	void everyViewShowsTheShardsLedAndTheGroups() {
		try (WebReplica replica = WebReplica.start("a", server.newClient(),
				Map.of("spring.application.name", "shop", "leader.election.mode", "standalone",
						"leader.election.balance", "true", "leader.election.elections.orders.shards", "4",
						"leader.election.elections.billing.lease-name", "bills"))) {
			JsonNode leader = replica.getJson("/actuator/leader");
			assertThat(leader.at("/shards/orders/count").asInt()).isEqualTo(4);
			assertThat(ints(leader.at("/shards/orders/owned"))).containsExactly(0, 1, 2, 3);
			assertThat(leader.at("/shards/orders/members").asInt()).isOne();
			JsonNode shard = leader.at("/elections/orders-2-of-4");
			assertThat(shard.at("/leader").asBoolean()).isTrue();
			assertThat(shard.at("/shard/election").asText()).isEqualTo("orders");
			assertThat(shard.at("/shard/index").asInt()).isEqualTo(2);
			assertThat(shard.at("/shard/count").asInt()).isEqualTo(4);
			String ordersGroup = shard.at("/group/name").asText();
			assertThat(ordersGroup).isNotBlank().isNotEqualTo(ELECTIONS_GROUP);
			assertThat(leader.at("/groups/" + ordersGroup + "/leases").asInt()).isEqualTo(4);
			assertThat(leader.at("/groups/" + ordersGroup + "/held").asInt()).isEqualTo(4);
			assertThat(leader.at("/groups/" + ordersGroup + "/members").asInt()).isOne();
			assertThat(leader.at("/elections/billing/group/name").asText()).isEqualTo(ELECTIONS_GROUP);
			assertThat(leader.at("/groups/" + ELECTIONS_GROUP + "/leases").asInt()).isEqualTo(2);
			assertThat(leader.at("/elections/default/shard").isValueNode()).isFalse();
			assertThat(leader.at("/elections").has("orders")).isFalse();

			JsonNode health = replica.getJson("/actuator/health/leaderElection");
			assertThat(health.at("/status").asText()).isEqualTo("UP");
			assertThat(health.at("/details/elections/orders-1-of-4/role").asText()).isEqualTo("leader");
			assertThat(health.at("/details/elections/orders-1-of-4/shard/index").asInt()).isEqualTo(1);
			assertThat(health.at("/details/elections/orders-1-of-4/group/name").asText()).isEqualTo(ordersGroup);
			assertThat(health.at("/details/elections/default/group/name").asText()).isEqualTo(ELECTIONS_GROUP);
			assertThat(health.at("/details/elections/default").has("shard")).isFalse();
			assertThat(health.at("/details/shards/orders/count").asInt()).isEqualTo(4);
			assertThat(ints(health.at("/details/shards/orders/owned"))).containsExactly(0, 1, 2, 3);

			JsonNode info = replica.getJson("/actuator/info");
			assertThat(ints(info.at("/leader/shards/orders"))).containsExactly(0, 1, 2, 3);
			assertThat(info.at("/leader/groups/" + ordersGroup).asInt()).isOne();
			assertThat(info.at("/leader/groups/" + ELECTIONS_GROUP).asInt()).isOne();
			assertThat(info.at("/leader/elections/orders-3-of-4/leader").asBoolean()).isTrue();

			assertThat(replica.get("/actuator/prometheus").getBody())
				.contains("leader_election_owned_shards{election=\"orders\"} 4.0")
				.contains("leader_election_group_members{group=\"" + ordersGroup + "\"} 1.0")
				.contains("leader_election_group_members{group=\"" + ELECTIONS_GROUP + "\"} 1.0")
				.contains("leader_election_leader{election=\"orders-0-of-4\"} 1.0")
				.contains("leader_election_transitions_total{election=\"orders-3-of-4\",event=\"granted\"} 1.0")
				.contains("leader_only_invocations_total{election=\"orders-1-of-4\",outcome=\"skipped\"} 0.0")
				.doesNotContain("leader_election_leader{election=\"orders\"}");
		}
	}

	private static List<Integer> ints(JsonNode array) {
		List<Integer> ints = new ArrayList<>();
		array.forEach((node) -> ints.add(node.asInt()));
		return ints;
	}

}
