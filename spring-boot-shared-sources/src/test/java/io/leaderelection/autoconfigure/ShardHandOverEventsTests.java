package io.leaderelection.autoconfigure;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.leaderelection.LeaderElector;
import io.leaderelection.RevocationCause;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.actuate.metrics.ElectionEventMetrics;
import io.leaderelection.engine.MonotonicClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shard handed over to another replica, so that a balanced group stays spread, is revoked as
 * any leadership that ends: the event names the shard, the metrics count it, and it is not a loss
 * that {@code on-lost=exit} acts on.
 */
class ShardHandOverEventsTests {

	private static final String SHARD = "orders-1-of-4";

	@Test
	void aHandedOverShardIsRevokedUnderItsNameCountedAndNotALoss() {
		List<String> revoked = new CopyOnWriteArrayList<>();
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("leaderElector", new StaticLeaderElector());
		LeaderEventBridge bridge = new LeaderEventBridge(new RecordingPublisher(revoked),
				beans.getBeanProvider(LeaderElector.class));
		AtomicInteger exits = new AtomicInteger();
		ExitOnLostLeadership exitOnLost = new ExitOnLostLeadership(exits::incrementAndGet);
		ElectionEventMetrics metrics = new ElectionEventMetrics(List.of(SHARD), MonotonicClock.system(),
				Clock.systemUTC());
		MeterRegistry registry = new SimpleMeterRegistry();
		metrics.bindTo(registry);

		long now = MonotonicClock.system().nanoTime();
		bridge.revoked(SHARD, RevocationCause.HANDED_OVER, now);
		exitOnLost.revoked(SHARD, RevocationCause.HANDED_OVER, now);
		metrics.revoked(SHARD, RevocationCause.HANDED_OVER, now);

		assertThat(revoked).containsExactly(SHARD);
		assertThat(exits).hasValue(0);
		assertThat(registry.get("leader.election.transitions").tags("election", SHARD, "event", "revoked").counter()
			.count()).isOne();
		exitOnLost.revoked(SHARD, RevocationCause.LEASE_TAKEN, now);
		assertThat(exits).hasValue(1);
	}

	/** Records the role of every revocation. */
	private record RecordingPublisher(List<String> revoked) implements LeaderEventPublisher {

		@Override
		public void publishOnGranted(Object source, Context context, String role) {
		}

		@Override
		public void publishOnRevoked(Object source, Context context, String role) {
			this.revoked.add(context.getRole());
		}

		@Override
		public void publishOnFailedToAcquire(Object source, Context context, String role) {
		}

	}

}
