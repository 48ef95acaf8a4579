package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.actuate.health.LeaderElectionHealthContributorAutoConfiguration;
import io.leaderelection.actuate.health.LeaderElectionHealthIndicator;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A gated lifecycle bean whose {@code start()} throws on a grant is not left silently stopped:
 * the failure shows in the {@code leaderElection} health details of its election
 * ({@code gatedWorkFailure}, naming the bean) until a later start succeeds, and the bean is
 * started again at the next grant.
 */
class LeaderOnlyLifecycleFailureTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private static final Duration LEASE_DURATION = Duration.ofSeconds(2);

	/**
	 * First grant: {@code start()} throws, the health details name the bean and the cause, the
	 * health stays UP (following or leading without the bean is no reason to restart the pod).
	 * The failure still shows after a step-down; after staying out for a lease duration the
	 * replica is granted again, the bean starts, and the failure is cleared.
	 */
	@Test
	void aGatedBeanFailingToStartShowsInTheHealthDetailsAndIsStartedAgainAtTheNextGrant() {
		Replicas.leader(server)
			.withConfiguration(AutoConfigurations.of(LeaderElectionHealthContributorAutoConfiguration.class))
			.withBean("flakyPoller", FailsToStartOnce.class)
			.run((context) -> {
				Replicas.awaitLeader(context, "default");
				FailsToStartOnce poller = context.getBean(FailsToStartOnce.class);
				await("gatedWorkFailure in the health details").atMost(Replicas.WAIT)
					.until(() -> gatedWorkFailure(context) != null);

				assertThat(healthIndicator(context).health().getStatus().getCode()).isEqualTo("UP");
				assertThat(gatedWorkFailure(context)).contains("leader-only bean 'flakyPoller' failed to start",
						"broker unreachable");
				assertThat(poller.starts()).isOne();
				assertThat(poller.isRunning()).isFalse();

				LeaderElector elector = context.getBean(LeaderElector.class);
				long steppedDownAt = System.nanoTime();
				elector.stepDown("default");
				assertThat(elector.isLeader()).isFalse();
				assertThat(gatedWorkFailure(context)).as("the failure, after the step-down and before the next grant")
					.contains("'flakyPoller'");

				Replicas.awaitLeader(context, "default");
				long grantedAgainAt = System.nanoTime();
				await("the bean started at the next grant").atMost(Replicas.WAIT).until(poller::isRunning);
				assertThat(Duration.ofNanos(grantedAgainAt - steppedDownAt)).as("time out of the election")
					.isGreaterThanOrEqualTo(LEASE_DURATION);
				assertThat(poller.starts()).isEqualTo(2);
				await("gatedWorkFailure cleared").atMost(Replicas.WAIT).until(() -> gatedWorkFailure(context) == null);
				assertThat(electionDetails(context)).doesNotContainKey("gatedWorkFailure");
			});
	}

	private static LeaderElectionHealthIndicator healthIndicator(ApplicationContext context) {
		return context.getBean(LeaderElectionHealthIndicator.class);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> electionDetails(ApplicationContext context) {
		Map<String, Object> elections = (Map<String, Object>) healthIndicator(context).health()
			.getDetails()
			.get("elections");
		return (Map<String, Object>) elections.get("default");
	}

	private static String gatedWorkFailure(ApplicationContext context) {
		return (String) electionDetails(context).get("gatedWorkFailure");
	}

	/** Stands for a listener container whose broker is unreachable at the first start. */
	@LeaderOnly
	static class FailsToStartOnce extends FlagLifecycle {

		private final AtomicInteger starts = new AtomicInteger();

		@Override
		public void start() {
			if (this.starts.incrementAndGet() == 1) {
				throw new IllegalStateException("broker unreachable");
			}
			super.start();
		}

		public int starts() {
			return this.starts.get();
		}

	}

}
