package io.leaderelection.kubernetes;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LeaderRoute} against fabric8's {@link KubernetesMockServer} in CRUD mode, which stores
 * EndpointSlices and Pods, bumps resourceVersion and answers a write at a stale version with 409.
 * Each replica's route has its own store and client, as in separate processes.
 */
class LeaderRouteCrudTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final String NS = "routes";

	private static final String SERVICE = "orders-leader";

	/** A renew deadline of 5 s, each write's timeout, and a retry period of 200 ms. */
	private static final ElectionSettings ELECTION = new ElectionSettings("default", NS, "orders-leader-lease",
			Duration.ofSeconds(8), Duration.ofSeconds(5), Duration.ofMillis(200));

	/** A retry period of a minute: nothing is tried or looked at again within a test. */
	private static final ElectionSettings SLOW = new ElectionSettings("default", NS, "orders-leader-lease",
			Duration.ofMinutes(3), Duration.ofMinutes(2), Duration.ofMinutes(1));

	/**
	 * A retry period of 3 s, long beside the requests of a test on a loaded machine, so that
	 * "within a retry period" is told apart from "within a few".
	 */
	private static final ElectionSettings KEPT = new ElectionSettings("default", NS, "orders-leader-lease",
			Duration.ofSeconds(12), Duration.ofSeconds(8), Duration.ofSeconds(3));

	/** What the requests of a write take beyond the retry period it waits, on a loaded machine. */
	private static final Duration REQUESTS = Duration.ofSeconds(1);

	private KubernetesMockServer server;

	private UnansweredSliceWrites dispatcher;

	/** The test's own reads and writes: kubectl, another tool. */
	private KubernetesClient other;

	private final List<KubernetesLeaseStores> stores = new ArrayList<>();

	private final List<LeaderRoute> routes = new ArrayList<>();

	@BeforeEach
	void startServer() {
		this.dispatcher = new UnansweredSliceWrites();
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), this.dispatcher,
				false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.other = this.server.createClient();
		createService();
	}

	@AfterEach
	void stopServer() {
		this.routes.forEach(LeaderRoute::close);
		this.stores.forEach(KubernetesLeaseStores::close);
		this.other.close();
		this.server.destroy();
	}

	@Test
	void aLeaderWritesASliceNamingItselfAloneUnderItsTerm() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080, "admin", 9090), "pod-a");

		done(route.lead(41));

		EndpointSlice slice = slice();
		assertThat(slice.getMetadata().getLabels()).containsEntry("kubernetes.io/service-name", SERVICE)
			.containsEntry("endpointslice.kubernetes.io/managed-by", "leaderelection.io");
		assertThat(slice.getMetadata().getAnnotations()).containsEntry("leaderelection.io/fencing-token", "41")
			.containsEntry("leaderelection.io/holder", "pod-a_1");
		assertThat(slice.getAddressType()).isEqualTo("IPv4");
		assertThat(slice.getEndpoints()).singleElement().satisfies((endpoint) -> {
			assertThat(endpoint.getAddresses()).containsExactly("10.0.0.1");
			assertThat(endpoint.getConditions().getReady()).isTrue();
			assertThat(endpoint.getTargetRef().getKind()).isEqualTo("Pod");
			assertThat(endpoint.getTargetRef().getName()).isEqualTo("pod-a");
		});
		assertThat(slice.getPorts()).extracting((port) -> port.getName() + "=" + port.getPort() + "/" + port.getProtocol())
			.containsExactly("admin=9090/TCP", "http=8080/TCP");
		assertThat(slice.getMetadata().getOwnerReferences()).singleElement().satisfies((owner) -> {
			assertThat(owner.getApiVersion() + " " + owner.getKind() + " " + owner.getName())
				.isEqualTo("v1 Service " + SERVICE);
			assertThat(owner.getUid()).isEqualTo(service().getMetadata().getUid()).isNotBlank();
		});
	}

	/**
	 * The garbage collector, or anyone, deletes the slice during a term: the leader, looking at it
	 * every retry period, writes it again within one, under the same term.
	 */
	@Test
	void aSliceDeletedDuringTheTermIsWrittenAgainWithinARetryPeriod() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null, KEPT);
		done(route.lead(41));

		long deleted = System.nanoTime();
		this.other.discovery().v1().endpointSlices().inNamespace(NS).withName(SERVICE).delete();

		await().atMost(KEPT.retryPeriod().plus(REQUESTS))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> slice() != null && addresses(slice()).equals(List.of("10.0.0.1")));
		assertThat(Duration.ofNanos(System.nanoTime() - deleted)).isLessThan(KEPT.retryPeriod().plus(REQUESTS));
		assertThat(slice().getMetadata().getAnnotations()).containsEntry("leaderelection.io/fencing-token", "41");
		assertThat(slice().getMetadata().getOwnerReferences()).singleElement()
			.satisfies((owner) -> assertThat(owner.getUid()).isEqualTo(service().getMetadata().getUid()));
	}

	/**
	 * A Helm reinstall: the Service is deleted and created again, another object with another uid.
	 * The slice still names the former one as owner, which the garbage collector counts as gone (the
	 * mock server has none); the leader writes it again owned by the Service there is now.
	 */
	@Test
	void aServiceCreatedAgainBecomesTheOwnerOfTheSliceWithinARetryPeriod() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null, KEPT);
		done(route.lead(41));
		String former = service().getMetadata().getUid();

		this.other.services().inNamespace(NS).withName(SERVICE).delete();
		await().atMost(TIMEOUT).until(() -> service() == null);
		createService();
		String recreated = service().getMetadata().getUid();
		assertThat(recreated).isNotEqualTo(former);

		await().atMost(KEPT.retryPeriod().plus(REQUESTS))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(slice().getMetadata().getOwnerReferences()).singleElement()
				.satisfies((owner) -> assertThat(owner.getUid()).isEqualTo(recreated)));
		assertThat(addresses(slice())).containsExactly("10.0.0.1");
		assertThat(slice().getMetadata().getAnnotations()).containsEntry("leaderelection.io/fencing-token", "41");
		assertThat(route.problem()).isNull();
	}

	/**
	 * While the Service is missing, the leader says so, writes no slice (it would have no owner),
	 * and tries again every retry period: the slice is written once the Service is there.
	 */
	@Test
	void aMissingServiceIsToldAndTheSliceWrittenOnceItExists() throws Exception {
		this.other.services().inNamespace(NS).withName(SERVICE).delete();
		await().atMost(TIMEOUT).until(() -> service() == null);
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);

		done(route.lead(41));
		assertThat(route.problem()).contains("Service routes/orders-leader: it does not exist")
			.contains("create it without a selector");
		assertThat(slice()).isNull();

		createService();
		await().atMost(TIMEOUT).untilAsserted(() -> {
			assertThat(route.problem()).isNull();
			assertThat(addresses(slice())).containsExactly("10.0.0.1");
			assertThat(slice().getMetadata().getOwnerReferences()).singleElement()
				.satisfies((owner) -> assertThat(owner.getUid()).isEqualTo(service().getMetadata().getUid()));
		});
	}

	/**
	 * While the slice is as written, keeping it costs two reads per retry period, the slice and
	 * its Service, from the API server's cache ({@code resourceVersion=0}), and no write.
	 */
	@Test
	void aKeptSliceCostsTwoCachedReadsEachRetryPeriodAndNoWrite() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);
		done(route.lead(41));
		String version = slice().getMetadata().getResourceVersion();
		takeRequests();
		this.dispatcher.reads();

		await().atMost(TIMEOUT).until(() -> this.dispatcher.cachedReads() >= 6);

		// taken before the test reads the slice itself
		List<String> reads = this.dispatcher.reads();
		assertThat(takeRequests()).isNotEmpty().containsOnly("GET");
		assertThat(slice().getMetadata().getResourceVersion()).isEqualTo(version);
		assertThat(reads).allSatisfy((path) -> assertThat(path).endsWith("?resourceVersion=0"))
			.anySatisfy((path) -> assertThat(path).contains("/endpointslices/" + SERVICE))
			.anySatisfy((path) -> assertThat(path).contains("/services/" + SERVICE));
	}

	/**
	 * Without the right to write EndpointSlices, or on OpenShift without the right its admission
	 * asks for a slice naming a Pod's address, the API server answers 403: the problem names both
	 * rules.
	 */
	@Test
	void aForbiddenWriteNamesTheRulesToGrant() throws Exception {
		this.dispatcher.failSliceWrites(403,
				"endpointslices.discovery.k8s.io orders-leader is forbidden: endpoint address 10.0.0.1 is not allowed");
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);

		done(route.lead(41));

		assertThat(route.problem()).contains("create EndpointSlice routes/orders-leader: 403")
			.contains("endpoint address 10.0.0.1 is not allowed")
			.contains("grant 'get', 'create' and 'update' on 'endpointslices' (API group discovery.k8s.io) in "
					+ "namespace 'routes'")
			.contains("on OpenShift also 'create' on 'endpointslices/restricted'");
	}

	@Test
	void aWithdrawalEmptiesTheSliceAndKeepsTheTermsToken() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);
		done(route.lead(41));

		done(route.follow());

		EndpointSlice slice = slice();
		assertThat(slice.getEndpoints()).isNullOrEmpty();
		assertThat(slice.getMetadata().getAnnotations()).containsEntry("leaderelection.io/fencing-token", "41");
		// an older term's late write finds the token and writes nothing
		LeaderRoute older = route("pod-b_1", "10.0.0.2", Map.of("http", 8080), null);
		done(older.lead(40));
		assertThat(slice().getEndpoints()).isNullOrEmpty();
		assertThat(slice().getMetadata().getResourceVersion()).isEqualTo(slice.getMetadata().getResourceVersion());
	}

	@Test
	void aDeposedLeadersWriteLeavesTheNewerTermsSlice() throws Exception {
		LeaderRoute deposed = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);
		LeaderRoute successor = route("pod-b_1", "10.0.0.2", Map.of("http", 8080), null);
		done(successor.lead(57));

		done(deposed.lead(41));

		assertThat(slice().getEndpoints()).singleElement()
			.satisfies((endpoint) -> assertThat(endpoint.getAddresses()).containsExactly("10.0.0.2"));
		assertThat(slice().getMetadata().getAnnotations()).containsEntry("leaderelection.io/fencing-token", "57");
	}

	/**
	 * The withdrawal replaces the version this replica wrote last, without reading first: after the
	 * successor wrote, that version is stale, the server answers 409, and the withdrawal reads the
	 * slice again, finds the successor's term and writes nothing.
	 */
	@Test
	void aWithdrawalAtAStaleVersionIsRefusedAndLeavesTheSuccessorsSlice() throws Exception {
		// a retry period of a minute: neither looks at the slice again within the test
		LeaderRoute former = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null, SLOW);
		LeaderRoute successor = route("pod-b_1", "10.0.0.2", Map.of("http", 8080), null, SLOW);
		done(former.lead(41));
		done(successor.lead(57));
		takeRequests();

		done(former.follow());

		// a replacement read again is one the server refused
		assertThat(takeRequests()).containsExactly("PUT", "GET");
		assertThat(slice().getEndpoints()).singleElement()
			.satisfies((endpoint) -> assertThat(endpoint.getAddresses()).containsExactly("10.0.0.2"));
	}

	/**
	 * A write may land after its writer gave up on it: the API server answered 504 (its own timeout,
	 * the write still on its way to etcd), or the answer was lost. Here the leader's write of its
	 * term is held, the term ends, and the withdrawal reads the slice before the write lands: the
	 * withdrawal stamps the slice with the term's token all the same, so that the write, landing
	 * later at the version it was based on, fails, and the slice does not name a former leader.
	 */
	@Test
	void aWriteOfTheTermLandingAfterItsWithdrawalIsRefused() throws Exception {
		LeaderRoute earlier = route("pod-b_1", "10.0.0.2", Map.of("http", 8080), null);
		done(earlier.lead(40));
		done(earlier.follow());
		// a retry period of a minute: the failed write is not tried again within the test
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null, SLOW);
		this.dispatcher.holdNextUpdate();
		done(route.lead(41));
		assertThat(route.problem()).contains("504");
		assertThat(addresses(slice())).isEmpty();

		done(route.follow());
		assertThat(this.dispatcher.landHeldUpdate()).isEqualTo(409);

		assertThat(addresses(slice())).isEmpty();
		assertThat(slice().getMetadata().getAnnotations()).containsEntry("leaderelection.io/fencing-token", "41");
	}

	/**
	 * Two replicas claim the slice at once, over and over, each time the newer term second or
	 * first: every version the server stores names at most one address, and the last one names
	 * the newer term's.
	 */
	@Test
	void racingLeadersNeverNameTwoAddressesAndTheNewerTermWins() throws Exception {
		List<EndpointSlice> versions = new CopyOnWriteArrayList<>();
		try (Watch watch = this.other.discovery().v1().endpointSlices().inNamespace(NS).watch(new Watcher<>() {
			@Override
			public void eventReceived(Action action, EndpointSlice slice) {
				versions.add(slice);
			}

			@Override
			public void onClose(WatcherException cause) {
			}
		})) {
			LeaderRoute a = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);
			LeaderRoute b = route("pod-b_1", "10.0.0.2", Map.of("http", 8080), null);
			long token = 100;
			for (int round = 0; round < 30; round++) {
				boolean aNewer = round % 2 == 0;
				long older = token++;
				long newer = token++;
				CompletableFuture<Void> first = a.lead(aNewer ? newer : older);
				CompletableFuture<Void> second = b.lead(aNewer ? older : newer);
				done(CompletableFuture.allOf(first, second));
				String winner = aNewer ? "10.0.0.1" : "10.0.0.2";
				int shown = round;
				// a write that got no answer in time is tried again
				await().atMost(TIMEOUT).untilAsserted(() -> {
					assertThat(addresses(slice())).as("round %d", shown).containsExactly(winner);
					assertThat(slice().getMetadata().getAnnotations())
						.containsEntry("leaderelection.io/fencing-token", Long.toString(newer));
				});
			}
			await().atMost(TIMEOUT).until(() -> !versions.isEmpty());
			assertThat(versions).allSatisfy((version) -> assertThat(addresses(version)).hasSizeLessThanOrEqualTo(1));
		}
	}

	@Test
	void aSliceOfTheSameNameWrittenByAnotherManagerIsLeftAlone() throws Exception {
		this.other.discovery()
			.v1()
			.endpointSlices()
			.inNamespace(NS)
			.resource(new EndpointSliceBuilder().withNewMetadata()
				.withName(SERVICE)
				.addToLabels("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io")
				.endMetadata()
				.withAddressType("IPv4")
				.addNewEndpoint()
				.withAddresses("10.9.9.9")
				.endEndpoint()
				.build())
			.create();
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);

		done(route.lead(41));

		assertThat(route.problem()).contains("EndpointSlice routes/orders-leader")
			.contains("managed by 'endpointslice-controller.k8s.io'");
		assertThat(addresses(slice())).containsExactly("10.9.9.9");
	}

	@Test
	void thePodIsLabelledLeaderThenFollowerKeepingItsOtherLabels() throws Exception {
		createPod("pod-a");
		LeaderRoute route = route("pod-a_1", null, null, "pod-a");

		done(route.lead(41));
		assertThat(podLabels("pod-a")).containsEntry("leaderelection.io/default", "leader")
			.containsEntry("app", "orders");

		done(route.follow());
		assertThat(podLabels("pod-a")).containsEntry("leaderelection.io/default", "follower")
			.containsEntry("app", "orders");
	}

	/**
	 * A write that fails is tried again every retry period while it is still wanted: here the
	 * Pod to label does not exist yet.
	 */
	@Test
	void aFailedWriteIsTriedAgainUntilItSucceeds() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), "pod-a");

		done(route.lead(41));
		assertThat(route.problem()).contains("label leaderelection.io/default of Pod routes/pod-a").contains("404");
		assertThat(addresses(slice())).containsExactly("10.0.0.1");

		createPod("pod-a");
		await().atMost(TIMEOUT).untilAsserted(() -> {
			assertThat(podLabels("pod-a")).containsEntry("leaderelection.io/default", "leader");
			assertThat(route.problem()).isNull();
		});
	}

	@Test
	void aWriteNoLongerWantedIsNotTriedAgain() throws Exception {
		LeaderRoute route = route("pod-a_1", null, null, "pod-a");
		done(route.lead(41));
		assertThat(route.problem()).contains("404");

		CompletableFuture<Void> followed = route.follow();
		createPod("pod-a");
		done(followed);
		assertThat(podLabels("pod-a")).containsEntry("leaderelection.io/default", "follower");
		// the lead's retries, had they gone on, would label it leader within a retry period
		await().during(ELECTION.retryPeriod().multipliedBy(3))
			.atMost(TIMEOUT)
			.until(() -> "follower".equals(podLabels("pod-a").get("leaderelection.io/default")));
	}

	/**
	 * A voluntary release waits for the withdrawal: what it waits for completes once the slice is
	 * emptied, failed writes being tried again meanwhile, not once the first attempt ended.
	 */
	@Test
	void aWithdrawalCompletesOnceWrittenNotOnceTried() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);
		done(route.lead(41));
		this.dispatcher.failSliceWrites(500, "etcd unavailable");

		CompletableFuture<Void> withdrawn = route.follow();
		await().atMost(TIMEOUT).until(() -> this.dispatcher.failedWrites() >= 2);
		assertThat(withdrawn).isNotDone();
		assertThat(route.problem()).contains("EndpointSlice routes/orders-leader").contains("500");
		assertThat(addresses(slice())).containsExactly("10.0.0.1");

		this.dispatcher.failSliceWrites(0, null);
		done(withdrawn);
		assertThat(addresses(slice())).isEmpty();
		assertThat(route.problem()).isNull();
	}

	/** A withdrawal no longer wanted, a newer term of this replica's having begun, is waited for no longer. */
	@Test
	void aWithdrawalOvertakenByANewTermIsNoLongerWaitedFor() throws Exception {
		LeaderRoute route = route("pod-a_1", "10.0.0.1", Map.of("http", 8080), null);
		done(route.lead(41));
		this.dispatcher.failSliceWrites(500, "etcd unavailable");
		CompletableFuture<Void> withdrawn = route.follow();
		await().atMost(TIMEOUT).until(() -> this.dispatcher.failedWrites() >= 1);

		route.lead(45);

		done(withdrawn);
		this.dispatcher.failSliceWrites(0, null);
		await().atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(slice().getMetadata().getAnnotations())
				.containsEntry("leaderelection.io/fencing-token", "45"));
		assertThat(addresses(slice())).containsExactly("10.0.0.1");
	}

	private LeaderRoute route(String holder, String address, Map<String, Integer> ports, String podName) {
		return route(holder, address, ports, podName, ELECTION);
	}

	private LeaderRoute route(String holder, String address, Map<String, Integer> ports, String podName,
			ElectionSettings election) {
		KubernetesLeaseStores stores = new KubernetesLeaseStores(this.server.createClient(), Runnable::run,
				Runnable::run);
		this.stores.add(stores);
		LeaderRoute.Endpoint endpoint = (address != null)
				? new LeaderRoute.Endpoint(SERVICE, address, ports, podName) : null;
		LeaderRoute route = stores.route(election, holder, endpoint, podName);
		this.routes.add(route);
		return route;
	}

	/** The Service without selector the slice belongs to; the mock server gives it a uid of its own. */
	private void createService() {
		this.other.services()
			.inNamespace(NS)
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
	}

	private Service service() {
		return this.other.services().inNamespace(NS).withName(SERVICE).get();
	}

	private EndpointSlice slice() {
		return this.other.discovery().v1().endpointSlices().inNamespace(NS).withName(SERVICE).get();
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

	private void createPod(String name) {
		this.other.pods()
			.inNamespace(NS)
			.resource(new PodBuilder().withNewMetadata()
				.withName(name)
				.addToLabels("app", "orders")
				.endMetadata()
				.build())
			.create();
	}

	private Map<String, String> podLabels(String name) {
		return this.other.pods().inNamespace(NS).withName(name).get().getMetadata().getLabels();
	}

	/** The methods of the requests to the slice served since the last call. */
	private List<String> takeRequests() throws InterruptedException {
		List<String> requests = new ArrayList<>();
		RecordedRequest request;
		while ((request = this.server.takeRequest(0, TimeUnit.MILLISECONDS)) != null) {
			if (request.getPath().contains("/endpointslices/" + SERVICE)) {
				requests.add(request.getMethod());
			}
		}
		return requests;
	}

	private static <T> T done(CompletableFuture<T> future) throws Exception {
		return future.get(TIMEOUT.toMillis() * 3, TimeUnit.MILLISECONDS);
	}

	/**
	 * The CRUD dispatcher, but for the next update of an EndpointSlice it is told to hold: that one
	 * is answered 504, as the API server answers a write still on its way to etcd, and applied only
	 * when the test lands it.
	 */
	private static final class UnansweredSliceWrites extends KubernetesCrudDispatcher {

		private volatile boolean holdNext;

		private volatile RecordedRequest held;

		private volatile int failingWith;

		private volatile String failure;

		private final AtomicInteger failed = new AtomicInteger();

		private final List<String> reads = new CopyOnWriteArrayList<>();

		private final AtomicInteger cachedReads = new AtomicInteger();

		/** Answers every write of an EndpointSlice with this status and message; 0 for none. */
		void failSliceWrites(int code, String message) {
			this.failure = message;
			this.failingWith = code;
		}

		int failedWrites() {
			return this.failed.get();
		}

		/** How many reads asked for any version the server has cached ({@code resourceVersion=0}). */
		int cachedReads() {
			return this.cachedReads.get();
		}

		/** The paths of the reads of the slice and its Service served since the last call. */
		List<String> reads() {
			List<String> reads = new ArrayList<>(this.reads);
			this.reads.clear();
			return reads;
		}

		void holdNextUpdate() {
			this.holdNext = true;
		}

		/** Applies the held update as it was sent; returns the status code the server gives it. */
		int landHeldUpdate() {
			assertThat(this.held).as("an update held").isNotNull();
			return super.dispatch(this.held).code();
		}

		@Override
		public MockResponse dispatch(RecordedRequest request) {
			String path = request.getPath();
			if ("GET".equals(request.getMethod()) && path.contains("/" + SERVICE)) {
				this.reads.add(path);
				if (path.endsWith("?resourceVersion=0")) {
					this.cachedReads.incrementAndGet();
				}
			}
			int code = this.failingWith;
			if (code != 0 && !"GET".equals(request.getMethod()) && path.contains("/endpointslices")) {
				this.failed.incrementAndGet();
				return new MockResponse().setResponseCode(code)
					.setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
							+ "\"message\":\"" + this.failure + "\",\"code\":" + code + "}");
			}
			if (this.holdNext && "PUT".equals(request.getMethod()) && request.getPath().contains("/endpointslices/")) {
				this.holdNext = false;
				this.held = request;
				return new MockResponse().setResponseCode(504)
					.setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
							+ "\"message\":\"Timeout: request did not complete within the allotted timeout\","
							+ "\"reason\":\"Timeout\",\"code\":504}");
			}
			return super.dispatch(request);
		}

	}

}
