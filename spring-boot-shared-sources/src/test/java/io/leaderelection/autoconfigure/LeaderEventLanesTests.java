package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each election calls its listeners on a lane of its own, and starts and stops its gated work on
 * another: an {@code OnGrantedEvent} listener of election {@code a} that blocks for a minute holds
 * up only the later events of {@code a}. It delays neither the events and gated beans of election
 * {@code b}, nor stopping {@code a}'s own gated bean and interrupting {@code a}'s
 * {@code interruptOnRevoke} calls when {@code a} steps down.
 */
class LeaderEventLanesTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private static final String NAMESPACE = "lanes";

	/**
	 * How soon work that does not wait behind the blocked listener must happen: the event
	 * threads add a thread once a call has blocked one for 100 ms; far below the minute the
	 * listener blocks.
	 */
	private static final Duration PROMPTLY = Duration.ofSeconds(2);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	private final ExecutorService callers = Executors.newCachedThreadPool();

	@AfterEach
	void stopCallers() {
		this.callers.shutdownNow();
	}

	/**
	 * While {@code a}'s grant listener blocks, election {@code b} is granted, its listeners hear
	 * of it and its gated bean starts; {@code b} steps down, its listeners hear of that and its
	 * bean stops: all within {@link #PROMPTLY}.
	 */
	@Test
	void aGrantListenerOfOneElectionBlockingForAMinuteDelaysNeitherTheEventsNorTheGatedBeansOfAnother() {
		String prefix = freshPrefix();
		server.createReleased(NAMESPACE, prefix + "-a");
		// held by another for long: b is not granted until that one lets it go
		server.createHeld(NAMESPACE, prefix + "-b", "another-replica", 60);
		replica(prefix).run((context) -> {
			BlockingGrantListenerOfA blocking = context.getBean(BlockingGrantListenerOfA.class);
			try {
				assertThat(blocking.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS))
					.as("a's grant listener was called")
					.isTrue();
				// b's Lease is released only now, so b is granted while a's listener blocks
				server.release(NAMESPACE, prefix + "-b");
				LeaderElector elector = context.getBean(LeaderElector.class);
				LeaderEvents events = context.getBean(LeaderEvents.class);
				GatedWorkOfB gatedB = context.getBean(GatedWorkOfB.class);
				await("b leads").atMost(WAIT).until(() -> elector.isLeader("b"));
				long bLeadsAt = System.nanoTime();

				await("b's OnGrantedEvent heard and b's gated bean started").atMost(PROMPTLY)
					.until(() -> events.heard("b", OnGrantedEvent.class) && gatedB.isRunning());

				elector.stepDown("b");
				long bSteppedDownAt = System.nanoTime();
				await("b's OnRevokedEvent heard and b's gated bean stopped").atMost(PROMPTLY)
					.until(() -> events.heard("b", OnRevokedEvent.class) && !gatedB.isRunning());

				assertThat(Duration.ofNanos(events.firstHeardAt("b", OnGrantedEvent.class) - bLeadsAt))
					.as("from b's gate opening (as seen by the test) to its OnGrantedEvent")
					.isLessThan(PROMPTLY);
				assertThat(Duration.ofNanos(events.firstHeardAt("b", OnRevokedEvent.class) - bSteppedDownAt))
					.as("from b's step-down to its OnRevokedEvent")
					.isLessThan(PROMPTLY);
				assertThat(blocking.returned).as("a's grant listener returned").isFalse();
				assertThat(elector.isLeader("a")).as("a still leads, its renewals never waited").isTrue();
			}
			finally {
				blocking.unblock.countDown();
			}
		});
	}

	/**
	 * While {@code a}'s grant listener blocks, {@code a} steps down: its gated bean is stopped and
	 * its {@code interruptOnRevoke} call interrupted within {@link #PROMPTLY}; only {@code a}'s
	 * {@code OnRevokedEvent} waits, as the events of one election keep their order, and follows
	 * once the grant listener returns.
	 */
	@Test
	void aBlockedGrantListenerDelaysNeitherStoppingItsElectionsGatedBeanNorInterruptingItsCalls() throws Exception {
		String prefix = freshPrefix();
		server.createReleased(NAMESPACE, prefix + "-a");
		replica(prefix).run((context) -> {
			BlockingGrantListenerOfA blocking = context.getBean(BlockingGrantListenerOfA.class);
			try {
				assertThat(blocking.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS))
					.as("a's grant listener was called")
					.isTrue();
				LeaderElector elector = context.getBean(LeaderElector.class);
				LeaderEvents events = context.getBean(LeaderEvents.class);
				GatedWorkOfA gatedA = context.getBean(GatedWorkOfA.class);
				SlowCallsOfA calls = context.getBean(SlowCallsOfA.class);
				// started on a's work lane, not behind its blocked listener
				await("a's gated bean started").atMost(PROMPTLY).until(gatedA::isRunning);
				Future<String> call = this.callers.submit(calls::sleepForAMinute);
				assertThat(calls.entered().await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the call started").isTrue();

				long steppedDownAt = System.nanoTime();
				elector.stepDown("a");

				assertThat(elector.isLeader("a")).as("a's gate after the step-down").isFalse();
				assertThat(call.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("interrupted");
				await("a's gated bean stopped").atMost(PROMPTLY).until(() -> !gatedA.isRunning());
				assertThat(Duration.ofNanos(gatedA.stoppedAt() - steppedDownAt))
					.as("from a's step-down to its gated bean stopping")
					.isLessThan(PROMPTLY);
				assertThat(events.heard("a", OnRevokedEvent.class))
					.as("a's OnRevokedEvent heard while a's grant listener still blocks")
					.isFalse();
				assertThat(blocking.returned).as("a's grant listener returned").isFalse();
				// the interrupted call has ended, so the release was written
				await("a's Lease released").atMost(WAIT)
					.until(() -> server.lease(NAMESPACE, prefix + "-a").getSpec().getHolderIdentity(), String::isEmpty);

				blocking.unblock.countDown();
				await("a's OnRevokedEvent heard").atMost(WAIT).until(() -> events.heard("a", OnRevokedEvent.class));
				assertThat(events.firstHeardAt("a", OnRevokedEvent.class))
					.as("a's OnRevokedEvent, after a's grant listener returned")
					.isGreaterThan(blocking.returnedAt);
			}
			finally {
				blocking.unblock.countDown();
			}
		});
	}

	private static String freshPrefix() {
		return "lanes-" + SEQUENCE.incrementAndGet();
	}

	/**
	 * One replica with elections {@code a} and {@code b}, on Leases named after the prefix; the
	 * default election's Lease is left missing and plays no part.
	 */
	private static ApplicationContextRunner replica(String prefix) {
		return new ApplicationContextRunner()
			.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class))
			.withBean(KubernetesClient.class, server::newClient)
			.withBean(LeaderEvents.class)
			.withBean(BlockingGrantListenerOfA.class)
			.withBean(GatedWorkOfA.class)
			.withBean(GatedWorkOfB.class)
			.withBean(SlowCallsOfA.class)
			.withPropertyValues("leader.election.namespace=" + NAMESPACE, "leader.election.lease-name=" + prefix,
					"leader.election.identity=" + prefix + "-replica", "leader.election.lease-duration=2s",
					"leader.election.renew-deadline=1s", "leader.election.retry-period=250ms",
					"leader.election.elections.a.lease-name=" + prefix + "-a",
					"leader.election.elections.b.lease-name=" + prefix + "-b");
	}

	/** Every leader event heard, with when it was heard. */
	static class LeaderEvents {

		private final List<Heard> heard = new CopyOnWriteArrayList<>();

		@EventListener
		void on(AbstractLeaderEvent event) {
			this.heard.add(new Heard(event.getRole(), event.getClass(), System.nanoTime()));
		}

		boolean heard(String election, Class<? extends AbstractLeaderEvent> type) {
			return this.heard.stream().anyMatch((heard) -> heard.election.equals(election) && heard.type == type);
		}

		long firstHeardAt(String election, Class<? extends AbstractLeaderEvent> type) {
			return this.heard.stream()
				.filter((heard) -> heard.election.equals(election) && heard.type == type)
				.mapToLong(Heard::at)
				.findFirst()
				.orElseThrow();
		}

		record Heard(String election, Class<?> type, long at) {
		}

	}

	/** Blocks for a minute, or until the test lets it go, on the first grant of election {@code a}. */
	static class BlockingGrantListenerOfA {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch unblock = new CountDownLatch(1);

		volatile boolean returned;

		volatile long returnedAt;

		@EventListener
		void granted(OnGrantedEvent event) throws InterruptedException {
			if ("a".equals(event.getRole()) && this.entered.getCount() > 0) {
				this.entered.countDown();
				this.unblock.await(1, TimeUnit.MINUTES);
				this.returnedAt = System.nanoTime();
				this.returned = true;
			}
		}

	}

	/** Stands for a message listener container or a poller. */
	abstract static class GatedWork implements SmartLifecycle {

		private volatile boolean running;

		private volatile long stoppedAt;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.stoppedAt = System.nanoTime();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		/** When it last stopped; public, as the test reads it through the proxy. */
		public long stoppedAt() {
			return this.stoppedAt;
		}

	}

	@LeaderOnly("a")
	static class GatedWorkOfA extends GatedWork {

	}

	@LeaderOnly("b")
	static class GatedWorkOfB extends GatedWork {

	}

	static class SlowCallsOfA {

		private final CountDownLatch entered = new CountDownLatch(1);

		/** Sleeps for a minute unless interrupted. */
		@LeaderOnly(value = "a", interruptOnRevoke = true)
		public String sleepForAMinute() {
			this.entered.countDown();
			try {
				Thread.sleep(60_000);
				return "slept";
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return "interrupted";
			}
		}

		/** Public, as the test reads it through the proxy. */
		public CountDownLatch entered() {
			return this.entered;
		}

	}

}
