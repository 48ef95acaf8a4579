package io.leaderelection.autoconfigure.events;

import java.time.Duration;
import java.util.List;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.kubernetes.KubernetesLeaseEvents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderElectionEventsAutoConfiguration}: Events on the Lease where the elector
 * campaigns on Kubernetes, none where it does not or where they are switched off.
 */
class LeaderElectionEventsAutoConfigurationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class,
				LeaderElectionEventsAutoConfiguration.class))
		.withBean(KubernetesClient.class, server::newClient)
		.withPropertyValues("leader.election.namespace=events", "leader.election.lease-duration=2s",
				"leader.election.renew-deadline=1s", "leader.election.retry-period=250ms");

	@Test
	void becomingLeaderAndSteppingDownAreEventsOnTheLease() {
		server.createReleased("events", "recorded-leader");
		this.contextRunner.withPropertyValues("leader.election.lease-name=recorded-leader").run((context) -> {
			assertThat(context).hasSingleBean(KubernetesLeaseEvents.class);
			LeaderElector elector = context.getBean(LeaderElector.class);
			await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);
			elector.stepDown(LeaderElector.DEFAULT_ELECTION);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(events("recorded-leader")).extracting(Event::getMessage)
					.contains(elector.identity() + " became leader", elector.identity() + " stepped down"));
			assertThat(context.getBean(KubernetesLeaseEvents.class).problem()).isNull();
		});
	}

	@Test
	void switchedOffNoEventIsRecorded() {
		this.contextRunner.withPropertyValues("leader.election.events.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(KubernetesLeaseEvents.class));
	}

	@Test
	void standaloneThereIsNoLeaseToRecordEventsOn() {
		this.contextRunner.withPropertyValues("leader.election.mode=standalone")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(KubernetesLeaseEvents.class));
	}

	private static List<Event> events(String leaseName) {
		try (KubernetesClient client = server.newClient()) {
			return client.v1()
				.events()
				.inNamespace("events")
				.list()
				.getItems()
				.stream()
				.filter((event) -> leaseName.equals(event.getInvolvedObject().getName()))
				.toList();
		}
	}

}
