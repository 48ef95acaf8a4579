package io.leaderelection.actuate.metrics;

import java.time.Duration;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.BootLine;
import io.leaderelection.LeaderElector;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations;
import io.leaderelection.autoconfigure.shedlock.ShedLockAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderElectionMetricsAutoConfiguration}.
 */
class LeaderElectionMetricsAutoConfigurationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(LeaderElectionMetricsAutoConfiguration.class))
		.withConfiguration(BootLine.METRICS)
		.withBean(SimpleMeterRegistry.class);

	@Test
	void theEngineIsMeasuredFromItsFirstGrant() {
		server.createReleased("metrics", "metrics-billing");
		this.contextRunner
			.withConfiguration(
					AutoConfigurations.of(LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
			.withBean(KubernetesClient.class, () -> server.newClient())
			.withPropertyValues("spring.application.name=metrics-auto-configuration", "leader.election.namespace=metrics",
					"leader.election.elections.billing.lease-name=metrics-billing")
			.run((context) -> {
				assertThat(context).hasSingleBean(LeadershipMetrics.class)
					.hasSingleBean(ElectionEventMetrics.class)
					.hasSingleBean(LeaderOnlyMetrics.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(registry.get("leader.election.transitions")
						.tags("election", "billing", "event", "granted")
						.counter()
						.count()).isOne());
				assertThat(registry.get("leader.election.leader").tag("election", "billing").gauge().value())
					.isOne();
				assertThat(registry.get("leader.only.invocations")
					.tags("election", "billing", "outcome", "skipped")
					.functionCounter()
					.count()).isZero();
			});
	}

	@Test
	void anotherElectorGetsTheLeadershipGaugeOnly() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new).run((context) -> {
			assertThat(context).hasSingleBean(LeadershipMetrics.class)
				.doesNotHaveBean(ElectionEventMetrics.class)
				.doesNotHaveBean(LeaderOnlyMetrics.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("leader.election.leader").tag("election", "default").gauge().value()).isOne();
			assertThat(registry.get("leader.election.leader").tag("election", "billing").gauge().value()).isZero();
			assertThat(registry.find("leader.election.transitions").meters()).isEmpty();
		});
	}

	@Test
	void leaderOnlyCallsAreCountedForEveryElectionAndOutcome() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new)
			.withBean(LeaderOnlyInvocations.class)
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("leader.only.invocations").functionCounters()).hasSize(8);
				for (String outcome : new String[] { "executed", "skipped", "refused", "skipped-window" }) {
					assertThat(registry.get("leader.only.invocations")
						.tags("election", "billing", "outcome", outcome)
						.functionCounter()
						.count()).isZero();
				}
			});
	}

	@Test
	void shedLockLocksAreCountedForTheirElectionAndEveryOutcome() {
		this.contextRunner.withPropertyValues("leader.election.mode=standalone")
			.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class, ShedLockAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(ShedLockMetrics.class);
				context.getBean(LockProvider.class)
					.lock(new LockConfiguration(ClockProvider.now(), "report", Duration.ofMinutes(1), Duration.ZERO))
					.orElseThrow()
					.unlock();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("leader.election.shedlock.locks").functionCounters()).hasSize(4);
				assertThat(registry.get("leader.election.shedlock.locks")
					.tags("election", "default", "outcome", "granted")
					.functionCounter()
					.count()).isOne();
				for (String outcome : new String[] { "skipped", "skipped-window", "refused" }) {
					assertThat(registry.get("leader.election.shedlock.locks")
						.tags("election", "default", "outcome", outcome)
						.functionCounter()
						.count()).isZero();
				}
			});
	}

	@Test
	void shedLockLocksAreNotCountedWithoutShedLock() {
		this.contextRunner.withPropertyValues("leader.election.mode=standalone")
			.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class, ShedLockAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(LeaderOnlyMetrics.class)
				.doesNotHaveBean(ShedLockMetrics.class));
	}

	@Test
	void backsOffWithoutAMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LeaderElectionMetricsAutoConfiguration.class))
			.withBean(LeaderElector.class, StaticLeaderElector::new)
			.run((context) -> assertThat(context).doesNotHaveBean(LeadershipMetrics.class));
	}

	@Test
	void backsOffWithoutMicrometer() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new)
			.withClassLoader(new FilteredClassLoader(MeterBinder.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LeadershipMetrics.class));
	}

	@Test
	void backsOffWithoutAnElector() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LeadershipMetrics.class));
	}

}
