package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderOnly;
import io.leaderelection.RevocationCause;
import io.leaderelection.StepDown;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.integration.GateHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code leader.election.campaign-when-ready}: replicas campaign only while their readiness
 * accepts traffic, a leader refusing traffic steps down (drain, then release), and no two
 * replicas ever lead at once through readiness flips.
 */
class CampaignWhenReadyTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private static final String NAMESPACE = "readiness";

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final Duration LEASE_DURATION = Duration.ofSeconds(3);

	private final ExecutorService callers = Executors.newCachedThreadPool();

	@AfterEach
	void stopCallers() {
		this.callers.shutdownNow();
	}

	@Test
	void aReplicaDoesNotCampaignBeforeItAcceptsTrafficAndLeadsOnceItDoes() {
		String lease = "not-yet-ready";
		server.createReleased(NAMESPACE, lease);
		replica(lease, "a").run((context) -> {
			ElectionEngine engine = context.getBean(ElectionEngine.class);
			// it follows the Lease, released and free to take, and does not take it
			await().atMost(WAIT).until(() -> engine.health("default").sinceLastAttempt() != null);
			claimsNothingUntilReadyThenLeads(context, lease);
		});
	}

	@Test
	void aReplicaCreatesAMissingLeaseWithoutHolderBeforeItAcceptsTrafficAndClaimsItOnceReady() {
		String lease = "missing-until-followed";
		replica(lease, "a").run((context) -> {
			await().atMost(WAIT).until(() -> server.lease(NAMESPACE, lease) != null);
			claimsNothingUntilReadyThenLeads(context, lease);
		});
	}

	@Test
	void aContextStoppedAndStartedAgainFollowsItsLeaseAgainBeforeItAcceptsTraffic() {
		String lease = "followed-again";
		replica(lease, "a").run((context) -> {
			await().atMost(WAIT).until(() -> server.lease(NAMESPACE, lease) != null);
			context.stop();
			try (KubernetesClient client = server.newClient()) {
				client.leases().inNamespace(NAMESPACE).withName(lease).delete();
			}
			context.start();
			// following begins with the lifecycle, not with the engine's creation: it creates the Lease again
			await().atMost(WAIT).until(() -> server.lease(NAMESPACE, lease) != null);
			claimsNothingUntilReadyThenLeads(context, lease);
		});
	}

	@Test
	void aLeaderRefusingTrafficStepsDownReleasingAndCampaignsAgainOnceReady() {
		String lease = "flipping";
		server.createReleased(NAMESPACE, lease);
		replica(lease, "a").run((context) -> {
			ElectionEngine engine = context.getBean(ElectionEngine.class);
			Revocations revocations = context.getBean(Revocations.class);
			ready(context, true);
			await().atMost(WAIT).until(engine::isLeader);
			Long firstToken = engine.status("default").fencingToken();
			ready(context, false);
			assertThat(engine.isLeader()).isFalse();
			await().atMost(WAIT)
				.untilAsserted(() -> assertThat(server.lease(NAMESPACE, lease).getSpec().getHolderIdentity())
					.isNullOrEmpty());
			assertThat(revocations.causes).containsExactly(RevocationCause.NOT_READY);
			ready(context, true);
			await().atMost(WAIT).until(engine::isLeader);
			assertThat(engine.status("default").fencingToken()).isGreaterThan(firstToken);
		});
	}

	@Test
	void withReleaseOnShutdownOffALeaderRefusingTrafficLeavesItsLeaseToExpire() {
		// a web application's shutdown begins with readiness refusing traffic
		String lease = "kept";
		server.createReleased(NAMESPACE, lease);
		replica(lease, "a").withPropertyValues("leader.election.release-on-shutdown=false").run((context) -> {
			ElectionEngine engine = context.getBean(ElectionEngine.class);
			ready(context, true);
			await().atMost(WAIT).until(engine::isLeader);
			ready(context, false);
			assertThat(engine.isLeader()).isFalse();
			await().atMost(WAIT).untilAsserted(() -> assertThat(engine.health("default").lastRelease())
				.extracting(StepDown::release)
				.isEqualTo(StepDown.Release.NOT_WRITTEN));
			assertThat(server.lease(NAMESPACE, lease).getSpec().getHolderIdentity()).isEqualTo("a");
			assertThat(context.getBean(Revocations.class).causes).containsExactly(RevocationCause.NOT_READY);
		});
	}

	@Test
	void theReleaseWaitsForTheLeaderOnlyWorkUnderWay() throws Exception {
		String lease = "draining";
		server.createReleased(NAMESPACE, lease);
		replica(lease, "a").withBean(SlowJob.class).run((context) -> {
			ElectionEngine engine = context.getBean(ElectionEngine.class);
			SlowJob job = context.getBean(SlowJob.class);
			ready(context, true);
			await().atMost(WAIT).until(engine::isLeader);
			Future<String> call = this.callers.submit(job::run);
			assertThat(job.awaitStarted()).isTrue();
			ready(context, false);
			assertThat(engine.isLeader()).isFalse();
			assertThat(job.run()).as("a call after the step-down").isNull();
			// still held while the call runs: no successor may start leader work yet
			assertThat(server.lease(NAMESPACE, lease).getSpec().getHolderIdentity()).isEqualTo("a");
			job.finish();
			assertThat(call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("done");
			await().atMost(WAIT)
				.untilAsserted(() -> assertThat(server.lease(NAMESPACE, lease).getSpec().getHolderIdentity())
					.isNullOrEmpty());
		});
	}

	@Test
	void readinessFlipsOfTwoReplicasNeverLetBothLead() {
		String lease = "two-replicas";
		server.createReleased(NAMESPACE, lease);
		GateHistory gates = new GateHistory();
		replica(lease, "a").withBean("gates", ElectionListener.class, () -> gates.recorderFor("a"))
			.run((a) -> replica(lease, "b").withBean("gates", ElectionListener.class, () -> gates.recorderFor("b"))
				.run((b) -> {
			ElectionEngine engineA = a.getBean(ElectionEngine.class);
			ElectionEngine engineB = b.getBean(ElectionEngine.class);
			ready(a, true);
			await().atMost(WAIT).until(engineA::isLeader);
			ready(b, true);
			for (int flip = 0; flip < 3; flip++) {
				// the leader refuses traffic: the other takes over at once, from the release
				ready(a, false);
				await().atMost(WAIT).until(engineB::isLeader);
				ready(a, true);
				ready(b, false);
				await().atMost(WAIT).until(engineA::isLeader);
				ready(b, true);
			}
			assertThat(engineB.isLeader()).isFalse();
			gates.assertNoOverlap("default");
			assertThat(a.getBean(Revocations.class).causes).containsOnly(RevocationCause.NOT_READY).hasSize(3);
			assertThat(b.getBean(Revocations.class).causes).containsOnly(RevocationCause.NOT_READY).hasSize(3);
		}));
	}

	@Test
	void withCampaignWhenReadyOffReadinessIsIgnored() {
		String lease = "ignoring-readiness";
		server.createReleased(NAMESPACE, lease);
		replica(lease, "a").withPropertyValues("leader.election.campaign-when-ready=false").run((context) -> {
			ElectionEngine engine = context.getBean(ElectionEngine.class);
			await().atMost(WAIT).until(engine::isLeader);
			ready(context, false);
			assertThat(engine.isLeader()).isTrue();
			assertThat(context.getBean(Revocations.class).causes).isEmpty();
		});
	}

	/**
	 * Not ready, the replica leaves the Lease without holder for longer than a lease duration, in
	 * which a campaigning replica would have claimed it, then leads once ready.
	 */
	private static void claimsNothingUntilReadyThenLeads(ApplicationContext context, String lease) {
		ElectionEngine engine = context.getBean(ElectionEngine.class);
		await().during(LEASE_DURATION.plusSeconds(1)).atMost(WAIT)
			.until(() -> !engine.isLeader() && holder(lease).isEmpty());
		ready(context, true);
		await().atMost(WAIT).until(engine::isLeader);
	}

	private static String holder(String lease) {
		return Objects.toString(server.lease(NAMESPACE, lease).getSpec().getHolderIdentity(), "");
	}

	private static void ready(ApplicationContext context, boolean accepting) {
		AvailabilityChangeEvent.publish(context,
				accepting ? ReadinessState.ACCEPTING_TRAFFIC : ReadinessState.REFUSING_TRAFFIC);
	}

	private ApplicationContextRunner replica(String lease, String identity) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class))
			.withBean(KubernetesClient.class, server::newClient)
			.withBean(Revocations.class)
			.withPropertyValues("leader.election.namespace=" + NAMESPACE, "leader.election.lease-name=" + lease,
					"leader.election.identity=" + identity,
					"leader.election.lease-duration=" + LEASE_DURATION.toSeconds() + "s",
					"leader.election.renew-deadline=2s", "leader.election.retry-period=500ms");
	}

	/** Why one replica's leadership ended, each time. */
	static class Revocations implements ElectionListener {

		final List<RevocationCause> causes = new CopyOnWriteArrayList<>();

		@Override
		public void revoked(String election, RevocationCause cause, long gateClosedAt) {
			this.causes.add(cause);
		}

	}

	/** A leader-only job that runs until told to finish; its latches are reached through methods, past the proxy. */
	static class SlowJob {

		private final CountDownLatch started = new CountDownLatch(1);

		private final CountDownLatch finish = new CountDownLatch(1);

		@LeaderOnly
		public String run() throws InterruptedException {
			this.started.countDown();
			this.finish.await();
			return "done";
		}

		public boolean awaitStarted() throws InterruptedException {
			return this.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}

		public void finish() {
			this.finish.countDown();
		}

	}

}
