package io.leaderelection.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import io.leaderelection.kubernetes.LeaseLabels;
import io.leaderelection.store.MembershipStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a run of balanced shards needs from the {@link ChaosApiServer}: the members of a
 * balanced group follow each other's member Leases with an informer, which lists by label and
 * then watches by label, and lists again once its watch ends (after an API server restart). The
 * server must serve both, tell only of the labelled Leases, and the run must tell the member
 * Leases from the shards' ({@link ChaosRun} keeps the history to the shards' Leases, and every
 * fault that deletes or edits Leases names the shards' alone).
 */
class ChaosApiServerMemberLeasesTests {

	private static final ChaosSettings SHARDS = ChaosSettings.balancedShards(1, 2, 4, 0, Duration.ZERO);

	private static final String GROUP = "chaos-shards";

	private static final Duration RECORD_TIMEOUT = Duration.ofSeconds(2);

	private final ChaosApiServer server = ChaosApiServer.start();

	private final LeaderElectionThreads threads = new LeaderElectionThreads();

	private final KubernetesClient tool = this.server.client("tool");

	@AfterEach
	void close() throws InterruptedException {
		this.tool.close();
		this.threads.close();
		this.server.close();
	}

	@Test
	void shardsOfTheRunAreOnLeasesNamedAfterThemInOneBalancedGroup() {
		List<ElectionSettings> shards = SHARDS.electionSettings();
		assertThat(shards).extracting(ElectionSettings::name)
			.containsExactly("shards-0-of-4", "shards-1-of-4", "shards-2-of-4", "shards-3-of-4");
		assertThat(shards).extracting(ElectionSettings::leaseName)
			.containsExactly("chaos-shards-0-of-4", "chaos-shards-1-of-4", "chaos-shards-2-of-4",
					"chaos-shards-3-of-4");
		assertThat(shards).extracting(ElectionSettings::balanceGroup).containsOnly(GROUP);
		assertThat(SHARDS.electionNames()).extracting(SHARDS::leaseName)
			.containsExactlyElementsOf(shards.stream().map(ElectionSettings::leaseName).toList());
	}

	@Test
	void listsAndWatchesByLabelOnlyTheMemberLeasesAlsoAcrossARestart() {
		this.tool.leases().resource(lease("chaos-shards-0-of-4", Map.of(LeaseLabels.SHARD_OF, GROUP))).create();
		this.tool.leases().resource(lease("unlabelled", Map.of())).create();
		Map<String, String> seen = new ConcurrentHashMap<>();
		Set<String> everSeen = ConcurrentHashMap.newKeySet();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		try (KubernetesClient aClient = this.server.client("a"); KubernetesClient bClient = this.server.client("b");
				KubernetesLeaseStores aStores = new KubernetesLeaseStores(aClient, this.threads.blockingCalls(),
						this.threads.requests());
				KubernetesLeaseStores bStores = new KubernetesLeaseStores(bClient, this.threads.blockingCalls(),
						this.threads.requests())) {
			MembershipStore a = aStores.membership(ChaosSettings.NAMESPACE);
			MembershipStore b = bStores.membership(ChaosSettings.NAMESPACE);
			a.renew(GROUP, "a", RECORD_TIMEOUT).join();
			MembershipStore.Following following = b.follow(GROUP, (members) -> {
				seen.clear();
				seen.putAll(members);
				everSeen.addAll(members.keySet());
			}, failure::set);
			try {
				await().atMost(Duration.ofSeconds(5)).until(() -> seen.keySet().equals(Set.of("a")));
				assertThat(this.tool.leases()
					.inNamespace(ChaosSettings.NAMESPACE)
					.withLabel(LeaseLabels.MEMBER_OF, GROUP)
					.list()
					.getItems()).extracting((lease) -> lease.getSpec().getHolderIdentity()).containsExactly("a");

				b.renew(GROUP, "b", RECORD_TIMEOUT).join();
				await().atMost(Duration.ofSeconds(5)).until(() -> seen.keySet().equals(Set.of("a", "b")));
				String before = seen.get("a");
				a.renew(GROUP, "a", RECORD_TIMEOUT).join();
				await().atMost(Duration.ofSeconds(5))
					.until(() -> seen.containsKey("a") && !seen.get("a").equals(before));

				// writes to Leases without the label are not told: their holders never show as members
				for (String other : List.of("unlabelled", "chaos-shards-0-of-4")) {
					this.tool.leases().inNamespace(ChaosSettings.NAMESPACE).withName(other).edit((lease) -> {
						lease.getSpec().setHolderIdentity("someone-else");
						return lease;
					});
				}

				this.server.stop();
				this.server.restart();
				String afterRestart = seen.get("b");
				await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
					b.renew(GROUP, "b", RECORD_TIMEOUT).exceptionally((ignored) -> null).join();
					return seen.containsKey("b") && !seen.get("b").equals(afterRestart);
				});
				a.leave(GROUP, "a", RECORD_TIMEOUT).join();
				await().atMost(Duration.ofSeconds(5)).until(() -> seen.keySet().equals(Set.of("b")));
			}
			finally {
				following.close();
			}
		}
		assertThat(failure.get()).as("following failed").isNull();
		assertThat(everSeen).as("members ever seen").containsExactlyInAnyOrder("a", "b");
	}

	private static Lease lease(String name, Map<String, String> labels) {
		return new LeaseBuilder().withNewMetadata()
			.withName(name)
			.withNamespace(ChaosSettings.NAMESPACE)
			.withLabels(labels)
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity("someone")
			.endSpec()
			.build();
	}

}
