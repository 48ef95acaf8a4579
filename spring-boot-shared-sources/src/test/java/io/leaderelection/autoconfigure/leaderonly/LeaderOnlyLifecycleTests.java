package io.leaderelection.autoconfigure.leaderonly;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code SmartLifecycle} bean annotated with {@code @LeaderOnly} at type level is not started
 * with the context; it runs while its replica leads.
 */
class LeaderOnlyLifecycleTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	@Test
	void onAFollowerTheBeanIsNotStartedAtRefreshNorByAStartCall() {
		Replicas.follower(server).withBean(Poller.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			assertThat(AopUtils.isAopProxy(poller)).isTrue();
			assertThat(poller.isRunning()).isFalse();
			assertThat(poller.isAutoStartup()).isFalse();
			Replicas.awaitFollower(context, "default");
			assertThat(poller.isRunning()).isFalse();
			// neither a start of the whole context nor a direct call starts it on a follower
			context.start();
			poller.start();
			assertThat(poller.isRunning()).isFalse();
			assertThat(poller.starts()).isZero();
		});
	}

	@Test
	void onTheLeaderTheBeanStartsOnGrantStopsOnStepDownAndStartsAgainOnTheNextGrant() {
		AtomicReference<Poller> closed = new AtomicReference<>();
		Replicas.leader(server).withBean(Poller.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			closed.set(poller);
			Replicas.awaitLeader(context, "default");
			await().atMost(Replicas.WAIT).until(poller::isRunning);
			assertThat(poller.starts()).isOne();
			assertThat(poller.stops()).isZero();
			LeaderElector elector = context.getBean(LeaderElector.class);
			elector.stepDown("default");
			assertThat(elector.isLeader()).isFalse();
			await().atMost(Replicas.WAIT).until(() -> !poller.isRunning());
			assertThat(poller.stops()).isOne();
			// after staying out for a lease duration, it takes the free Lease again
			Replicas.awaitLeader(context, "default");
			await().atMost(Replicas.WAIT).until(poller::isRunning);
			assertThat(poller.starts()).isEqualTo(2);
			assertThat(poller.stops()).isOne();
		});
		// and stopped once more with the context
		assertThat(closed.get().isRunning()).isFalse();
		assertThat(closed.get().stops()).isEqualTo(2);
		assertThat(closed.get().starts()).isEqualTo(2);
	}

	@Test
	void aBeanFailingToStartDoesNotKeepTheOthersFromStarting() {
		Replicas.leader(server).withBean(BrokenStart.class).withBean(MiddlePoller.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			MiddlePoller poller = context.getBean(MiddlePoller.class);
			await().atMost(Replicas.WAIT).until(poller::isRunning);
			assertThat(context.getBean(BrokenStart.class).starts()).isOne();
		});
	}

	@Test
	void aBeanFailingToStopDoesNotKeepTheOthersRunningAfterARevocation() {
		Replicas.leader(server).withBean(BrokenStop.class).withBean(MiddlePoller.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			MiddlePoller poller = context.getBean(MiddlePoller.class);
			BrokenStop broken = context.getBean(BrokenStop.class);
			await().atMost(Replicas.WAIT).until(() -> poller.isRunning() && broken.isRunning());
			context.getBean(LeaderElector.class).stepDown("default");
			// stopped in descending phase order: the broken bean (phase 100) fails first
			await().atMost(Replicas.WAIT).until(() -> broken.stops() > 0);
			await().atMost(Replicas.WAIT).until(() -> !poller.isRunning());
		});
	}

	@Test
	void aBeanFailingToStopDoesNotKeepTheLeaseFromBeingReleasedOnShutdown() {
		String leaseName = Replicas.freshLeaseName();
		Replicas.replica(server, leaseName).withBean(BrokenStop.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			BrokenStop broken = context.getBean(BrokenStop.class);
			await().atMost(Replicas.WAIT).until(broken::isRunning);
			context.close();
			assertThat(broken.stops()).isPositive();
			assertThat(Replicas.lease(server, leaseName).getSpec().getHolderIdentity()).isEmpty();
			assertThat(Replicas.lease(server, leaseName).getSpec().getLeaseDurationSeconds()).isOne();
		});
	}

	/** Started before and stopped after {@link BrokenStop}, after {@link BrokenStart}. */
	static class MiddlePoller extends Poller {

		@Override
		public int getPhase() {
			return 0;
		}

	}

	@LeaderOnly
	static class BrokenStart extends Poller {

		@Override
		public void start() {
			super.start();
			throw new IllegalStateException("cannot start");
		}

		@Override
		public int getPhase() {
			return -100;
		}

	}

	@LeaderOnly
	static class BrokenStop extends Poller {

		@Override
		public void stop() {
			super.stops.incrementAndGet();
			throw new IllegalStateException("cannot stop");
		}

		@Override
		public int getPhase() {
			return 100;
		}

	}

	@LeaderOnly
	static class Poller implements SmartLifecycle {

		private final AtomicInteger starts = new AtomicInteger();

		final AtomicInteger stops = new AtomicInteger();

		private volatile boolean running;

		@Override
		public void start() {
			this.starts.incrementAndGet();
			this.running = true;
		}

		@Override
		public void stop() {
			this.stops.incrementAndGet();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		public int starts() {
			return this.starts.get();
		}

		public int stops() {
			return this.stops.get();
		}

	}

}
