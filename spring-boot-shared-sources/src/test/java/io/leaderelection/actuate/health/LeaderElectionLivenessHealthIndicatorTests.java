package io.leaderelection.actuate.health;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionHealth;
import io.leaderelection.engine.ElectionRuntime;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.ExecutorElectionScheduler;
import io.leaderelection.engine.MonotonicClock;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderElectionLivenessHealthIndicator}: at the limit of its rule, and on a
 * real engine whose loop is wedged while it leads, against fabric8's mock API server in CRUD
 * mode.
 */
class LeaderElectionLivenessHealthIndicatorTests {

	private static final Duration RETRY_PERIOD = Duration.ofSeconds(2);

	@Test
	void leadingOneRetryPeriodPastTheDeadlineIsStillLive() {
		HealthVerdict health = livenessWith(pastDeadlineFor(RETRY_PERIOD));

		assertThat(health.up()).isTrue();
	}

	@Test
	void leadingLongerPastTheDeadlineIsDown() {
		HealthVerdict health = livenessWith(pastDeadlineFor(RETRY_PERIOD.plusMillis(1)));

		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("reason",
				"election 'default': still leading 2.001s past its renew deadline without renewing or stepping down");
	}

	@Test
	void failingCallsAndAStalledFollowerAreLive() {
		ElectionHealth failingFollower = new ElectionHealth("default", Duration.ZERO, Duration.ofMinutes(5),
				"get Lease team-a/orders-leader: 403 Forbidden", Duration.ofMinutes(5), Duration.ofSeconds(15),
				RETRY_PERIOD, null, null, null);

		assertThat(livenessWith(failingFollower).up()).isTrue();
	}

	@Test
	void aLeaderWhoseLoopIsWedgedIsNotLiveUntilTheLoopRunsAgain() throws InterruptedException {
		ScheduledThreadPoolExecutor loop = new ScheduledThreadPoolExecutor(1);
		try (CrudKubernetesServer server = CrudKubernetesServer.start(); KubernetesClient client = server.newClient();
				KubernetesLeaseStores stores = new KubernetesLeaseStores(client, Runnable::run, Runnable::run)) {
			ElectionEngine engine = new ElectionEngine("a",
					List.of(new ElectionSettings("default", "test", "wedged-leader", Duration.ofSeconds(3),
							Duration.ofSeconds(2), Duration.ofMillis(250))),
					stores, new ElectionRuntime(new ExecutorElectionScheduler(loop),
							MonotonicClock.system(), Clock.systemUTC(), Runnable::run, new Random()),
					List.of());
			LeaderElectionLivenessHealthIndicator liveness = new LeaderElectionLivenessHealthIndicator(engine,
					engine::health);
			LeaderElectionHealthIndicator health = new LeaderElectionHealthIndicator(engine, engine::health, "lease", () -> null, List::of);
			engine.start();
			await().until(engine::isLeader);
			assertThat(liveness.check().up()).isTrue();

			CountDownLatch wedge = new CountDownLatch(1);
			loop.execute(() -> awaitQuietly(wedge));

			await().atMost(Duration.ofSeconds(10)).until(() -> !liveness.check().up());
			assertThat(engine.isLeader()).as("the gate closes on time all the same").isFalse();
			assertThat(liveness.check().details().get("reason")).asString()
				.startsWith("election 'default': still leading");
			await().atMost(Duration.ofSeconds(10)).until(() -> !health.check().up());
			assertThat(health.check().details().get("reason")).asString()
				.startsWith("election 'default': its loop has not run for");

			wedge.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> liveness.check().up()
					&& health.check().up());
			engine.stop(false).join();
		}
		finally {
			loop.shutdownNow();
		}
	}

	/** The liveness of an elector whose default election is in the given state, billing healthy. */
	private static HealthVerdict livenessWith(ElectionHealth defaultElection) {
		return new LeaderElectionLivenessHealthIndicator(new StaticLeaderElector(),
				(election) -> "default".equals(election) ? defaultElection : pastDeadlineFor(Duration.ZERO))
			.check();
	}

	private static ElectionHealth pastDeadlineFor(Duration pastDeadline) {
		return new ElectionHealth("default", pastDeadline, Duration.ZERO, null, Duration.ofSeconds(1),
				Duration.ofSeconds(15), RETRY_PERIOD, null, null, null);
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
