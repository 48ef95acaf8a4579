package io.leaderelection.kubernetes;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Events on the Lease as client-go records them, written through fabric8; a server that refuses
 * them is told once and stops nothing.
 */
class KubernetesLeaseEventsTests {

	private static final ElectionSettings ORDERS = new ElectionSettings("default", "team-a", "orders-leader",
			Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

	private KubernetesMockServer server;

	private KubernetesClient client;

	@AfterEach
	void stopServer() {
		this.client.close();
		this.server.destroy();
	}

	@Test
	void becomingLeaderSteppingDownAndStoppingToLeadAreEventsOnTheLease() {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
		Lease lease = this.client.leases()
			.inNamespace("team-a")
			.resource(new LeaseBuilder().withNewMetadata().withName("orders-leader").endMetadata().build())
			.create();
		KubernetesLeaseEvents events = new KubernetesLeaseEvents(this.client, "orders-0", List.of(ORDERS),
				Runnable::run);

		events.granted("default", 7, 0);
		events.revoked("default", RevocationCause.STEPPED_DOWN, 0);
		events.granted("default", 9, 0);
		events.revoked("default", RevocationCause.RENEW_DEADLINE_PASSED, 0);

		List<Event> recorded = this.client.v1().events().inNamespace("team-a").list().getItems();
		assertThat(recorded).extracting(Event::getMessage)
			.containsExactlyInAnyOrder("orders-0 became leader", "orders-0 stepped down", "orders-0 became leader",
					"orders-0 stopped leading: " + RevocationCause.RENEW_DEADLINE_PASSED);
		assertThat(recorded).allSatisfy((event) -> {
			assertThat(event.getReason()).isEqualTo("LeaderElection");
			assertThat(event.getType()).isEqualTo("Normal");
			assertThat(event.getSource().getComponent()).isEqualTo("orders-0");
			assertThat(event.getInvolvedObject().getKind()).isEqualTo("Lease");
			assertThat(event.getInvolvedObject().getApiVersion()).isEqualTo("coordination.k8s.io/v1");
			assertThat(event.getInvolvedObject().getNamespace()).isEqualTo("team-a");
			assertThat(event.getInvolvedObject().getName()).isEqualTo("orders-leader");
			assertThat(event.getInvolvedObject().getUid()).isEqualTo(lease.getMetadata().getUid());
			assertThat(event.getMetadata().getName()).startsWith("orders-leader.");
		});
		assertThat(events.problem()).isNull();
	}

	@Test
	void eventsRefusedAreToldOnceAndAgainOnlyAfterOneWasWritten() {
		this.server = new KubernetesMockServer(false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
		String events = "/api/v1/namespaces/team-a/events";
		this.server.expect().post().withPath(events).andReturn(403, forbidden()).times(2);
		this.server.expect().post().withPath(events).andReturn(201, new EventBuilder().build()).once();
		this.server.expect().post().withPath(events).andReturn(403, forbidden()).once();
		KubernetesLeaseEvents recorder = new KubernetesLeaseEvents(this.client, "orders-0", List.of(ORDERS),
				Runnable::run);
		Logger logger = (Logger) LoggerFactory.getLogger(KubernetesLeaseEvents.class);
		ListAppender<ILoggingEvent> logged = new ListAppender<>();
		logged.start();
		logger.addAppender(logged);
		try {
			recorder.granted("default", 7, 0);
			recorder.revoked("default", RevocationCause.STEPPED_DOWN, 0);
			assertThat(recorder.problem()).contains("403", "grant 'create' on 'events' in namespace 'team-a'",
					"leader.election.events.enabled=false");
			assertThat(logged.list).hasSize(1);
			recorder.granted("default", 9, 0);
			assertThat(recorder.problem()).isNull();
			recorder.revoked("default", RevocationCause.STEPPED_DOWN, 0);
			assertThat(logged.list).hasSize(2);
		}
		finally {
			logger.detachAppender(logged);
		}
	}

	@Test
	void eventsCarryWhatTheApplicationSetOnItsClientsBuilder() throws Exception {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient(new ApplicationHeader("X-Tenant", "blue")::addTo);
		try (KubernetesLeaseEvents events = new KubernetesLeaseEvents(this.client, "orders-0", List.of(ORDERS),
				Runnable::run)) {
			events.granted("default", 7, 0);
		}

		RecordedRequest written = this.server.getLastRequest();
		assertThat(written.getPath()).isEqualTo("/api/v1/namespaces/team-a/events");
		assertThat(written.getHeader("X-Tenant")).isEqualTo("blue");
	}

	private static Status forbidden() {
		return new StatusBuilder().withStatus("Failure")
			.withMessage("events is forbidden: User \"system:serviceaccount:team-a:default\" cannot create resource "
					+ "\"events\" in API group \"\" in the namespace \"team-a\"")
			.withReason("Forbidden")
			.withCode(403)
			.build();
	}

}
