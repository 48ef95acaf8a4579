package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code leader.election.enabled=false} nothing is gated: no proxies, every
 * {@code @LeaderOnly} body runs, lifecycle beans start with the context.
 */
class LeaderOnlyDisabledTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	@Test
	void disabledElectionLeavesLeaderOnlyBeansUnproxiedAndTheirBodiesRun() {
		// a Lease held by another candidate: were the elector running, this replica would follow
		Replicas.follower(server)
			.withPropertyValues("leader.election.enabled=false")
			.withBean(Jobs.class)
			.withBean(Poller.class)
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(LeaderElector.class)
					.doesNotHaveBean(LeaderOnlyPostProcessor.class)
					.doesNotHaveBean(LeaderOnlyRegistry.class)
					.doesNotHaveBean(LeaderOnlyInvocations.class);
				Jobs jobs = context.getBean(Jobs.class);
				Poller poller = context.getBean(Poller.class);
				assertThat(AopUtils.isAopProxy(jobs)).isFalse();
				assertThat(AopUtils.isAopProxy(poller)).isFalse();
				assertThat(jobs.run("a")).isEqualTo("a");
				assertThat(jobs.strictly("b")).isEqualTo("b");
				assertThat(jobs.billing("c")).isEqualTo("c");
				assertThat(jobs.ran).containsExactly("a", "b", "c");
				assertThat(poller.isRunning()).isTrue();
			});
	}

	static class Jobs {

		final List<String> ran = new CopyOnWriteArrayList<>();

		@LeaderOnly
		public String run(String job) {
			this.ran.add(job);
			return job;
		}

		@LeaderOnly(throwIfNotLeader = true)
		public String strictly(String job) {
			this.ran.add(job);
			return job;
		}

		/** Names an election that is not configured: no matter, nothing is checked. */
		@LeaderOnly("billing")
		public String billing(String job) {
			this.ran.add(job);
			return job;
		}

	}

	@LeaderOnly
	static class Poller implements SmartLifecycle {

		private volatile boolean running;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

	}

}
