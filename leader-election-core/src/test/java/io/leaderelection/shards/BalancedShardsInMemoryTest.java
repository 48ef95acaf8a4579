package io.leaderelection.shards;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.engine.RevocationCause;
import io.leaderelection.memory.InMemoryLeaseStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Balanced shards on the in-memory Leases: replicas spread the shards of an election, at most one
 * apart, after start, a join and a kill; no shard is ever led by two at once.
 */
class BalancedShardsInMemoryTest {

	private static final int SHARDS = 12;

	private static final ElectionSettings ORDERS = new ElectionSettings("orders", "test", "app-orders",
			Duration.ofMillis(1500), Duration.ofMillis(1000), Duration.ofMillis(100));

	private final List<AutoCloseable> resources = new ArrayList<>();

	/** Per shard, who has its gate open now. */
	private final Map<String, Map<String, Boolean>> open = new ConcurrentHashMap<>();

	private final List<String> overlaps = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int last = this.resources.size() - 1; last >= 0; last--) {
			this.resources.get(last).close();
		}
	}

	@Test
	void replicasSpreadTheShardsAfterStartAJoinAndAKill() {
		InMemoryLeaseStores leases = open(InMemoryLeaseStores.shared());
		Map<String, ElectionEngine> replicas = new LinkedHashMap<>();
		for (String name : List.of("a", "b", "c")) {
			replicas.put(name, engine(name, leases));
		}
		replicas.values().forEach(ElectionEngine::start);
		awaitSpread(replicas);

		ElectionEngine d = engine("d", leases);
		replicas.put("d", d);
		d.start();
		awaitSpread(replicas);

		ElectionEngine killed = replicas.remove("a");
		killed.stop(false).join();
		awaitSpread(replicas);
		synchronized (this.overlaps) {
			assertThat(this.overlaps).isEmpty();
		}
	}

	private void awaitSpread(Map<String, ElectionEngine> replicas) {
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
			List<Integer> held = replicas.values().stream().map((replica) -> replica.ownedShards("orders").size()).toList();
			assertThat(held.stream().mapToInt(Integer::intValue).sum()).as("shards held by %s", held).isEqualTo(SHARDS);
			assertThat(held.stream().mapToInt(Integer::intValue).max().getAsInt()
					- held.stream().mapToInt(Integer::intValue).min().getAsInt()).as("spread of %s", held).isLessThanOrEqualTo(1);
		});
	}

	private ElectionEngine engine(String identity, InMemoryLeaseStores leases) {
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		ElectionListener gates = new ElectionListener() {

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				Map<String, Boolean> holders = BalancedShardsInMemoryTest.this.open.computeIfAbsent(election,
						(ignored) -> new ConcurrentHashMap<>());
				holders.put(identity, true);
				if (holders.size() > 1) {
					synchronized (BalancedShardsInMemoryTest.this.overlaps) {
						BalancedShardsInMemoryTest.this.overlaps.add(election + " held by " + holders.keySet());
					}
				}
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				BalancedShardsInMemoryTest.this.open.get(election).remove(identity);
			}

		};
		List<ElectionSettings> shards = IntStream.range(0, SHARDS).mapToObj((index) -> ORDERS.shard(index, SHARDS, true)).toList();
		ElectionEngine engine = new ElectionEngine(identity, shards, leases, threads.runtime(), List.of(gates));
		this.resources.add(() -> engine.stop(false).join());
		return engine;
	}

	private <T extends AutoCloseable> T open(T resource) {
		this.resources.add(resource);
		return resource;
	}

}
