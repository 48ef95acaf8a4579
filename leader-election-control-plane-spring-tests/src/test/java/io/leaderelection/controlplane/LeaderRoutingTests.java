package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.leaderelection.controlplane.MigrationRoutingReplica.RETRY_PERIOD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader-only routing (docs/routing.md) on the real control plane: three replicas, each a Spring
 * context of the starter as a ServiceAccount bound to the Roles of docs/operations.md and
 * docs/routing.md, each in a Pod the test keeps as a kubelet would, with an address of the Pod
 * network the API server accepts in an EndpointSlice (10.244.0.x). The leader's EndpointSlice of a
 * Service without selector is accepted by the server's validation, names the leader alone through
 * a handover and, once the Service is deleted (kube-controller-manager's garbage collector
 * deleting the slice with it) and created again with a new uid, is written back by the leader,
 * owned by the new Service, within a retry period. Every version of the slice is recorded from a
 * watch; none may name two addresses, and no request may be refused.
 */
class LeaderRoutingTests {

	private static final String SERVICE = "orders-leader";

	private static final String LABEL = "leaderelection.io/default";

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final Terms terms = new Terms("default");

	private final List<MigrationRoutingReplica> replicas = new CopyOnWriteArrayList<>();

	private final Map<String, String> addresses = new LinkedHashMap<>();

	/** Every version of the slice as the API server's watch delivered it, with when it arrived. */
	private final List<SliceVersion> versions = new CopyOnWriteArrayList<>();

	private final List<String> report = new ArrayList<>();

	private TestNamespace namespace;

	private TestNamespace.ServiceAccount account;

	private KubeletPods pods;

	private Watch sliceWatch;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("routing");
		this.account = this.namespace.serviceAccount("orders",
				DocumentedRoles.rules(DocumentedRoles.LEASES, DocumentedRoles.ROUTING));
		this.pods = new KubeletPods(this.controlPlane.admin(), this.namespace.name(), "orders");
		this.sliceWatch = this.controlPlane.admin()
			.discovery()
			.v1()
			.endpointSlices()
			.inNamespace(this.namespace.name())
			.watch(new Watcher<>() {
				@Override
				public void eventReceived(Action action, EndpointSlice slice) {
					LeaderRoutingTests.this.versions.add(new SliceVersion(System.nanoTime(), action, slice));
				}

				@Override
				public void onClose(WatcherException cause) {
				}
			});
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(MigrationRoutingReplica::close);
		this.sliceWatch.close();
		System.out.printf("Leader-only routing on the real control plane (%s):%n  %s%n  slice versions:%n    %s%n",
				this.namespace.name(), String.join("\n  ", this.report),
				String.join("\n    ", this.versions.stream().map(SliceVersion::toString).toList()));
		this.namespace.close();
	}

	@Test
	void theSliceNamesTheLeaderAloneThroughAHandoverAndIsWrittenBackForANewService() {
		String firstUid = createService();
		for (int i = 1; i <= 3; i++) {
			start("orders-" + i, "10.244.0." + (10 + i));
		}
		MigrationRoutingReplica leader = awaitLeaderOtherThan(null);
		awaitRoute(leader, firstUid);
		EndpointSlice slice = slice();
		assertThat(slice.getMetadata().getLabels()).containsEntry("kubernetes.io/service-name", SERVICE)
			.containsEntry("endpointslice.kubernetes.io/managed-by", "leaderelection.io");
		assertThat(slice.getAddressType()).isEqualTo("IPv4");
		assertThat(slice.getEndpoints()).singleElement().satisfies((endpoint) -> {
			assertThat(endpoint.getTargetRef().getName()).isEqualTo(leader.name());
			assertThat(endpoint.getConditions().getReady()).isTrue();
		});
		assertThat(slice.getPorts()).singleElement().satisfies((port) -> {
			assertThat(port.getName()).isEqualTo("http");
			assertThat(port.getPort()).isEqualTo(8080);
		});

		// a handover by step-down: the slice is emptied, then names the successor alone
		leader.elector().stepDown("default");
		MigrationRoutingReplica successor = awaitLeaderOtherThan(leader);
		awaitRoute(successor, firstUid);
		Terms.Term stepDownTerm = this.terms.all().get(this.terms.count() - 2);
		this.report.add(String.format("step-down %s -> %s: the slice no longer named %s %.0f ms after its gate closed, "
				+ "and named %s %.0f ms after its gate opened", leader.name(), successor.name(), leader.name(),
				millis(firstVersionAfter(stepDownTerm.closedAt, (version) -> !version.names(address(leader)))
						- stepDownTerm.closedAt),
				successor.name(), millis(firstVersionAfter(stepDownTerm.closedAt,
						(version) -> version.namesOnly(address(successor))) - lastTermOpenedAt())));

		// the Service deleted: the garbage collector deletes the slice it owns, and the leader writes
		// none while the Service is missing
		long deletedAt = System.nanoTime();
		this.controlPlane.admin().services().inNamespace(this.namespace.name()).withName(SERVICE).delete();
		await().atMost(TIMEOUT).until(() -> slice() == null);
		long collected = firstVersionAfter(deletedAt, (version) -> version.action == Watcher.Action.DELETED);
		this.report.add(String.format("Service deleted: the garbage collector deleted the slice %.0f ms later",
				millis(collected - deletedAt)));
		await().during(RETRY_PERIOD.multipliedBy(4)).atMost(TIMEOUT).until(() -> slice() == null);

		// created again, with a new uid: the leader writes the slice back, owned by the new Service
		long createdAt = System.nanoTime();
		String secondUid = createService();
		assertThat(secondUid).isNotEqualTo(firstUid);
		awaitRoute(successor, secondUid);
		long rewritten = firstVersionAfter(createdAt, (version) -> version.action == Watcher.Action.ADDED);
		this.report.add(String.format("Service created again: the leader wrote the slice back %.0f ms later "
				+ "(retry period %d ms)", millis(rewritten - createdAt), RETRY_PERIOD.toMillis()));
		assertThat(Duration.ofNanos(rewritten - createdAt)).as("from the Service's creation to the slice written back")
			.isLessThan(RETRY_PERIOD.multipliedBy(2));

		// deleted and created again at once (a reinstall): the garbage collector and the leader race;
		// the slice ends owned by the newest Service, naming the leader, and stays so
		long replacedAt = System.nanoTime();
		this.controlPlane.admin().services().inNamespace(this.namespace.name()).withName(SERVICE).delete();
		String thirdUid = createService();
		awaitRoute(successor, thirdUid);
		this.report.add(String.format("Service replaced at once: the slice named the leader, owned by the new Service, "
				+ "%.0f ms later", millis(System.nanoTime() - replacedAt)));

		// kept as written: the leader reads the slice and the Service every retry period, and writes
		// nothing while the slice is as written
		long mark = this.controlPlane.apiServer().auditLog().mark();
		long keptSince = System.nanoTime();
		await().during(RETRY_PERIOD.multipliedBy(6)).atMost(TIMEOUT).untilAsserted(() -> assertRoute(successor, thirdUid));
		long kept = System.nanoTime() - keptSince;
		List<AuditLog.Request> keeping = this.namespace.requests(this.controlPlane.apiServer(), mark)
			.stream()
			.filter(AuditLog.Request::completed)
			.filter((request) -> request.resource().equals("endpointslices.discovery.k8s.io")
					|| request.resource().equals("services"))
			.toList();
		this.report.add(String.format("kept for %.0f ms: %d reads of the slice, %d of the Service, %d writes of the "
				+ "slice", millis(kept), count(keeping, "get", "endpointslices.discovery.k8s.io"),
				count(keeping, "get", "services"), keeping.stream().filter((request) -> !request.verb().equals("get")).count()));
		assertThat(keeping).as("writes of the slice while it is as written")
			.noneMatch((request) -> !request.verb().equals("get"));
		assertThat(count(keeping, "get", "endpointslices.discovery.k8s.io"))
			.as("reads of the slice in %.0f ms", millis(kept))
			.isBetween(2L, kept / RETRY_PERIOD.toNanos() + 2);

		// a graceful shutdown of the leader: the slice is emptied, then names the next leader alone
		successor.stop();
		MigrationRoutingReplica third = awaitLeaderOtherThan(successor);
		awaitRoute(third, thirdUid);
		Terms.Term shutdownTerm = this.terms.all().get(this.terms.count() - 2);
		this.report.add(String.format("shutdown %s -> %s: the slice no longer named %s %.0f ms after its gate closed, "
				+ "and named %s %.0f ms after its gate opened", successor.name(), third.name(), successor.name(),
				millis(firstVersionAfter(shutdownTerm.closedAt, (version) -> !version.names(address(successor)))
						- shutdownTerm.closedAt),
				third.name(), millis(firstVersionAfter(shutdownTerm.closedAt,
						(version) -> version.namesOnly(address(third))) - lastTermOpenedAt())));

		assertThat(this.versions).as("versions of the slice").allSatisfy((version) -> assertThat(version.addresses())
			.as("addresses of %s", version)
			.hasSizeLessThanOrEqualTo(1));
		// every version naming an address was written under a term of the replica of that address
		List<Terms.Term> all = this.terms.all();
		assertThat(this.versions).as("versions of the slice, against the terms %s", all)
			.filteredOn((version) -> version.action != Watcher.Action.DELETED && !version.addresses().isEmpty())
			.isNotEmpty()
			.allSatisfy((version) -> assertThat(all).anyMatch((term) -> version.token() == term.fencingToken
					&& version.addresses().equals(List.of(this.addresses.get(term.replica)))));
		this.terms.assertSafe();
		this.namespace.assertNothingRefused();
	}

	/**
	 * The addresses the starter refuses at start ({@code leader.election.routing.address}) are those
	 * the real API server refuses (422) in an EndpointSlice, and the other way round: each address is
	 * written in a slice of its own as the administrator, and given to a replica that starts (and
	 * stops at once) or fails naming the property. Strict IP validation included: the server refuses
	 * leading zeros, IPv4-mapped IPv6 and IPv6 not in its canonical form.
	 */
	@Test
	void theStarterRefusesAtStartTheAddressesTheServerRefusesInASlice() {
		createService();
		List<String> refusedByServer = new ArrayList<>();
		List<String> refusedByStarter = new ArrayList<>();
		List<String> addresses = List.of("10.244.0.7", "192.0.2.1", "224.0.1.1", "2001:db8::1", "fd00:10:244::17",
				"1::", "::2", "127.0.0.1", "127.8.9.10", "169.254.10.1", "0.0.0.0", "224.0.0.251", "::1", "::",
				"fe80::1", "ff02::1", "ff12::1", "010.244.0.1", "::ffff:10.244.0.1", "2001:DB8:0::1", "2001:0db8::0001",
				"64:ff9b::192.0.2.1");
		for (int i = 0; i < addresses.size(); i++) {
			String address = addresses.get(i);
			if (!serverAccepts("probe-" + i, address)) {
				refusedByServer.add(address);
			}
			if (!starterAccepts("probe-" + i, address)) {
				refusedByStarter.add(address);
			}
		}
		this.report.add("refused by the API server in a slice: " + refusedByServer);
		this.report.add("refused by the starter at start:      " + refusedByStarter);
		assertThat(refusedByStarter).as("refused by the starter at start").isEqualTo(refusedByServer);
		assertThat(refusedByServer).as("refused by the server").doesNotContain("10.244.0.7", "192.0.2.1",
				"2001:db8::1");
		this.namespace.assertNothingRefused();
	}

	/** Whether the API server accepts a slice naming the address, written by the administrator. */
	private boolean serverAccepts(String name, String address) {
		EndpointSlice slice = new io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder().withNewMetadata()
			.withName(name)
			.endMetadata()
			.withAddressType(address.contains(":") ? "IPv6" : "IPv4")
			.addNewEndpoint()
			.withAddresses(address)
			.endEndpoint()
			.build();
		try {
			this.controlPlane.admin().discovery().v1().endpointSlices().inNamespace(this.namespace.name())
				.resource(slice)
				.create();
			return true;
		}
		catch (io.fabric8.kubernetes.client.KubernetesClientException ex) {
			assertThat(ex.getCode()).as("the server's answer to a slice naming %s: %s", address, ex.getMessage())
				.isEqualTo(422);
			return false;
		}
	}

	/** Whether a replica starts with the address to route to; it stops at once when it does. */
	private boolean starterAccepts(String name, String address) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.application.name", "probe");
		properties.put("leader.election.routing.service", SERVICE);
		properties.put("leader.election.routing.address", address);
		properties.put("leader.election.routing.ports.http", "8080");
		properties.put("leader.election.routing.pod-label", "false");
		try {
			MigrationRoutingReplica.start(name, this.namespace.name(), this.account.config(this.controlPlane.apiServer()),
					properties).stop();
			return true;
		}
		catch (RuntimeException ex) {
			Throwable cause = ex;
			while (cause.getCause() != null && !cause.getMessage().contains("leader.election.routing.address")) {
				cause = cause.getCause();
			}
			assertThat(cause.getMessage()).as("why the start with %s failed", address)
				.contains("leader.election.routing.address");
			return false;
		}
	}

	// ---- replicas

	private MigrationRoutingReplica start(String pod, String address) {
		this.pods.running(pod);
		this.addresses.put(pod, address);
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.application.name", "orders");
		properties.put("leader.election.routing.service", SERVICE);
		properties.put("leader.election.routing.address", address);
		properties.put("leader.election.routing.ports.http", "8080");
		MigrationRoutingReplica replica = MigrationRoutingReplica.start(pod, this.namespace.name(),
				this.account.config(this.controlPlane.apiServer()), properties, this.terms.recorderFor(pod));
		this.replicas.add(replica);
		return replica;
	}

	private String address(MigrationRoutingReplica replica) {
		return this.addresses.get(replica.name());
	}

	private MigrationRoutingReplica awaitLeaderOtherThan(MigrationRoutingReplica other) {
		await().atMost(TIMEOUT)
			.until(() -> this.replicas.stream().filter(MigrationRoutingReplica::isLeader).count() == 1
					&& this.replicas.stream().anyMatch((replica) -> replica != other && replica.isLeader()));
		return this.replicas.stream().filter(MigrationRoutingReplica::isLeader).findFirst().orElseThrow();
	}

	private long lastTermOpenedAt() {
		return this.terms.all().get(this.terms.count() - 1).openedAt;
	}

	// ---- the route

	private String createService() {
		Service service = this.controlPlane.admin()
			.services()
			.inNamespace(this.namespace.name())
			.resource(new ServiceBuilder().withNewMetadata()
				.withName(SERVICE)
				.endMetadata()
				.withNewSpec()
				.addNewPort()
				.withName("http")
				.withPort(80)
				.endPort()
				.endSpec()
				.build())
			.create();
		return service.getMetadata().getUid();
	}

	/** Waits until the slice names the leader alone, owned by the Service of the uid, and the Pods are labelled. */
	private void awaitRoute(MigrationRoutingReplica leader, String serviceUid) {
		await().atMost(TIMEOUT).untilAsserted(() -> assertRoute(leader, serviceUid));
	}

	private void assertRoute(MigrationRoutingReplica leader, String serviceUid) {
		EndpointSlice slice = slice();
		assertThat(slice).as("the slice").isNotNull();
		assertThat(addresses(slice)).as("addresses of the slice").containsExactly(address(leader));
		assertThat(slice.getMetadata().getOwnerReferences()).as("owners of the slice")
			.singleElement()
			.satisfies((owner) -> assertServiceOwner(owner, serviceUid));
		for (MigrationRoutingReplica replica : this.replicas) {
			if (!replica.hasEnded()) {
				assertThat(podLabel(replica.name())).as("label of %s", replica.name())
					.isEqualTo((replica == leader) ? "leader" : "follower");
			}
		}
	}

	private static void assertServiceOwner(OwnerReference owner, String uid) {
		assertThat(owner.getKind()).isEqualTo("Service");
		assertThat(owner.getApiVersion()).isEqualTo("v1");
		assertThat(owner.getName()).isEqualTo(SERVICE);
		assertThat(owner.getUid()).isEqualTo(uid);
	}

	private EndpointSlice slice() {
		return this.controlPlane.admin()
			.discovery()
			.v1()
			.endpointSlices()
			.inNamespace(this.namespace.name())
			.withName(SERVICE)
			.get();
	}

	private String podLabel(String pod) {
		Pod found = this.controlPlane.admin().pods().inNamespace(this.namespace.name()).withName(pod).get();
		Map<String, String> labels = found.getMetadata().getLabels();
		return (labels != null) ? labels.get(LABEL) : null;
	}

	private static List<String> addresses(EndpointSlice slice) {
		List<String> addresses = new ArrayList<>();
		if (slice.getEndpoints() != null) {
			for (Endpoint endpoint : slice.getEndpoints()) {
				addresses.addAll(endpoint.getAddresses());
			}
		}
		return addresses;
	}

	/** When the watch delivered the first version after the given instant that matches. */
	private long firstVersionAfter(long after, java.util.function.Predicate<SliceVersion> matching) {
		await().atMost(TIMEOUT)
			.until(() -> this.versions.stream().anyMatch((version) -> version.at > after && matching.test(version)));
		return this.versions.stream()
			.filter((version) -> version.at > after && matching.test(version))
			.findFirst()
			.orElseThrow().at;
	}

	private static long count(List<AuditLog.Request> requests, String verb, String resource) {
		return requests.stream()
			.filter((request) -> request.verb().equals(verb) && request.resource().equals(resource))
			.count();
	}

	private static double millis(long nanos) {
		return nanos / 1_000_000.0;
	}

	/** One version of the slice, as the watch delivered it at {@code at} ({@link System#nanoTime()}). */
	private record SliceVersion(long at, Watcher.Action action, EndpointSlice slice) {

		List<String> addresses() {
			return LeaderRoutingTests.addresses(this.slice);
		}

		long token() {
			Map<String, String> annotations = this.slice.getMetadata().getAnnotations();
			return Long.parseLong(annotations.get("leaderelection.io/fencing-token"));
		}

		boolean names(String address) {
			return this.action != Watcher.Action.DELETED && addresses().contains(address);
		}

		boolean namesOnly(String address) {
			return this.action != Watcher.Action.DELETED && addresses().equals(List.of(address));
		}

		@Override
		public String toString() {
			Map<String, String> annotations = this.slice.getMetadata().getAnnotations();
			List<OwnerReference> owners = this.slice.getMetadata().getOwnerReferences();
			return this.action + " v" + this.slice.getMetadata().getResourceVersion() + " " + addresses() + " token "
					+ ((annotations != null) ? annotations.get("leaderelection.io/fencing-token") : null) + " owner "
					+ ((owners != null) ? owners.stream().map(OwnerReference::getUid).toList() : List.of());
		}

	}

}
