package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.Shard;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.memory.InMemoryLeaseStores;
import io.leaderelection.store.LeaseStoreFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@code @LeaderOnly(value = "orders", key = ...)} on an election split into two shards, on two
 * replicas sharing Leases in memory: each call runs on the replica that leads its key's shard
 * and is skipped on the other, counted under the shard's name.
 */
class LeaderOnlyShardedElectionTests {

	private static final InMemoryLeaseStores leases = InMemoryLeaseStores.shared();

	/** Long enough for the first leader to wait a lease duration and the shards to spread. */
	private static final Duration SPREAD = Duration.ofSeconds(20);

	@AfterAll
	static void closeLeases() {
		leases.close();
	}

	@Test
	void aCallRunsOnlyOnTheReplicaLeadingTheShardOfItsKey() {
		String leaseName = Replicas.freshLeaseName();
		replica(leaseName, "a").run((a) -> replica(leaseName, "b").run((b) -> {
			LeaderElector onA = a.getBean(LeaderElector.class);
			LeaderElector onB = b.getBean(LeaderElector.class);
			// balanced: two replicas lead one shard each, and each has seen who leads the other
			await().atMost(SPREAD)
				.until(() -> onA.ownedShards("orders").size() == 1 && onB.ownedShards("orders").size() == 1
						&& seenAlike(onA, onB, "orders-0-of-2") && seenAlike(onA, onB, "orders-1-of-2"));
			for (String key : List.of(keyOfShard(0), keyOfShard(1))) {
				ApplicationContext owner = onA.owns("orders", key) ? a : b;
				ApplicationContext other = (owner == a) ? b : a;
				String shard = "orders-" + Shard.of(key, 2) + "-of-2";

				assertThat(owner.getBean(Orders.class).place(new Order(key))).isEqualTo("placed " + key);
				assertThat(other.getBean(Orders.class).place(new Order(key))).isNull();

				assertThat(owner.getBean(Orders.class).placed()).containsExactly(key);
				assertThat(other.getBean(Orders.class).placed()).doesNotContain(key);
				assertThat(counts(owner, shard)).containsExactly(1L, 0L);
				assertThat(counts(other, shard)).containsExactly(0L, 1L);
				assertThatExceptionOfType(NotLeaderException.class)
					.isThrownBy(() -> other.getBean(Orders.class).cancel(key))
					.satisfies((ex) -> {
						assertThat(ex.getElection()).isEqualTo(shard);
						assertThat(ex.getHolderIdentity()).isEqualTo(owner.getBean(LeaderElector.class).identity());
					});
			}
		}));
	}

	@Test
	void aKeyThatIsNullFailsTheCallNamingTheClassTheMethodAndTheExpression() {
		String leaseName = Replicas.freshLeaseName();
		replica(leaseName, "a").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThatIllegalArgumentException().isThrownBy(() -> context.getBean(Orders.class).place(new Order(null)))
				.withMessageContaining(Orders.class.getName() + ".place")
				.withMessageContaining("#order.id")
				.withMessageContaining("null");
			assertThat(context.getBean(Orders.class).placed()).isEmpty();
		});
	}

	private static boolean seenAlike(LeaderElector one, LeaderElector other, String shard) {
		String holder = one.status(shard).holderIdentity();
		return holder != null && holder.equals(other.status(shard).holderIdentity());
	}

	/** Executed and skipped calls of the shard. */
	private static List<Long> counts(ApplicationContext context, String shard) {
		LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
		return List.of(invocations.count(shard, Outcome.EXECUTED), invocations.count(shard, Outcome.SKIPPED));
	}

	/** The first key, in a fixed sequence, that belongs to the shard of two. */
	private static String keyOfShard(int shard) {
		for (int i = 0;; i++) {
			String key = "order-" + i;
			if (Shard.of(key, 2) == shard) {
				return key;
			}
		}
	}

	private static ApplicationContextRunner replica(String leaseName, String identity) {
		return new ApplicationContextRunner()
			.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
			.withBean(LeaseStoreFactory.class, leases::sharedView)
			.withBean(Orders.class)
			.withPropertyValues("leader.election.namespace=shards", "leader.election.lease-name=" + leaseName,
					"leader.election.identity=" + leaseName + "-" + identity, "leader.election.lease-duration=2s",
					"leader.election.renew-deadline=1s", "leader.election.retry-period=250ms",
					"leader.election.elections.orders.shards=2");
	}

	record Order(String id) {

	}

	static class Orders {

		private final List<String> placed = new CopyOnWriteArrayList<>();

		/** Not gated; read through the proxy, which has no state of its own. */
		public List<String> placed() {
			return this.placed;
		}

		@LeaderOnly(value = "orders", key = "#order.id")
		public String place(Order order) {
			this.placed.add(order.id());
			return "placed " + order.id();
		}

		@LeaderOnly(value = "orders", key = "#p0", throwIfNotLeader = true)
		public void cancel(String orderId) {
		}

	}

}
