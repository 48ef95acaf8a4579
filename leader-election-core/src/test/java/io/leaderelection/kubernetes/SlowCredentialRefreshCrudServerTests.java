package io.leaderelection.kubernetes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import io.leaderelection.LeaderStatus;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A credential refresh that blocks, on fabric8's CRUD mock server, with the application's client
 * authenticating through an exec credential plugin ({@code aws eks get-token}, {@code kubelogin}):
 * fabric8 refreshes the credentials on the thread that sends a request (its
 * {@code TokenRefreshInterceptor.before} calls {@code Config.refresh}, which runs the plugin and
 * waits for its process), and that thread is never one of the engine's.
 */
class SlowCredentialRefreshCrudServerTests {

	private static final String NAMESPACE = "shop";

	private static final Duration RENEW_DEADLINE = Duration.ofMillis(1000);

	private static final ElectionSettings ORDERS = new ElectionSettings("orders", NAMESPACE, "orders-leader",
			Duration.ofMillis(1500), RENEW_DEADLINE, Duration.ofMillis(200));

	private static final ElectionSettings BILLING = new ElectionSettings("billing", NAMESPACE, "billing-leader",
			Duration.ofMillis(1500), RENEW_DEADLINE, Duration.ofMillis(200));

	private static final Duration WAIT = Duration.ofSeconds(10);

	@TempDir
	Path plugin;

	private OpenedResources opened;

	@BeforeEach
	void startServer() {
		this.opened = new OpenedResources(new KubernetesCrudDispatcher());
	}

	@AfterEach
	void close() throws Exception {
		release();
		this.opened.close();
	}

	@Test
	void aRequestHeldByARefreshFailsWithinItsTimeoutAndHoldsUpNoOtherElection() throws Exception {
		KubernetesClient application = this.opened.open(applicationClient());
		LeaderElectionThreads threads = this.opened.open(new LeaderElectionThreads());
		KubernetesLeaseStores stores = this.opened
			.open(new KubernetesLeaseStores(application, threads.blockingCalls(), threads.requests()));
		Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();
		ElectionListener countingRenewals = new ElectionListener() {

			@Override
			public void renewed(String election, boolean success, long nanos) {
				if (success) {
					renewals.computeIfAbsent(election, (name) -> new AtomicInteger()).incrementAndGet();
				}
			}

		};
		ElectionEngine engine = new ElectionEngine("replica-0", List.of(ORDERS, BILLING), stores, threads.runtime(),
				List.of(countingRenewals));
		this.opened.open(() -> engine.stop(false).join());
		Files.createFile(this.plugin.resolve("block-next-run"));

		long started = System.nanoTime();
		engine.start();

		// the first look of one election waits for the plugin; the other's refresh runs it at once
		await().atMost(WAIT).until(() -> Files.exists(this.plugin.resolve("blocking")));
		Set<String> timedOut = ConcurrentHashMap.newKeySet();
		await().atMost(RENEW_DEADLINE.plusSeconds(1)).pollInterval(Duration.ofMillis(10)).until(() -> {
			timedOut.addAll(electionsWhoseLastError(engine, "no answer within " + RENEW_DEADLINE.toMillis() + " ms"));
			return !timedOut.isEmpty();
		});
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the look held by the refresh failed after")
			.isGreaterThanOrEqualTo(RENEW_DEADLINE)
			.isLessThan(RENEW_DEADLINE.plusSeconds(1));
		assertThat(timedOut).hasSize(1);

		// both lead, and keep renewing, while the plugin still blocks a thread of the elector's
		await().atMost(WAIT).until(() -> engine.isLeader("orders") && engine.isLeader("billing"));
		int ordersBefore = renewed(renewals, "orders");
		int billingBefore = renewed(renewals, "billing");
		await().atMost(WAIT)
			.until(() -> renewed(renewals, "orders") >= ordersBefore + 3
					&& renewed(renewals, "billing") >= billingBefore + 3);
		assertThat(engine.isLeader("orders") && engine.isLeader("billing")).isTrue();
	}

	/**
	 * The application's client, authenticated by the plugin; its first run, while the client's
	 * configuration is read, answers at once. fabric8 refreshes at most once a minute: its
	 * interceptor is made here as if the last refresh were long ago, so that the first request
	 * refreshes.
	 */
	private KubernetesClient applicationClient() throws Exception {
		Path command = this.plugin.resolve("get-token");
		Files.writeString(command, """
				#!/bin/sh
				cd "$(dirname "$0")"
				if mv block-next-run blocking 2>/dev/null; then
				  while [ ! -e released ]; do sleep 0.05; done
				  rm blocking
				fi
				echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}}'
				""");
		Files.setPosixFilePermissions(command, PosixFilePermissions.fromString("rwx------"));
		Path kubeconfig = this.plugin.resolve("kubeconfig");
		Files.writeString(kubeconfig, """
				apiVersion: v1
				kind: Config
				clusters:
				- name: mock
				  cluster:
				    server: %s
				contexts:
				- name: mock
				  context:
				    cluster: mock
				    user: plugin
				    namespace: %s
				current-context: mock
				users:
				- name: plugin
				  user:
				    exec:
				      apiVersion: client.authentication.k8s.io/v1beta1
				      command: %s
				""".formatted(this.opened.server().url("/"), NAMESPACE, command));
		Config config = Config.fromKubeconfig(null, kubeconfig.toFile());
		return new KubernetesClientBuilder().withConfig(config)
			.withHttpClientBuilderConsumer((http) -> http.addOrReplaceInterceptor(TokenRefreshInterceptor.NAME,
					new TokenRefreshInterceptor(config, new JdkHttpClientFactory(), Instant.EPOCH)))
			.build();
	}

	/**
	 * Lets a plugin run that blocks end, and waits until it has: once the test's directory is
	 * deleted, it would wait for ever.
	 */
	private void release() throws Exception {
		Path released = this.plugin.resolve("released");
		if (!Files.exists(released)) {
			Files.createFile(released);
		}
		await().atMost(WAIT).until(() -> !Files.exists(this.plugin.resolve("blocking")));
	}

	private static Set<String> electionsWhoseLastError(ElectionEngine engine, String contains) {
		return engine.statuses()
			.values()
			.stream()
			.filter((status) -> status.lastError() != null && status.lastError().contains(contains))
			.map(LeaderStatus::election)
			.collect(Collectors.toSet());
	}

	private static int renewed(Map<String, AtomicInteger> renewals, String election) {
		AtomicInteger count = renewals.get(election);
		return (count != null) ? count.get() : 0;
	}

}
