package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @LeaderOnly} together with {@code @EventListener} and with {@code @Async}.
 */
class LeaderOnlyEventListenerAndAsyncTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	// ---- @EventListener

	@Test
	void eventPublishedOnAFollowerDoesNotRunTheListenerBody() {
		Replicas.follower(server).withBean(Payments.class).run((context) -> {
			Replicas.awaitFollower(context, "default");
			context.publishEvent(new PaymentReceived("p-1"));
			Payments payments = context.getBean(Payments.class);
			// delivered (the ungated listener saw it), but the gated body did not run
			assertThat(payments.seen()).containsExactly("p-1");
			assertThat(payments.booked()).isEmpty();
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.SKIPPED)).isOne();
		});
	}

	@Test
	void eventPublishedOnTheLeaderRunsTheListenerBody() {
		Replicas.leader(server).withBean(Payments.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			context.publishEvent(new PaymentReceived("p-1"));
			Payments payments = context.getBean(Payments.class);
			assertThat(payments.seen()).containsExactly("p-1");
			assertThat(payments.booked()).containsExactly("p-1");
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.EXECUTED)).isOne();
		});
	}

	// ---- @Async

	@Test
	void asyncCallOnAFollowerCompletesWithNullAndDoesNotRunTheBody() {
		async(Replicas.follower(server)).run((context) -> {
			Replicas.awaitFollower(context, "default");
			Exports exports = context.getBean(Exports.class);
			CompletableFuture<String> export = exports.export("orders");
			assertThat(export.get(10, TimeUnit.SECONDS)).isNull();
			assertThat(exports.threads()).isEmpty();
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.SKIPPED)).isOne();
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.EXECUTED)).isZero();
		});
	}

	@Test
	void asyncCallOnTheLeaderRunsTheBodyOnAnExecutorThread() {
		async(Replicas.leader(server)).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Exports exports = context.getBean(Exports.class);
			CompletableFuture<String> export = exports.export("orders");
			assertThat(export.get(10, TimeUnit.SECONDS)).isEqualTo("exported orders");
			assertThat(exports.threads()).singleElement()
				.isNotEqualTo(Thread.currentThread().getName())
				.asString()
				.startsWith("task-");
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.EXECUTED)).isOne();
		});
	}

	@Test
	void asyncCallQueuedOnTheLeaderIsSkippedWhenLeadershipEndsBeforeItRuns() {
		async(Replicas.leader(server)).withPropertyValues("spring.task.execution.pool.core-size=1")
			.run((context) -> {
				Replicas.awaitLeader(context, "default");
				Exports exports = context.getBean(Exports.class);
				CountDownLatch occupied = new CountDownLatch(1);
				CountDownLatch release = new CountDownLatch(1);
				CompletableFuture<Void> occupying = exports.occupy(occupied, release);
				CompletableFuture<String> export;
				try {
					assertThat(occupied.await(10, TimeUnit.SECONDS)).isTrue();
					// queued behind the occupying task while this replica leads
					export = exports.export("orders");
					context.getBean(LeaderElector.class).stepDown("default");
					assertThat(export).isNotDone();
				}
				finally {
					release.countDown();
				}
				occupying.get(10, TimeUnit.SECONDS);
				// the gate is read on the executor thread, when the body would run
				assertThat(export.get(10, TimeUnit.SECONDS)).isNull();
				assertThat(exports.threads()).isEmpty();
				assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.SKIPPED)).isOne();
			});
	}

	private static ApplicationContextRunner async(ApplicationContextRunner replica) {
		return replica.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
			.withUserConfiguration(AsyncConfiguration.class)
			.withBean(Exports.class);
	}

	record PaymentReceived(String id) {
	}

	static class Payments {

		private final List<String> seen = new CopyOnWriteArrayList<>();

		private final List<String> booked = new CopyOnWriteArrayList<>();

		@EventListener
		public void see(PaymentReceived payment) {
			this.seen.add(payment.id());
		}

		@EventListener
		@LeaderOnly
		public void book(PaymentReceived payment) {
			this.booked.add(payment.id());
		}

		public List<String> seen() {
			return this.seen;
		}

		public List<String> booked() {
			return this.booked;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

	}

	static class Exports {

		private final List<String> threads = new CopyOnWriteArrayList<>();

		@Async
		@LeaderOnly
		public CompletableFuture<String> export(String table) {
			this.threads.add(Thread.currentThread().getName());
			return CompletableFuture.completedFuture("exported " + table);
		}

		/** Keeps an executor thread busy until released. */
		@Async
		public CompletableFuture<Void> occupy(CountDownLatch occupied, CountDownLatch release)
				throws InterruptedException {
			occupied.countDown();
			release.await();
			return CompletableFuture.completedFuture(null);
		}

		/** The threads the body ran on. */
		public List<String> threads() {
			return this.threads;
		}

	}

}
