package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader events reach listeners on the elector's event thread, and a listener that takes its
 * time does not hold up the renewals that keep the gate open.
 */
class LeaderEventThreadTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
		.withBean(KubernetesClient.class, () -> server.newClient())
		.withUserConfiguration(SlowListener.class)
		.withPropertyValues("leader.election.lease-name=slow-listener", "leader.election.lease-duration=2s",
				"leader.election.renew-deadline=1s", "leader.election.retry-period=250ms");

	@Test
	void aSlowGrantListenerRunsOnTheEventThreadWhileTheLeaderKeepsRenewing() {
		this.contextRunner.run((context) -> {
			SlowListener listener = context.getBean(SlowListener.class);
			assertThat(listener.entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(listener.thread).startsWith("leader-election-events-");
			LeaderElector elector = context.getBean(LeaderElector.class);
			// The listener holds the event thread for three renew deadlines; renewals go on.
			await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(elector::isLeader);
			listener.release.countDown();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class SlowListener {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		volatile String thread;

		@EventListener
		void granted(OnGrantedEvent event) throws InterruptedException {
			this.thread = Thread.currentThread().getName();
			this.entered.countDown();
			this.release.await(10, TimeUnit.SECONDS);
		}

	}

}
