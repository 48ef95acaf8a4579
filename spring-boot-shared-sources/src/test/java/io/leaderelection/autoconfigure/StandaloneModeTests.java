package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.BootLine;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.LeaderStatus;
import io.leaderelection.actuate.endpoint.LeaderEndpointAutoConfiguration;
import io.leaderelection.actuate.health.LeaderElectionHealthContributorAutoConfiguration;
import io.leaderelection.actuate.health.LeaderElectionHealthIndicator;
import io.leaderelection.actuate.metrics.LeaderElectionMetricsAutoConfiguration;
import io.leaderelection.autoconfigure.leaderonly.FlagLifecycle;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.leaderonly.UnknownLeaderOnlyElectionException;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Switched off ({@code leader.election.enabled=false}) or standalone
 * ({@code leader.election.mode=standalone}), the application still has its {@link LeaderElector}:
 * it leads every configured election by the time the context has started, with every effect of
 * leading, and never calls Kubernetes.
 */
class StandaloneModeTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class, LeaderEndpointAutoConfiguration.class,
				LeaderElectionHealthContributorAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class))
		.withConfiguration(BootLine.HEALTH)
		.withConfiguration(BootLine.METRICS)
		.withPropertyValues("spring.application.name=orders", "leader.election.elections.billing.lease-name=bills")
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(ElectorUser.class)
		.withBean(Reconciler.class)
		.withBean(Poller.class)
		.withBean(LeaderEvents.class);

	@ParameterizedTest
	@ValueSource(strings = { "leader.election.enabled=false", "leader.election.mode=standalone" })
	void aBeanInjectingTheElectorStartsAndEveryElectionIsLedWithEveryEffectOfLeading(String switchedOff) {
		this.contextRunner.withPropertyValues(switchedOff).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(LeaderElector.class)
				.doesNotHaveBean(KubernetesClient.class)
				.doesNotHaveBean(KubernetesLeaseStores.class);
			LeaderElector elector = context.getBean(ElectorUser.class).elector;
			// no waiting: the context has started once every election is led
			assertThat(elector.isLeader()).isTrue();
			assertThat(elector.isLeader("billing")).isTrue();
			LeaderStatus status = elector.status("billing");
			assertThat(status.leaseName()).isEqualTo("bills");
			assertThat(status.holderIdentity()).isEqualTo(elector.identity());
			assertThat(status.fencingToken()).isPositive();
			Reconciler reconciler = context.getBean(Reconciler.class);
			assertThat(AopUtils.isAopProxy(reconciler)).isTrue();
			assertThat(reconciler.reconcile("a")).isEqualTo("a");
			assertThat(reconciler.bill("b")).isEqualTo("b");
			assertThat(context.getBean(Poller.class).isRunning()).isTrue();
			LeaderEvents events = context.getBean(LeaderEvents.class);
			assertThat(events.heard).containsExactlyInAnyOrder("granted default", "granted billing");
			LeaderElectionHealthIndicator health = context.getBean(LeaderElectionHealthIndicator.class);
			assertThat(health.health().getStatus().getCode()).isEqualTo("UP");
			assertThat(health.health().getDetails()).containsEntry("mode", "standalone");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("leader.election.leader").tag("election", "billing").gauge().value()).isEqualTo(1);
			assertThat(meters.get("leader.only.invocations")
				.tags("election", "billing", "outcome", "executed")
				.functionCounter()
				.count()).isEqualTo(1);
			Poller poller = context.getBean(Poller.class);
			context.getSourceApplicationContext(ConfigurableApplicationContext.class).close();
			assertThat(poller.isRunning()).isFalse();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(events.heard).contains("revoked default", "revoked billing"));
		});
	}

	@Test
	void standaloneChecksTheLeaderOnlyElectionsAsLeaseModeDoes() {
		this.contextRunner.withPropertyValues("leader.election.mode=standalone")
			.withBean(UnknownElectionJob.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining(UnknownLeaderOnlyElectionException.class.getName())
				.hasStackTraceContaining("shipping"));
	}

	@Test
	void anUnknownModeFailsTheStartNamingTheProperty() {
		this.contextRunner.withPropertyValues("leader.election.mode=solo")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("leader.election.mode")
				.hasStackTraceContaining("solo"));
	}

	@Test
	void leaseModeIsTheDefaultAndCampaignsThroughKubernetes() {
		this.contextRunner
			.withBean(KubernetesClient.class,
					() -> new KubernetesClientBuilder()
						.withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:1").build())
						.build())
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(KubernetesLeaseStores.class)
				.getBean(ElectionEngine.class)
				.satisfies((engine) -> assertThat(engine.isLeader()).isFalse()));
	}

	/** As the example of docs/leader-only.md: a bean that asks the elector itself. */
	static class ElectorUser {

		final LeaderElector elector;

		ElectorUser(LeaderElector elector) {
			this.elector = elector;
		}

	}

	static class Reconciler {

		@LeaderOnly
		public String reconcile(String key) {
			return key;
		}

		@LeaderOnly("billing")
		public String bill(String key) {
			return key;
		}

	}

	static class UnknownElectionJob {

		@LeaderOnly("shipping")
		public void ship() {
		}

	}

	@LeaderOnly
	static class Poller extends FlagLifecycle {

	}

	static class LeaderEvents {

		final List<String> heard = new CopyOnWriteArrayList<>();

		@EventListener
		void on(AbstractLeaderEvent event) {
			if (event instanceof OnGrantedEvent || event instanceof OnRevokedEvent) {
				this.heard.add(((event instanceof OnGrantedEvent) ? "granted " : "revoked ") + event.getRole());
			}
		}

	}

}
