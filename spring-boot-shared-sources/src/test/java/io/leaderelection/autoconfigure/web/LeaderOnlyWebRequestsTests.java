package io.leaderelection.autoconfigure.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.WebApplicationType;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Requests to {@code @LeaderOnly} handlers on two replicas, each on a real web server, Spring MVC
 * or Spring WebFlux, electing through fabric8's mock API server in CRUD mode: off the leader, and
 * on a former leader after a handover (a request that came through a route not yet updated), they
 * are answered 503 with {@code Retry-After} and never run; the leader's answers name the holder
 * and the fencing token; a release waits for the requests the leader serves.
 */
class LeaderOnlyWebRequestsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	private static final AtomicInteger namespaces = new AtomicInteger();

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	/** Holds the slow handler until the test lets it end. */
	private static volatile CountDownLatch slowRequests = new CountDownLatch(1);

	/** Counted down once a request to the held handler is past the web layer's check. */
	private static volatile CountDownLatch pastTheCheck = new CountDownLatch(1);

	/** Holds that request between the web layer's check and the handler until the test lets it go on. */
	private static volatile CountDownLatch heldBeforeTheHandler = new CountDownLatch(1);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private String namespace;

	private WebStackReplica a;

	private WebStackReplica b;

	@BeforeEach
	void newNamespace() {
		slowRequests = new CountDownLatch(1);
		pastTheCheck = new CountDownLatch(1);
		heldBeforeTheHandler = new CountDownLatch(1);
		this.namespace = "web-" + namespaces.incrementAndGet();
		// released, so that the first replica leads at once; the shards held by another candidate
		server.createReleased(this.namespace, "web-leader");
		server.createHeld(this.namespace, "orders-0-of-2", "someone-else", 60);
		server.createHeld(this.namespace, "orders-1-of-2", "someone-else", 60);
	}

	@AfterEach
	void stopReplicas() {
		slowRequests.countDown();
		heldBeforeTheHandler.countDown();
		this.threads.shutdownNow();
		if (this.b != null) {
			this.b.close();
		}
		if (this.a != null) {
			this.a.close();
		}
	}

	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
	void offTheLeaderARequestIsRefusedAndNeverRuns(WebApplicationType stack) {
		startLeaderAndFollower(stack);

		for (String path : List.of("/leader-only", "/admin/compact", "/admin/purge")) {
			ResponseEntity<String> refused = this.b.get(path);
			assertThat(refused.getStatusCode()).as(path).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
			assertThat(refused.getHeaders().getFirst("Retry-After")).isEqualTo("1");
			assertThat(refused.getHeaders().getFirst("Leader-Election-Holder")).isEqualTo("a");
			assertThat(refused.getHeaders().getFirst("Leader-Election-Fencing-Token")).isNull();
			assertThat(refused.getBody()).contains("Not the leader of election 'default'; current holder: a");
		}
		assertThat(this.b.bean(Runs.class).all()).isEmpty();
		assertThat(this.b.get("/anyone").getStatusCode()).isEqualTo(HttpStatus.OK);

		ResponseEntity<String> served = this.a.get("/leader-only");
		assertThat(served.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(served.getBody()).isEqualTo("ran");
		assertThat(served.getHeaders().getFirst("Leader-Election-Holder")).isEqualTo("a");
		assertThat(served.getHeaders().getFirst("Leader-Election-Fencing-Token"))
			.isEqualTo(String.valueOf(this.a.elector().status(LeaderElector.DEFAULT_ELECTION).fencingToken()));
		assertThat(this.a.get("/admin/compact").getBody()).isEqualTo("compacted");
		assertThat(this.a.get("/admin/purge").getBody()).isEqualTo("purged");
		assertThat(this.a.bean(Runs.class).all()).containsExactly("leader-only", "admin", "purge");
	}

	/**
	 * After a handover the route (a Service's EndpointSlice, a load balancer) may still lead to the
	 * former leader for a while: a request that reaches it is refused and names the new holder.
	 */
	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
	void afterAHandoverARequestReachingTheFormerLeaderIsRefused(WebApplicationType stack) {
		startLeaderAndFollower(stack);
		long formerToken = this.a.elector().status(LeaderElector.DEFAULT_ELECTION).fencingToken();

		this.a.elector().stepDown(LeaderElector.DEFAULT_ELECTION);
		await().atMost(TIMEOUT).until(() -> this.b.elector().isLeader());
		// the former leader names the holder it saw last: once it has seen b take over
		await().atMost(TIMEOUT)
			.until(() -> "b".equals(this.a.elector().status(LeaderElector.DEFAULT_ELECTION).holderIdentity()));

		ResponseEntity<String> refused = this.a.get("/leader-only");
		assertThat(refused.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(refused.getHeaders().getFirst("Leader-Election-Holder")).isEqualTo("b");
		assertThat(this.a.bean(Runs.class).all()).isEmpty();
		ResponseEntity<String> served = this.b.get("/leader-only");
		assertThat(served.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(served.getHeaders().getFirst("Leader-Election-Holder")).isEqualTo("b");
		assertThat(Long.parseLong(served.getHeaders().getFirst("Leader-Election-Fencing-Token")))
			.isGreaterThan(formerToken);
	}

	/**
	 * A step-down releases the Lease only once the leader-only requests under way have ended, the
	 * reactive body of a handler included (the handler method itself returned long before).
	 */
	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
	void aReleaseWaitsForTheLeaderOnlyRequestsUnderWay(WebApplicationType stack) throws Exception {
		startLeaderAndFollower(stack);
		CompletableFuture<ResponseEntity<String>> slow = CompletableFuture.supplyAsync(() -> this.a.get("/slow"),
				this.threads);
		await().atMost(TIMEOUT).until(() -> this.a.bean(Runs.class).all().contains("slow"));

		CompletableFuture.runAsync(() -> this.a.elector().stepDown(LeaderElector.DEFAULT_ELECTION), this.threads);
		await().atMost(TIMEOUT).until(() -> !this.a.elector().isLeader());
		// while the request runs, the Lease stays with the leader that serves it
		await().during(Duration.ofSeconds(1))
			.atMost(TIMEOUT)
			.until(() -> "a".equals(server.lease(this.namespace, "web-leader").getSpec().getHolderIdentity()));

		slowRequests.countDown();
		assertThat(slow.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).getBody()).isEqualTo("done");
		await().atMost(TIMEOUT)
			.until(() -> !"a".equals(server.lease(this.namespace, "web-leader").getSpec().getHolderIdentity()));
	}

	/**
	 * A body produced after the handler returned, by a handler whose declared type says nothing of
	 * it (a {@code ResponseEntity} of a streamed body or of a publisher): a step-down releases only
	 * once it is written.
	 */
	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
	void aReleaseWaitsForABodyStillProducedAfterTheHandlerReturned(WebApplicationType stack) throws Exception {
		startLeaderAndFollower(stack);
		String path = (stack == WebApplicationType.SERVLET) ? "/streamed" : "/emitted";
		CompletableFuture<ResponseEntity<String>> streaming = CompletableFuture.supplyAsync(() -> this.a.get(path),
				this.threads);
		await().atMost(TIMEOUT).until(() -> this.a.bean(Runs.class).all().contains("body"));

		CompletableFuture.runAsync(() -> this.a.elector().stepDown(LeaderElector.DEFAULT_ELECTION), this.threads);
		await().atMost(TIMEOUT).until(() -> !this.a.elector().isLeader());
		await().during(Duration.ofSeconds(1))
			.atMost(TIMEOUT)
			.until(() -> "a".equals(server.lease(this.namespace, "web-leader").getSpec().getHolderIdentity()));

		slowRequests.countDown();
		assertThat(streaming.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).getBody()).isEqualTo("done");
		await().atMost(TIMEOUT)
			.until(() -> !"a".equals(server.lease(this.namespace, "web-leader").getSpec().getHolderIdentity()));
	}

	/**
	 * The gate closes after the web layer found it open and before the handler is called (here a
	 * model attribute method of the controller holds the request in between, as a slow request
	 * body would): the handler's own {@code @LeaderOnly} call reads the gate again once registered,
	 * and the request is refused all the same, without the leader's headers, and never runs.
	 */
	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
	void aGateClosingBetweenTheWebLayersCheckAndTheHandlerRefusesTheRequest(WebApplicationType stack)
			throws Exception {
		startLeaderAndFollower(stack);
		CompletableFuture<ResponseEntity<String>> held = CompletableFuture.supplyAsync(() -> this.a.get("/held"),
				this.threads);
		assertThat(pastTheCheck.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();

		CompletableFuture.runAsync(() -> this.a.elector().stepDown(LeaderElector.DEFAULT_ELECTION), this.threads);
		await().atMost(TIMEOUT).until(() -> !this.a.elector().isLeader());
		heldBeforeTheHandler.countDown();

		ResponseEntity<String> refused = held.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		assertThat(refused.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(refused.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(refused.getHeaders().getFirst("Leader-Election-Fencing-Token")).isNull();
		assertThat(refused.getBody()).contains("Not the leader of election 'default'");
		assertThat(this.a.bean(Runs.class).all()).isEmpty();
	}

	/** Keyed by a shard, the handler's own call refuses itself: the same answer. */
	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
	void aRequestForAShardLedElsewhereIsRefused(WebApplicationType stack) {
		startLeaderAndFollower(stack);

		ResponseEntity<String> refused = this.a.get("/orders/42/ship");

		assertThat(refused.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(refused.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(refused.getHeaders().getFirst("Leader-Election-Holder")).isEqualTo("someone-else");
		assertThat(refused.getBody()).contains("Not the leader of election 'orders-");
		assertThat(this.a.bean(Runs.class).all()).isEmpty();
	}

	/** Called other than through the web, a leader-only handler off the leader throws rather than answer empty. */
	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET" })
	void calledDirectlyOffTheLeaderAHandlerThrows(WebApplicationType stack) {
		startLeaderAndFollower(stack);

		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> this.b.bean(OrdersController.class).leaderOnly())
			.satisfies((ex) -> assertThat(ex.getHolderIdentity()).isEqualTo("a"));
		assertThat(this.b.bean(Runs.class).all()).isEmpty();
	}

	private void startLeaderAndFollower(WebApplicationType stack) {
		Map<String, Object> properties = Map.of("leader.election.namespace", this.namespace,
				"leader.election.lease-name", "web-leader", "leader.election.elections.orders.shards", "2",
				"leader.election.elections.orders.lease-name", "orders");
		this.a = WebStackReplica.start(stack, "a", server.newClient(), properties, Runs.class, OrdersController.class,
				AdminController.class, HeldController.class);
		await().atMost(TIMEOUT).until(() -> this.a.elector().isLeader());
		this.b = WebStackReplica.start(stack, "b", server.newClient(), properties, Runs.class, OrdersController.class,
				AdminController.class, HeldController.class);
		await().atMost(TIMEOUT)
			.until(() -> "a".equals(this.b.elector().status(LeaderElector.DEFAULT_ELECTION).holderIdentity()));
	}

	/** What the handlers of one replica ran, in order. */
	@Component
	static class Runs {

		private final List<String> runs = new CopyOnWriteArrayList<>();

		void add(String run) {
			this.runs.add(run);
		}

		List<String> all() {
			return List.copyOf(this.runs);
		}

	}

	@RestController
	static class OrdersController {

		private final Runs runs;

		OrdersController(Runs runs) {
			this.runs = runs;
		}

		@LeaderOnly
		@GetMapping("/leader-only")
		public String leaderOnly() {
			this.runs.add("leader-only");
			return "ran";
		}

		@GetMapping("/anyone")
		public String anyone() {
			return "ran";
		}

		@LeaderOnly
		@GetMapping("/slow")
		public Mono<String> slow() {
			return Mono.fromCallable(() -> {
				this.runs.add("slow");
				slowRequests.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				return "done";
			}).subscribeOn(Schedulers.boundedElastic());
		}

		@LeaderOnly
		@GetMapping("/streamed")
		public ResponseEntity<StreamingResponseBody> streamed() {
			return ResponseEntity.ok((body) -> {
				this.runs.add("body");
				awaitSlowRequests();
				body.write("done".getBytes(StandardCharsets.UTF_8));
			});
		}

		@LeaderOnly
		@GetMapping("/emitted")
		public ResponseEntity<Flux<String>> emitted() {
			return ResponseEntity.ok(Flux.defer(() -> {
				this.runs.add("body");
				return Mono.fromCallable(() -> {
					awaitSlowRequests();
					return "done";
				}).subscribeOn(Schedulers.boundedElastic());
			}));
		}

		private static void awaitSlowRequests() {
			try {
				slowRequests.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@LeaderOnly(value = "orders", key = "#id")
		@GetMapping("/orders/{id}/ship")
		public String ship(@PathVariable String id) {
			this.runs.add("ship " + id);
			return "shipped";
		}

	}

	@LeaderOnly
	@RestController
	@RequestMapping("/admin")
	static class AdminController {

		private final Runs runs;

		AdminController(Runs runs) {
			this.runs = runs;
		}

		@GetMapping("/compact")
		public String compact() {
			this.runs.add("admin");
			return "compacted";
		}

		/** Package-private: mapped all the same. */
		@GetMapping("/purge")
		String purge() {
			this.runs.add("purge");
			return "purged";
		}

	}

	@RestController
	static class HeldController {

		private final Runs runs;

		HeldController(Runs runs) {
			this.runs = runs;
		}

		/** Runs after the web layer's check and before the handler, for every request to this controller. */
		@ModelAttribute("held")
		String holdBeforeTheHandler() throws InterruptedException {
			pastTheCheck.countDown();
			heldBeforeTheHandler.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			return "held";
		}

		@LeaderOnly
		@GetMapping("/held")
		public String held() {
			this.runs.add("held");
			return "ran";
		}

	}

}
