package io.leaderelection.shards;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.memory.InMemoryLeaseStores;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseStoreFactory;
import io.leaderelection.store.MembershipStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Balanced shards on the in-memory Leases: replicas spread the shards of an election, at most one
 * apart, after start, a join and a kill; no shard is ever led by two at once.
 */
class BalancedShardsInMemoryTests {

	private static final int SHARDS = 12;

	private static final ElectionSettings ORDERS = new ElectionSettings("orders", "test", "app-orders",
			Duration.ofMillis(1500), Duration.ofMillis(1000), Duration.ofMillis(100));

	private final List<AutoCloseable> resources = new ArrayList<>();

	/** Per shard, who has its gate open now. */
	private final Map<String, Map<String, Boolean>> open = new ConcurrentHashMap<>();

	private final List<String> overlaps = new ArrayList<>();

	private final AtomicInteger grants = new AtomicInteger();

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
		// a replica that handed a shard over, and stays out of it, still learns who took it
		await().atMost(ORDERS.leaseDuration().multipliedBy(3)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
			for (ElectionEngine replica : replicas.values()) {
				for (int shard = 0; shard < SHARDS; shard++) {
					String name = "orders-" + shard + "-of-" + SHARDS;
					assertThat(replica.status(name).holderIdentity()).as("holder of %s seen by %s", name, replica.identity())
						.isEqualTo(leases.read("test", "app-orders-" + shard + "-of-" + SHARDS).holderIdentity());
				}
			}
		});

		ElectionEngine killed = replicas.remove("a");
		killed.stop(false).join();
		awaitSpread(replicas);
		synchronized (this.overlaps) {
			assertThat(this.overlaps).isEmpty();
		}
	}

	@Test
	void membersThatDisagreeAboutWhoIsLiveLeaveNoShardUnledAndNeverTwoHolders() {
		InMemoryLeaseStores leases = open(InMemoryLeaseStores.shared());
		// a sees no other member: it believes every shard is its share
		ElectionEngine a = engine("a", seeing(leases, (member) -> member.equals("a")));
		ElectionEngine b = engine("b", leases);
		ElectionEngine c = engine("c", leases);
		List.of(a, b, c).forEach(ElectionEngine::start);
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> assertThat(
				a.ownedShards("orders").size() + b.ownedShards("orders").size() + c.ownedShards("orders").size())
			.isEqualTo(SHARDS));
		c.stop(false).join();
		await().atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(a.ownedShards("orders").size() + b.ownedShards("orders").size())
				.isEqualTo(SHARDS));
		synchronized (this.overlaps) {
			assertThat(this.overlaps).isEmpty();
		}
	}

	@Test
	void aMemberThatRenewsItsRecordButNeverClaimsIsNoLongerWaitedForAndTheShardsSettle() throws Exception {
		InMemoryLeaseStores leases = open(InMemoryLeaseStores.shared());
		MembershipStore members = leases.membership("test");
		// renews its record every retry period, as a replica cut off from the shard Leases would
		ScheduledExecutorService ghost = Executors.newSingleThreadScheduledExecutor();
		this.resources.add(ghost::shutdownNow);
		ghost.scheduleAtFixedRate(() -> members.renew("app-orders", "ghost", Duration.ofSeconds(1)), 0, 100,
				TimeUnit.MILLISECONDS);
		Map<String, ElectionEngine> replicas = new LinkedHashMap<>();
		for (String name : List.of("a", "b", "c")) {
			replicas.put(name, engine(name, leases));
		}
		replicas.values().forEach(ElectionEngine::start);
		awaitSpread(replicas);
		int grants = this.grants.get();
		// settled: over two more lease durations, no shard changes hands
		await().pollDelay(ORDERS.leaseDuration().multipliedBy(2)).atMost(ORDERS.leaseDuration().multipliedBy(3))
			.untilAsserted(() -> assertThat(this.grants.get()).isEqualTo(grants));
		awaitSpread(replicas);
		assertThat(replicas.get("a").status("orders-0-of-12").group().members()).isEqualTo(3);
	}

	private static LeaseStoreFactory seeing(InMemoryLeaseStores leases, Predicate<String> visible) {
		return new LeaseStoreFactory() {

			@Override
			public LeaseStore create(ElectionSettings election) {
				return leases.create(election);
			}

			@Override
			public MembershipStore membership(String namespace) {
				MembershipStore all = leases.membership(namespace);
				return new MembershipStore() {

					@Override
					public String describe() {
						return all.describe();
					}

					@Override
					public CompletableFuture<Void> renew(String group, String member, Duration timeout) {
						return all.renew(group, member, timeout);
					}

					@Override
					public CompletableFuture<Void> leave(String group, String member, Duration timeout) {
						return all.leave(group, member, timeout);
					}

					@Override
					public Following follow(String group, Consumer<Map<String, String>> members,
							Consumer<Throwable> failed) {
						return all.follow(group, (seen) -> members.accept(seen.entrySet()
							.stream()
							.filter((member) -> visible.test(member.getKey()))
							.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue))), failed);
					}

				};
			}

		};
	}

	private void awaitSpread(Map<String, ElectionEngine> replicas) {
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
			List<Integer> held = replicas.values().stream().map((replica) -> replica.ownedShards("orders").size()).toList();
			assertThat(held.stream().mapToInt(Integer::intValue).sum()).as("shards held by %s", held).isEqualTo(SHARDS);
			assertThat(held.stream().mapToInt(Integer::intValue).max().getAsInt()
					- held.stream().mapToInt(Integer::intValue).min().getAsInt()).as("spread of %s", held).isLessThanOrEqualTo(1);
		});
	}

	private ElectionEngine engine(String identity, LeaseStoreFactory leases) {
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		ElectionListener gates = new ElectionListener() {

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				Map<String, Boolean> holders = BalancedShardsInMemoryTests.this.open.computeIfAbsent(election,
						(ignored) -> new ConcurrentHashMap<>());
				holders.put(identity, true);
				BalancedShardsInMemoryTests.this.grants.incrementAndGet();
				if (holders.size() > 1) {
					synchronized (BalancedShardsInMemoryTests.this.overlaps) {
						BalancedShardsInMemoryTests.this.overlaps.add(election + " held by " + holders.keySet());
					}
				}
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				BalancedShardsInMemoryTests.this.open.get(election).remove(identity);
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
