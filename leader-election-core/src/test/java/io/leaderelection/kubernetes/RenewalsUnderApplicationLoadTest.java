package io.leaderelection.kubernetes;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.management.UnixOperatingSystemMXBean;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.engine.RevocationCause;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The application floods its own fabric8 client with slow requests, more than fabric8's Vert.x
 * client has connections for, while this replica leads: its renewals, on the elector's own client,
 * keep going through and the gate never closes.
 * <p>
 * fabric8's Vert.x client opens at most {@value #CLIENT_CONNECTIONS} connections per client and
 * queues every request beyond them until one is free, whatever the request; an application that
 * brings it beside the starter gets it for the elector's client too. A derived client
 * ({@code getHttpClient().newBuilder()}) shares that pool, so with the application's requests
 * holding all of them, a renewal sent through it waits behind the flood until its timeout and the
 * renew deadline pass. The JDK's client, the starter's own, opens a connection per request in
 * flight, so the whole flood reaches the server here; the renewals must go through all the same.
 * The mock server answers the application's path only after {@link #SLOW_ANSWER}, on a timer, so
 * its event loop stays free for the Lease calls.
 * <p>
 * Both ends of the flood's connections are in this process: the test needs about twice
 * {@value #FLOOD} open files, and is skipped, saying so, where the limit is lower.
 */
@Tag("alone")
class RenewalsUnderApplicationLoadTest {

	/** The pool size fabric8 7.3.1 gives each Vert.x client (VertxHttpClientBuilder.MAX_CONNECTIONS). */
	private static final int CLIENT_CONNECTIONS = 8192;

	/** Application requests in flight at once: the pool is full and more wait for it. */
	private static final int FLOOD = CLIENT_CONNECTIONS + 256;

	/** How long the server takes to answer the application's requests: longer than the test. */
	private static final Duration SLOW_ANSWER = Duration.ofSeconds(60);

	private static final String SLOW_PATH = "/api/v1/namespaces/team-a/configmaps";

	private static final ElectionSettings ORDERS = new ElectionSettings("orders", "team-a", "orders-leader",
			Duration.ofMillis(2000), Duration.ofMillis(1500), Duration.ofMillis(250));

	private final AtomicInteger slowRequestsReceived = new AtomicInteger();

	private OpenedResources opened;

	@BeforeEach
	void startServer() {
		KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
		Dispatcher slowOnTheApplicationsPath = new Dispatcher() {

			@Override
			public MockResponse dispatch(RecordedRequest request) {
				MockResponse response = crud.dispatch(request);
				if ("GET".equals(request.getMethod()) && request.getPath().startsWith(SLOW_PATH)) {
					RenewalsUnderApplicationLoadTest.this.slowRequestsReceived.incrementAndGet();
					response.setBodyDelay(SLOW_ANSWER);
				}
				return response;
			}

		};
		this.opened = new OpenedResources(slowOnTheApplicationsPath);
	}

	@AfterEach
	void close() throws Exception {
		this.opened.close();
	}

	@Test
	void aLeaderKeepsRenewingWhileTheApplicationsRequestsHoldEveryConnectionOfItsClient() {
		long openFiles = (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix)
				? unix.getMaxFileDescriptorCount() : Long.MAX_VALUE;
		assumeTrue(openFiles >= 2L * FLOOD + 1000, () -> "the flood needs about " + (2 * FLOOD + 1000)
				+ " open files, and this process may open " + openFiles + " (ulimit -n)");
		KubernetesClient application = open(this.opened.server().createClient());
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		KubernetesLeaseStores stores = open(new KubernetesLeaseStores(application, threads.blockingCalls()));
		AtomicInteger revocations = new AtomicInteger();
		List<String> revocationCauses = new CopyOnWriteArrayList<>();
		AtomicInteger renewed = new AtomicInteger();
		AtomicInteger failedRenewals = new AtomicInteger();
		AtomicLong slowestRenewal = new AtomicLong();
		ElectionListener listener = new ElectionListener() {

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				revocations.incrementAndGet();
				revocationCauses.add(String.valueOf(cause));
			}

			@Override
			public void renewed(String election, boolean success, long nanos) {
				(success ? renewed : failedRenewals).incrementAndGet();
				slowestRenewal.accumulateAndGet(nanos, Math::max);
			}

		};
		ElectionEngine engine = new ElectionEngine("replica-a", List.of(ORDERS), stores, threads.runtime(),
				List.of(listener));
		this.opened.open(() -> engine.stop(false).join());
		engine.start();
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
			.until(() -> engine.isLeader("orders"));

		// the application's flood: asynchronous, as many requests in flight as it likes
		HttpClient applicationHttp = application.getHttpClient();
		List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>(FLOOD);
		for (int i = 0; i < FLOOD; i++) {
			flood.add(applicationHttp.sendAsync(applicationHttp.newHttpRequestBuilder()
				.uri(application.getMasterUrl() + SLOW_PATH.substring(1))
				.timeout(SLOW_ANSWER.toMillis() * 2, TimeUnit.MILLISECONDS)
				.build(), String.class));
		}
		this.opened.open(() -> flood.forEach((request) -> request.cancel(true)));

		// as many slow requests at the server as a Vert.x client has connections
		await("the application's client saturated: " + CLIENT_CONNECTIONS + " slow requests at the server")
			.atMost(Duration.ofSeconds(90))
			.pollInterval(Duration.ofMillis(100))
			.failFast(() -> assertThat(revocations.get())
				.as("revocations while the application's client filled up; causes %s", revocationCauses)
				.isZero())
			.until(() -> this.slowRequestsReceived.get() >= CLIENT_CONNECTIONS);
		assertThat(flood).as("application requests answered").noneMatch(CompletableFuture::isDone);

		// then several lease durations of saturation: the leader renews all along
		int renewedBefore = renewed.get();
		Duration window = ORDERS.leaseDuration().multipliedBy(4);
		long end = System.nanoTime() + window.toNanos();
		await().atMost(window.plusSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.failFast(() -> {
				assertThat(revocations.get())
					.as("revocations during the saturation; causes %s, failed renewals %s, slowest renewal %s",
							revocationCauses, failedRenewals.get(), Duration.ofNanos(slowestRenewal.get()))
					.isZero();
				assertThat(engine.isLeader("orders")).as("leader").isTrue();
			})
			.until(() -> System.nanoTime() - end >= 0);
		// a renewal may still time out now and then while the machine is busy with the flood's
		// thousands of connections (both ends are in this process); the gate never closed, and
		// most of them went through
		assertThat(renewed.get() - renewedBefore)
			.as("renewals during the saturation (failed renewals in all: %s)", failedRenewals.get())
			.isGreaterThanOrEqualTo((int) (window.toMillis() / ORDERS.retryPeriod().toMillis() / 2));
		assertThat(flood).as("application requests answered").noneMatch(CompletableFuture::isDone);
	}

	private <T extends AutoCloseable> T open(T resource) {
		return this.opened.open(resource);
	}

}
