package io.leaderelection.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderElector;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three contexts of one application elect among themselves on Leases in memory, with the real
 * engine: one leads at a time, and when it goes another takes over with a higher fencing token.
 */
class InMemoryLeasesTests {

	@Test
	void threeReplicasElectOneLeaderAtATimeAndHandOverWithRisingTokens() {
		try (InMemoryLeases leases = new InMemoryLeases()) {
			List<ConfigurableApplicationContext> replicas = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				Gates gates = new Gates();
				replicas.add(new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
					.initializers(leases.replica(), (context) -> context.getBeanFactory().registerSingleton("gates", gates))
					.run());
			}
			ConfigurableApplicationContext first = awaitOneLeader(replicas);
			long firstToken = elector(first).status("default").fencingToken();
			first.close();                                    // releases its Leases on the way out
			replicas.remove(first);
			ConfigurableApplicationContext second = awaitOneLeader(replicas);
			assertThat(elector(second).status("default").fencingToken()).isGreaterThan(firstToken);
			second.close();
			replicas.remove(second);
			awaitOneLeader(replicas);
			replicas.forEach(ConfigurableApplicationContext::close);
		}
		List<long[]> terms = this.terms.stream().sorted(Comparator.comparingLong((long[] term) -> term[0])).toList();
		// three at least: a replica that misses its renew deadline, on a loaded machine, leads again later
		assertThat(terms).hasSizeGreaterThanOrEqualTo(3);
		for (int term = 1; term < terms.size(); term++) {
			assertThat(terms.get(term)[0]).as("term %d opens after term %d closed", term, term - 1)
				.isGreaterThan(terms.get(term - 1)[1]);
		}
	}

	/** Each term of every replica: when its gate opened and closed, on the JVM's monotonic clock. */
	private final List<long[]> terms = new CopyOnWriteArrayList<>();

	/** One replica's gates, as its engine tells them. */
	private final class Gates implements ElectionListener {

		private long[] current;

		@Override
		public void granted(String election, long fencingToken, long gateOpenedAt) {
			if (LeaderElector.DEFAULT_ELECTION.equals(election)) {
				this.current = new long[] { gateOpenedAt, Long.MAX_VALUE };
				InMemoryLeasesTests.this.terms.add(this.current);
			}
		}

		@Override
		public void revoked(String election, RevocationCause cause, long gateClosedAt) {
			if (LeaderElector.DEFAULT_ELECTION.equals(election)) {
				this.current[1] = gateClosedAt;
			}
		}

	}

	@Test
	void twoReplicasOnSharedLeases() {
		// docs/testing.md
		try (InMemoryLeases leases = new InMemoryLeases()) {
			ConfigurableApplicationContext one = new SpringApplicationBuilder(OrdersApplication.class)
				.web(WebApplicationType.NONE)
				.initializers(leases.replica())
				.run();
			ConfigurableApplicationContext two = new SpringApplicationBuilder(OrdersApplication.class)
				.web(WebApplicationType.NONE)
				.initializers(leases.replica())
				.run();
			// one of them leads within a lease duration (2 s); close it and the other takes over
			ConfigurableApplicationContext leader = awaitOneLeader(List.of(one, two));
			ConfigurableApplicationContext follower = (leader == one) ? two : one;
			leader.close();
			awaitOneLeader(List.of(follower));
			follower.close();
		}
	}

	@Test
	void replicasSpreadTheShardsOfASharedElectionAmongThem() {
		try (InMemoryLeases leases = new InMemoryLeases()) {
			List<ConfigurableApplicationContext> replicas = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				replicas.add(new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
					.properties("leader.election.elections.shipping.shards=4")
					.initializers(leases.replica())
					.run());
			}
			// the replicas find each other through the shared membership records: two shards each
			await().atMost(Duration.ofSeconds(20))
				.until(() -> replicas.stream().allMatch((replica) -> elector(replica).ownedShards("shipping").size() == 2));
			replicas.forEach(ConfigurableApplicationContext::close);
		}
	}

	private static ConfigurableApplicationContext awaitOneLeader(List<ConfigurableApplicationContext> replicas) {
		await().until(() -> replicas.stream().filter((replica) -> elector(replica).isLeader()).count() == 1);
		return replicas.stream().filter((replica) -> elector(replica).isLeader()).findFirst().orElseThrow();
	}

	private static LeaderElector elector(ConfigurableApplicationContext replica) {
		return replica.getBean(LeaderElector.class);
	}

}
