package io.leaderelection.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.BootLine;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.LeaderElectionProperties.OnLost;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests for {@link LeaderElectionAutoConfiguration}, against fabric8's Kubernetes mock server
 * in CRUD mode. Every context gets its own client on that server; tests that campaign use a
 * Lease of their own so that they do not see each other's holders.
 */
class LeaderElectionAutoConfigurationTests {

	private static final Duration LEADERSHIP_TIMEOUT = Duration.ofSeconds(10);

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
		.withBean(KubernetesClient.class, () -> server.newClient());

	// ---- defaults

	@Test
	void defaultsCreateAnElectionEngineWithTheDefaultElection() {
		this.contextRunner.withPropertyValues("spring.application.name=orders").run((context) -> {
			assertThat(context).hasSingleBean(LeaderElector.class)
				.hasSingleBean(ElectionEngine.class)
				.hasSingleBean(LeaderElectionSettings.class)
				.hasSingleBean(LeaderElectionLifecycle.class)
				.hasSingleBean(LeaderEventPublisher.class)
				.hasSingleBean(KubernetesClient.class)
				.doesNotHaveBean(ExitOnLostLeadership.class);
			ElectionEngine engine = context.getBean(ElectionEngine.class);
			assertThat(context.getBean(LeaderElector.class)).isSameAs(engine);
			assertThat(engine.statuses()).containsOnlyKeys("default");
			ElectionSettings expected = new ElectionSettings("default", defaultNamespace(), "orders-leader",
					Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2))
				.renewingEvery(Duration.ofSeconds(5));
			assertThat(engine.settings("default")).isEqualTo(expected);
			LeaderElectionSettings settings = context.getBean(LeaderElectionSettings.class);
			assertThat(settings.elections()).containsExactly(expected);
			assertThat(settings.releaseOnShutdown()).isTrue();
			assertThat(settings.onLost()).isEqualTo(OnLost.REJOIN);
			assertThat(engine.identity()).matches(Pattern.quote(identityBase()) + "_[0-9a-f]{8}")
				.isEqualTo(settings.identity());
			assertThat(context.getBean(LeaderEventPublisher.class)).isInstanceOf(DefaultLeaderEventPublisher.class);
		});
	}

	@Test
	void defaultLeaseNameWithoutApplicationName() {
		this.contextRunner.run((context) -> assertThat(context.getBean(ElectionEngine.class).settings("default"))
			.extracting(ElectionSettings::leaseName)
			.isEqualTo("application-leader"));
	}

	@Test
	void lifecycleStartsAfterTheWebServerAndStopsBeforeItsGracefulShutdown() {
		this.contextRunner.run((context) -> {
			LeaderElectionLifecycle lifecycle = context.getBean(LeaderElectionLifecycle.class);
			assertThat(lifecycle.isAutoStartup()).isTrue();
			assertThat(lifecycle.isRunning()).isTrue();
			// Lifecycles start in ascending and stop in descending phase order. The web server
			// starts at DEFAULT_PHASE - 2048; its graceful shutdown runs in the next phase.
			assertThat(lifecycle.getPhase()).isGreaterThan(BootLine.WEB_SERVER_GRACEFUL_SHUTDOWN_PHASE)
				.isLessThan(SmartLifecycle.DEFAULT_PHASE);
			context.close();
			assertThat(lifecycle.isRunning()).isFalse();
		});
	}

	@Test
	void campaignsThroughTheKubernetesClientAndPublishesSpringIntegrationEvents() {
		server.createReleased(defaultNamespace(), "campaign-leader");
		this.contextRunner.withPropertyValues("spring.application.name=campaign")
			.withBean(RecordingListener.class, RecordingListener::new)
			.run((context) -> {
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				awaitLeadership(engine, "default");
				Lease lease = server.lease(defaultNamespace(), "campaign-leader");
				assertThat(lease).isNotNull();
				assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(engine.identity());
				assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
				RecordingListener listener = context.getBean(RecordingListener.class);
				await().atMost(LEADERSHIP_TIMEOUT).until(() -> !listener.events.isEmpty());
				AbstractLeaderEvent granted = listener.events.get(0);
				assertThat(granted).isInstanceOf(OnGrantedEvent.class);
				assertThat(granted.getRole()).isEqualTo("default");
				assertThat(granted.getSource()).isSameAs(engine);
				assertThat(granted.getContext().getRole()).isEqualTo("default");
				assertThat(granted.getContext().isLeader()).isTrue();
				granted.getContext().yield();
				assertThat(granted.getContext().isLeader()).isFalse();
				assertThat(engine.isLeader()).isFalse();
				await().atMost(LEADERSHIP_TIMEOUT).until(() -> listener.events.size() > 1);
				assertThat(listener.events).hasSize(2);
				assertThat(listener.events.get(1)).isInstanceOf(OnRevokedEvent.class);
				assertThat(listener.events.get(1).getRole()).isEqualTo("default");
				// stepping down releases the Lease, asynchronously
				await().atMost(LEADERSHIP_TIMEOUT)
					.untilAsserted(() -> assertThat(
							server.lease(defaultNamespace(), "campaign-leader").getSpec().getHolderIdentity())
						.isNullOrEmpty());
			});
	}

	// ---- properties

	@Test
	void leaseNameNamespaceIdentityAndTimingsAreBoundAndUsed() {
		server.createReleased("team-a", "bound-lock");
		this.contextRunner
			.withPropertyValues("leader.election.lease-name=bound-lock", "leader.election.namespace=team-a",
					"leader.election.identity=replica-1", "leader.election.lease-duration=7s",
					"leader.election.renew-deadline=5s", "leader.election.retry-period=500ms",
					"leader.election.renew-period=1s")
			.run((context) -> {
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				assertThat(engine.identity()).isEqualTo("replica-1");
				assertThat(engine.settings("default")).isEqualTo(new ElectionSettings("default", "team-a",
						"bound-lock", Duration.ofSeconds(7), Duration.ofSeconds(5), Duration.ofMillis(500))
					.renewingEvery(Duration.ofSeconds(1)));
				awaitLeadership(engine, "default");
				Lease lease = server.lease("team-a", "bound-lock");
				assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("replica-1");
				assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(7);
				LeaderStatus status = engine.status("default");
				assertThat(status.namespace()).isEqualTo("team-a");
				assertThat(status.leaseName()).isEqualTo("bound-lock");
				assertThat(status.holderIdentity()).isEqualTo("replica-1");
			});
	}

	@Test
	void propertiesBindRelaxedly() {
		this.contextRunner
			.withPropertyValues("leader.election.leaseName=relaxed-lock", "leader.election.renewDeadline=9s",
					"leader.election.retry_period=1s", "leader.election.releaseOnShutdown=false",
					"leader.election.onLost=EXIT")
			.run((context) -> {
				ElectionSettings settings = context.getBean(ElectionEngine.class).settings("default");
				assertThat(settings.leaseName()).isEqualTo("relaxed-lock");
				assertThat(settings.renewDeadline()).isEqualTo(Duration.ofSeconds(9));
				assertThat(settings.retryPeriod()).isEqualTo(Duration.ofSeconds(1));
				LeaderElectionSettings all = context.getBean(LeaderElectionSettings.class);
				assertThat(all.releaseOnShutdown()).isFalse();
				assertThat(all.onLost()).isEqualTo(OnLost.EXIT);
				assertThat(context).hasSingleBean(ExitOnLostLeadership.class);
			});
	}

	@Test
	void releaseOnShutdownReleasesTheLeaseWhenTheContextCloses() {
		server.createReleased(defaultNamespace(), "releasing-leader");
		this.contextRunner.withPropertyValues("spring.application.name=releasing").run((context) -> {
			ElectionEngine engine = context.getBean(ElectionEngine.class);
			awaitLeadership(engine, "default");
			assertThat(context.getBean(LeaderElectionSettings.class).releaseOnShutdown()).isTrue();
			context.close();
			Lease lease = server.lease(defaultNamespace(), "releasing-leader");
			assertThat(lease.getSpec().getHolderIdentity()).isNullOrEmpty();
			assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
		});
	}

	@Test
	void releaseOnShutdownFalseLeavesTheLeaseToExpire() {
		server.createReleased(defaultNamespace(), "keeping-leader");
		this.contextRunner
			.withPropertyValues("spring.application.name=keeping", "leader.election.release-on-shutdown=false")
			.run((context) -> {
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				awaitLeadership(engine, "default");
				assertThat(context.getBean(LeaderElectionSettings.class).releaseOnShutdown()).isFalse();
				context.close();
				Lease lease = server.lease(defaultNamespace(), "keeping-leader");
				assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(engine.identity());
				assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
			});
	}

	@Test
	void onLostExitCreatesExitOnLostLeadership() {
		this.contextRunner.withPropertyValues("spring.application.name=exiting", "leader.election.on-lost=exit")
			.run((context) -> {
				assertThat(context).hasSingleBean(ExitOnLostLeadership.class);
				assertThat(context.getBean(LeaderElectionSettings.class).onLost()).isEqualTo(OnLost.EXIT);
			});
	}

	@Test
	void onLostRejoinCreatesNoExitOnLostLeadership() {
		this.contextRunner.withPropertyValues("leader.election.on-lost=rejoin").run((context) -> {
			assertThat(context).doesNotHaveBean(ExitOnLostLeadership.class);
			assertThat(context.getBean(LeaderElectionSettings.class).onLost()).isEqualTo(OnLost.REJOIN);
		});
	}

	@Test
	void namedElectionsInheritUnsetValuesAndDeriveTheirLeaseName() {
		server.createReleased("shop-ns", "shop-billing-leader");
		server.createReleased("shop-ns", "reports-lock");
		this.contextRunner
			.withPropertyValues("spring.application.name=shop", "leader.election.namespace=shop-ns",
					"leader.election.lease-duration=6s", "leader.election.renew-deadline=4s",
					"leader.election.retry-period=1s", "leader.election.elections.billing.retry-period=500ms",
					"leader.election.elections.reports.lease-name=reports-lock",
					"leader.election.elections.reports.lease-duration=30s",
					"leader.election.elections.reports.renew-deadline=20s",
					"leader.election.elections.reports.retry-period=3s")
			.run((context) -> {
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				assertThat(engine.statuses()).containsOnlyKeys("default", "billing", "reports");
				assertThat(engine.settings("default")).isEqualTo(new ElectionSettings("default", "shop-ns",
						"shop-leader", Duration.ofSeconds(6), Duration.ofSeconds(4), Duration.ofSeconds(1))
					.renewingEvery(Duration.ofSeconds(2)));
				assertThat(engine.settings("billing")).isEqualTo(new ElectionSettings("billing", "shop-ns",
						"shop-billing-leader", Duration.ofSeconds(6), Duration.ofSeconds(4), Duration.ofMillis(500))
					.renewingEvery(Duration.ofSeconds(2)));
				assertThat(engine.settings("reports")).isEqualTo(new ElectionSettings("reports", "shop-ns",
						"reports-lock", Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofSeconds(3))
					.renewingEvery(Duration.ofSeconds(10)));
				LeaderElectionSettings settings = context.getBean(LeaderElectionSettings.class);
				assertThat(settings.electionNames()).first().isEqualTo("default");
				assertThat(settings.electionNames()).containsExactlyInAnyOrder("default", "billing", "reports");
				awaitLeadership(engine, "billing");
				awaitLeadership(engine, "reports");
				assertThat(server.lease("shop-ns", "shop-billing-leader").getSpec().getHolderIdentity())
					.isEqualTo(engine.identity());
				assertThat(server.lease("shop-ns", "reports-lock").getSpec().getLeaseDurationSeconds())
					.isEqualTo(30);
			});
	}

	@Test
	void namedElectionLeaseNameWithoutApplicationName() {
		this.contextRunner.withPropertyValues("leader.election.elections.jobs.retry-period=1s")
			.run((context) -> assertThat(context.getBean(ElectionEngine.class).settings("jobs").leaseName())
				.isEqualTo("application-jobs-leader"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("shutdownPhaseSpellings")
	void drainTimeoutIsTheShutdownPhaseLessTheRenewDeadlineHoweverThePhaseIsSpelled(String name, String value) {
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of(name, value))))
			.run((context) -> assertThat(context.getBean(ElectionEngine.class).drainTimeout())
				.isEqualTo(Duration.ofSeconds(30)));
	}

	static Stream<Arguments> shutdownPhaseSpellings() {
		return Stream.of(arguments("spring.lifecycle.timeout-per-shutdown-phase", "40s"),
				arguments("spring.lifecycle.timeoutPerShutdownPhase", "40s"),
				arguments("SPRING_LIFECYCLE_TIMEOUTPERSHUTDOWNPHASE", "40000"));
	}

	// ---- backing off

	@Test
	void userDefinedLeaderElectorReplacesTheEngine() {
		StubLeaderElector elector = new StubLeaderElector();
		this.contextRunner.withBean(LeaderElector.class, () -> elector).run((context) -> {
			assertThat(context).hasSingleBean(LeaderElector.class)
				.doesNotHaveBean(ElectionEngine.class)
				.doesNotHaveBean(LeaderElectionLifecycle.class);
			assertThat(context.getBean(LeaderElector.class)).isSameAs(elector);
		});
	}

	@Test
	void userDefinedLeaderEventPublisherIsUsed() {
		server.createReleased(defaultNamespace(), "publishing-leader");
		RecordingPublisher publisher = new RecordingPublisher();
		this.contextRunner.withPropertyValues("spring.application.name=publishing")
			.withBean(LeaderEventPublisher.class, () -> publisher)
			.run((context) -> {
				assertThat(context).hasSingleBean(LeaderEventPublisher.class);
				assertThat(context.getBean(LeaderEventPublisher.class)).isSameAs(publisher);
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				awaitLeadership(engine, "default");
				await().atMost(LEADERSHIP_TIMEOUT).until(() -> publisher.granted.contains("default"));
				assertThat(publisher.sources).containsOnly(engine);
			});
	}

	@Test
	void userDefinedLeaderElectionSettingsAreUsedInsteadOfTheProperties() {
		LeaderElectionSettings custom = new LeaderElectionSettings("custom-identity",
				List.of(new ElectionSettings("default", "custom-ns", "custom-lock", Duration.ofSeconds(3),
						Duration.ofSeconds(2), Duration.ofMillis(500)),
						new ElectionSettings("jobs", "custom-ns", "custom-jobs", Duration.ofSeconds(3),
								Duration.ofSeconds(2), Duration.ofMillis(500))),
				true, OnLost.REJOIN);
		this.contextRunner.withBean(LeaderElectionSettings.class, () -> custom)
			// would fail the start if the properties were resolved
			.withPropertyValues("leader.election.renew-deadline=1h", "leader.election.identity=ignored")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(LeaderElectionSettings.class);
				assertThat(context.getBean(LeaderElectionSettings.class)).isSameAs(custom);
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				assertThat(engine.identity()).isEqualTo("custom-identity");
				assertThat(engine.statuses()).containsOnlyKeys("default", "jobs");
				assertThat(engine.settings("jobs")).isEqualTo(custom.elections().get(1));
				awaitLeadership(engine, "jobs");
				assertThat(server.lease("custom-ns", "custom-jobs").getSpec().getHolderIdentity())
					.isEqualTo("custom-identity");
			});
	}

	@Test
	void userDefinedKubernetesClientIsUsed() {
		server.createReleased(defaultNamespace(), "user-client-leader");
		KubernetesClient client = server.newClient();
		new ApplicationContextRunner()
			.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
			.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
			.withBean(KubernetesClient.class, () -> client)
			.withPropertyValues("spring.application.name=user-client")
			.run((context) -> {
				assertThat(context).hasSingleBean(KubernetesClient.class);
				assertThat(context.getBean(KubernetesClient.class)).isSameAs(client);
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				awaitLeadership(engine, "default");
				// Only a client on the mock server could have written this Lease.
				assertThat(server.lease(defaultNamespace(), "user-client-leader").getSpec().getHolderIdentity())
					.isEqualTo(engine.identity());
			});
	}

	@Test
	void withoutAKubernetesClientOneIsBuiltFromFabric8Configuration() {
		new ApplicationContextRunner()
			.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
			.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
			.withSystemProperties("kubernetes.master=" + server.url(), "kubernetes.namespace=from-fabric8",
					"kubernetes.auth.tryKubeConfig=false", "kubernetes.auth.tryServiceAccount=false")
			.withPropertyValues("spring.application.name=built-client")
			.run((context) -> {
				assertThat(context).hasSingleBean(KubernetesClient.class);
				KubernetesClient client = context.getBean(KubernetesClient.class);
				assertThat(client.getMasterUrl().toString()).isEqualTo(server.url());
				assertThat(client.getNamespace()).isEqualTo("from-fabric8");
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				String namespace = podNamespaceOr("from-fabric8");
				assertThat(engine.settings("default").namespace()).isEqualTo(namespace);
				// the Lease is missing: created a lease duration after the first read
				awaitLeadership(engine, "default", Duration.ofSeconds(15));
				assertThat(server.lease(namespace, "built-client-leader").getSpec().getHolderIdentity())
					.isEqualTo(engine.identity());
			});
	}

	// ---- invalid configuration

	static Stream<Arguments> invalidConfigurations() {
		return Stream.of(
				// timings
				invalid("leader.election.renew-deadline", Duration.ofSeconds(15), "leader.election.renew-deadline=15s"),
				invalid("leader.election.renew-deadline", Duration.ofSeconds(20), "leader.election.renew-deadline=20s"),
				invalid("leader.election.renew-deadline", Duration.ofSeconds(10), "leader.election.lease-duration=5s"),
				invalid("leader.election.retry-period", Duration.ofSeconds(10), "leader.election.retry-period=10s"),
				invalid("leader.election.retry-period", Duration.ofSeconds(12), "leader.election.retry-period=12s"),
				invalid("leader.election.lease-duration", Duration.ZERO, "leader.election.lease-duration=0s"),
				invalid("leader.election.renew-deadline", Duration.ZERO, "leader.election.renew-deadline=0ms"),
				invalid("leader.election.retry-period", Duration.ZERO, "leader.election.retry-period=0"),
				invalid("leader.election.lease-duration", Duration.ofSeconds(-15), "leader.election.lease-duration=-15s"),
				invalid("leader.election.renew-deadline", Duration.ofSeconds(-1), "leader.election.renew-deadline=-1s"),
				invalid("leader.election.retry-period", Duration.ofSeconds(-2), "leader.election.retry-period=-2s"),
				invalid("leader.election.elections.billing.renew-deadline", Duration.ofSeconds(20),
						"leader.election.elections.billing.renew-deadline=20s"),
				invalid("leader.election.elections.billing.retry-period", Duration.ZERO,
						"leader.election.elections.billing.retry-period=0s"),
				// lease names
				invalid("leader.election.lease-name", "My_Lease", "leader.election.lease-name=My_Lease"),
				invalid("leader.election.lease-name", "MyApp-leader", "spring.application.name=MyApp"),
				invalid("leader.election.lease-name", "my_app-leader", "spring.application.name=my_app"),
				invalid("leader.election.elections.billing.lease-name", "Billing_Lock",
						"leader.election.elections.billing.lease-name=Billing_Lock"),
				invalid("leader.election.elections.billing.lease-name", "shop-leader", "spring.application.name=shop",
						"leader.election.elections.billing.lease-name=shop-leader"),
				invalid("leader.election.elections.reports.lease-name", "shared-lock",
						"leader.election.elections.billing.lease-name=shared-lock",
						"leader.election.elections.reports.lease-name=shared-lock"),
				// election names
				invalid("leader.election.elections.default", "default",
						"leader.election.elections.default.lease-name=other-lock"),
				invalid("leader.election.elections.Billing", "Billing",
						"leader.election.elections.Billing.retry-period=1s"),
				invalid("leader.election.elections.bill.ing", "bill.ing",
						"leader.election.elections[bill.ing].retry-period=1s"),
				invalid("leader.election.elections." + "b".repeat(64), "b".repeat(64),
						"leader.election.elections." + "b".repeat(64) + ".retry-period=1s"),
				// shards and balance
				invalid("leader.election.elections.orders.shards", 0, "leader.election.elections.orders.shards=0"),
				invalid("leader.election.elections.orders.shards", 257, "leader.election.elections.orders.shards=257"),
				invalid("leader.election.elections.orders.shards", 4, "leader.election.elections.orders.shards=4",
						"leader.election.elections.orders.mode=for-life"),
				invalid("leader.election.elections.billing.balance", false,
						"leader.election.elections.billing.balance=false"),
				// namespace
				invalid("leader.election.namespace", "Team_A", "leader.election.namespace=Team_A"),
				invalid("leader.election.namespace", "a".repeat(64), "leader.election.namespace=" + "a".repeat(64)),
				// identity
				invalid("leader.election.identity", "", "leader.election.identity="),
				invalid("leader.election.identity", "two words", "leader.election.identity=two words"),
				invalid("leader.election.identity", "x".repeat(129), "leader.election.identity=" + "x".repeat(129)));
	}

	private static Arguments invalid(String property, Object value, String... properties) {
		return arguments(property, value, properties);
	}

	@ParameterizedTest(name = "{0} (value: {1})")
	@MethodSource("invalidConfigurations")
	void invalidConfigurationFailsTheStartNamingTheProperty(String property, Object value, String[] properties) {
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).rootCause()
				.isInstanceOf(InvalidLeaderElectionPropertyException.class)
				.hasFieldOrPropertyWithValue("property", property)
				.hasFieldOrPropertyWithValue("value", value);
			FailureAnalysis analysis = new LeaderElectionFailureAnalyzer().analyze(failure);
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("'" + property + "'");
			assertThat(analysis.getAction()).contains("'" + property + "'");
		});
	}

	// ---- helpers

	private static void awaitLeadership(ElectionEngine engine, String election) {
		awaitLeadership(engine, election, Duration.ZERO);
	}

	private static void awaitLeadership(ElectionEngine engine, String election, Duration leaseMissingFor) {
		await().atMost(LEADERSHIP_TIMEOUT.plus(leaseMissingFor)).until(() -> engine.isLeader(election));
	}

	/**
	 * What the auto-configuration reads from the real environment: $POD_NAME, else $HOSTNAME,
	 * else the host name.
	 */
	private static String identityBase() {
		for (String variable : List.of("POD_NAME", "HOSTNAME")) {
			String value = System.getenv(variable);
			if (value != null && !value.isBlank()) {
				return value.trim();
			}
		}
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "candidate";
		}
	}

	/** The namespace the auto-configuration resolves with the mock server's client. */
	private static String defaultNamespace() {
		return podNamespaceOr(server.clientNamespace());
	}

	/** $POD_NAMESPACE, else the service account's namespace when run in a pod, else the given one. */
	private static String podNamespaceOr(String clientNamespace) {
		String podNamespace = System.getenv("POD_NAMESPACE");
		if (podNamespace != null && !podNamespace.isBlank()) {
			return podNamespace.trim();
		}
		Path file = LeaderElectionSettingsResolver.SERVICE_ACCOUNT_NAMESPACE;
		try {
			if (Files.isReadable(file) && !Files.readString(file).isBlank()) {
				return Files.readString(file).trim();
			}
		}
		catch (java.io.IOException ex) {
			// not in a pod
		}
		return clientNamespace;
	}

	static class RecordingListener implements ApplicationListener<AbstractLeaderEvent> {

		final List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(AbstractLeaderEvent event) {
			this.events.add(event);
		}

	}

	static class RecordingPublisher implements LeaderEventPublisher {

		final List<String> granted = new CopyOnWriteArrayList<>();

		final List<Object> sources = new CopyOnWriteArrayList<>();

		@Override
		public void publishOnGranted(Object source, Context context, String role) {
			this.sources.add(source);
			this.granted.add(role);
		}

		@Override
		public void publishOnRevoked(Object source, Context context, String role) {
			this.sources.add(source);
		}

		@Override
		public void publishOnFailedToAcquire(Object source, Context context, String role) {
			this.sources.add(source);
		}

	}

	static class StubLeaderElector implements LeaderElector {

		@Override
		public String identity() {
			return "stub";
		}

		@Override
		public boolean isLeader(String election) {
			return false;
		}

		@Override
		public LeaderStatus status(String election) {
			return new LeaderStatus(election, "default", "stub-leader", false, null, null, null, null, null, null, null,
					LeaderStatus.LEASE_MODE, null, null, null);
		}

		@Override
		public Map<String, LeaderStatus> statuses() {
			return Map.of("default", status("default"));
		}

		@Override
		public void stepDown(String election) {
		}

	}

}
