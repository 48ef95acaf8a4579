package io.leaderelection.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the elector costs, counted at the API server and in the JVM: requests per renewal and
 * per follower attempt, and threads per number of elections.
 */
class FootprintIntegrationTests {

	private final CrudApiServer server = CrudApiServer.start();

	private final GateHistory history = new GateHistory();

	private NioReactor reactor;

	private final List<Replica> replicas = new ArrayList<>();

	@AfterEach
	void stopEverything() {
		this.replicas.forEach(Replica::close);
		if (this.reactor != null) {
			this.reactor.close();
		}
		this.server.close();
	}

	@Test
	void aRenewalIsOnePutAndAWatchingFollowerSendsNoMoreThanOneRead() throws Exception {
		this.reactor = new NioReactor();
		for (String name : List.of("r1", "r2", "r3")) {
			this.replicas.add(Replica.start(name, this.server, this.reactor, this.history, Map.of()));
		}
		await().atMost(Duration.ofSeconds(6)).until(() -> this.replicas.stream().filter(Replica::isLeader).count() == 1);
		String leader = this.replicas.stream().filter(Replica::isLeader).findFirst().orElseThrow().name();
		this.server.takeRequests();
		Map<String, Long> counts = new HashMap<>();
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			// Events, written once per change of leadership, are no part of renewing or following
			this.server.takeRequests()
				.stream()
				.filter((request) -> !request.contains("/events"))
				.forEach((request) -> counts.merge(request.substring(0, request.indexOf(" /")), 1L, Long::sum));
			return counts.getOrDefault(leader + " PUT", 0L) >= 40;
		});
		System.out.println("requests by client and method while " + leader + " renewed "
				+ counts.get(leader + " PUT") + " times: " + counts.entrySet()
					.stream()
					.sorted(Map.Entry.comparingByKey())
					.map((entry) -> entry.getKey() + "=" + entry.getValue())
					.collect(Collectors.joining(", ")));
		// The followers learn of renewals from their watches. A watch opens off the elector's
		// threads and the server registers it a moment after serving it, so a follower may miss
		// the first renewals and read the Lease once when it would have expired: one GET at most.
		assertThat(counts.keySet()).allMatch((key) -> key.equals(leader + " PUT") || key.endsWith(" GET"));
		for (Replica replica : this.replicas) {
			if (!replica.name().equals(leader)) {
				assertThat(counts.getOrDefault(replica.name() + " GET", 0L)).as("GETs of %s", replica)
					.isLessThanOrEqualTo(1);
			}
		}
	}

	@Test
	void aHundredElectionsRunOnAtMostSixThreads() throws Exception {
		this.reactor = new NioReactor();
		Map<String, Object> properties = new HashMap<>();
		// roomier deadlines than the replica's own: a hundred renewals on six threads, on a machine
		// whose cores other test JVMs keep busy, would miss 1.3 s ones and flap, and never all lead at once
		for (int i = 1; i <= 100; i++) {
			properties.put("leader.election.elections.e" + i + ".lease-duration", "6s");
			properties.put("leader.election.elections.e" + i + ".renew-deadline", "4s");
			properties.put("leader.election.elections.e" + i + ".retry-period", "250ms");
		}
		// other tests' contexts, cached in this JVM, have elector threads of their own
		Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
		Replica replica = Replica.start("solo", this.server, this.reactor, this.history, properties);
		this.replicas.add(replica);
		// the Leases are missing: each is claimed once unchanged for a lease duration (6s)
		await().atMost(Duration.ofSeconds(40))
			.until(() -> replica.elector().statuses().values().stream().allMatch((status) -> status.leader()));
		List<String> electorThreads = Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> !before.contains(thread))
			.map(Thread::getName)
			.filter((name) -> name.startsWith("leader-election"))
			.sorted()
			.toList();
		System.out.println("101 elections led by one replica; elector threads: " + electorThreads);
		assertThat(replica.elector().statuses()).hasSize(101);
		// Two scheduler threads, one event thread, one request sender (credential refreshes run on it,
		// never on the scheduler), at most two watch openers.
		assertThat(electorThreads).hasSizeLessThanOrEqualTo(6);
	}

}
