package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader for life on the real control plane, with kube-controller-manager's garbage collector: the
 * lock is owned by its leader's Pod and collected with it, and a follower takes over through its
 * watch of the lock, not its poll, also when etcd was compacted past the lock's version and its API
 * server's watch cache begins after it.
 */
class ForLifeTests {

	/**
	 * A retry period far longer than a takeover through the watch takes, so that a follower that
	 * only polled would show: it reads the lock's owner once a retry period.
	 */
	private static final Duration RETRY_PERIOD = Duration.ofSeconds(10);

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final Terms terms = new Terms("default");

	private final List<EngineReplica> replicas = new ArrayList<>();

	private TestNamespace namespace;

	private TestNamespace.ServiceAccount account;

	private KubeletPods pods;

	private ApiServer secondServer;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("for-life");
		this.account = this.namespace.serviceAccount("elector", DocumentedRoles.rules(DocumentedRoles.FOR_LIFE));
		this.pods = new KubeletPods(this.controlPlane.admin(), this.namespace.name(), "elector");
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(EngineReplica::close);
		if (this.secondServer != null) {
			this.controlPlane.stopApiServer(this.secondServer);
		}
		this.namespace.close();
	}

	@Test
	void theLockIsCollectedWithItsPodAndAFollowerWhoseWatchCacheIsNewerThanTheLockTakesOverThroughItsWatch() {
		Pod first = this.pods.running("orders-a");
		this.pods.running("orders-b");
		EngineReplica leader = start("orders-a", this.controlPlane.apiServer());
		await().atMost(Duration.ofSeconds(20)).until(() -> leader.isLeader("default"));
		assertThat(lock().getMetadata().getOwnerReferences()).singleElement()
			.satisfies((owner) -> assertThat(owner.getUid()).isEqualTo(first.getMetadata().getUid()));

		// The lock is older than anything the API servers keep: etcd compacted past its version,
		// and an API server started since, whose watch cache begins later still. A watch from the
		// lock's version is answered 410 Gone.
		this.controlPlane.admin()
			.configMaps()
			.inNamespace(this.namespace.name())
			.resource(new ConfigMapBuilder().withNewMetadata().withName("written-after-the-lock").endMetadata().build())
			.create();
		this.controlPlane.etcd().compact();
		this.secondServer = this.controlPlane.startApiServer("kube-apiserver-2");
		this.namespace.alsoServedBy(this.secondServer);
		long mark = this.secondServer.auditLog().mark();
		EngineReplica follower = start("orders-b", this.secondServer);
		// the follower read the lock's owner once; the next look is a retry period away
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.namespace.requests(this.secondServer, mark)
				.stream()
				.anyMatch((request) -> request.verb().equals("get") && request.resource().equals("pods")
						&& request.name().equals("orders-a")));

		leader.kill();
		long removed = System.nanoTime();
		this.pods.endAndRemove("orders-a");
		await().atMost(RETRY_PERIOD.dividedBy(2)).until(() -> follower.isLeader("default"));
		System.out.printf("for life on the real control plane: the follower led %d ms after the leader's Pod "
				+ "was removed (the garbage collector deleted the lock)%n",
				Duration.ofNanos(this.terms.all().get(1).openedAt - removed).toMillis());

		Lease taken = lock();
		assertThat(taken.getSpec().getHolderIdentity()).isEqualTo("orders-b");
		assertThat(taken.getMetadata().getOwnerReferences()).singleElement()
			.satisfies((owner) -> assertThat(owner.getName()).isEqualTo("orders-b"));
		List<AuditLog.Request> followers = this.namespace.requests(this.secondServer, mark);
		assertThat(followers).as("the follower's watch of the lock, accepted (a WebSocket)")
			.anyMatch((request) -> request.verb().equals("watch") && isLock(request) && request.code() == 101);
		assertThat(followers).as("the follower's reads of the lock: its first look alone, no poll")
			.filteredOn((request) -> request.verb().equals("get") && isLock(request))
			.hasSize(1);
		this.terms.assertSafe();
		this.namespace.assertNothingRefused();
	}

	private EngineReplica start(String pod, ApiServer server) {
		ElectionSettings election = new ElectionSettings("default", this.namespace.name(), "orders-lock",
				RETRY_PERIOD.multipliedBy(3), RETRY_PERIOD.multipliedBy(2), RETRY_PERIOD)
			.forLife(new ElectionSettings.ForLife(pod, null));
		EngineReplica replica = EngineReplica.start(pod, this.account.config(server), List.of(election),
				this.terms.recorderFor(pod));
		this.replicas.add(replica);
		return replica;
	}

	private static boolean isLock(AuditLog.Request request) {
		return request.resource().equals("leases.coordination.k8s.io")
				&& (request.name().equals("orders-lock") || request.uri().contains("metadata.name%3Dorders-lock"));
	}

	private Lease lock() {
		return this.controlPlane.admin().leases().inNamespace(this.namespace.name()).withName("orders-lock").get();
	}

}
