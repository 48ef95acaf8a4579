package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link LeaderOnlyInvocations} counts what ran, was skipped and was refused; a draining
 * {@link LeaderOnlyRegistry} refuses new calls and waits, bounded, for the calls under way.
 */
class LeaderOnlyInvocationsAndDrainTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ExecutorService callers = Executors.newCachedThreadPool();

	@AfterEach
	void stopCallers() {
		this.callers.shutdownNow();
	}

	@Test
	void executedAndSkippedCallsAreCountedPerElectionAsTheyRan() {
		Replicas.leader(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Batch batch = context.getBean(Batch.class);
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			assertThat(batch.process("a")).isEqualTo("a");
			assertThat(batch.process("b")).isEqualTo("b");
			assertThat(batch.process("c")).isEqualTo("c");
			assertThat(invocations.count("default", Outcome.EXECUTED)).isEqualTo(3);
			assertThat(invocations.count("default", Outcome.SKIPPED)).isZero();
			LeaderElector elector = context.getBean(LeaderElector.class);
			elector.stepDown("default");
			assertThat(batch.process("d")).isNull();
			assertThat(batch.process("e")).isNull();
			assertThat(batch.processed()).containsExactly("a", "b", "c");
			assertThat(invocations.count("default", Outcome.EXECUTED)).isEqualTo(3);
			assertThat(invocations.count("default", Outcome.SKIPPED)).isEqualTo(2);
			assertThat(invocations.count("default", Outcome.REFUSED)).isZero();
			assertThat(invocations.count("other", Outcome.EXECUTED)).isZero();
			// let the release that stepDown sends reach the server before the context closes
			String leaseName = elector.status("default").leaseName();
			await().atMost(Replicas.WAIT)
				.until(() -> Replicas.lease(server, leaseName).getSpec().getHolderIdentity(),
						(holder) -> holder == null || holder.isEmpty());
		});
	}

	@Test
	void aDrainingRegistryRefusesNewCallsEvenOnTheLeader() {
		Replicas.leader(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Batch batch = context.getBean(Batch.class);
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			CompletableFuture<Void> drained = context.getBean(LeaderOnlyRegistry.class).drain(Duration.ofSeconds(5));
			// nothing was running
			assertThat(drained).isDone();
			assertThat(context.getBean(LeaderElector.class).isLeader()).isTrue();
			assertThat(batch.process("late")).isNull();
			assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> batch.strictly("late"))
				.satisfies((ex) -> assertThat(ex.getElection()).isEqualTo("default"));
			assertThat(batch.processed()).isEmpty();
			assertThat(invocations.count("default", Outcome.REFUSED)).isEqualTo(2);
			assertThat(invocations.count("default", Outcome.EXECUTED)).isZero();
			assertThat(invocations.count("default", Outcome.SKIPPED)).isZero();
		});
	}

	@Test
	void aRefusalOnAFollowerNamesTheHolderItSaw() {
		Replicas.follower(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitFollower(context, "default");
			context.getBean(LeaderOnlyRegistry.class).drain(Duration.ofSeconds(5));
			assertThatExceptionOfType(NotLeaderException.class)
				.isThrownBy(() -> context.getBean(Batch.class).strictly("late"))
				.satisfies((ex) -> assertThat(ex.getHolderIdentity()).isEqualTo(Replicas.OTHER_HOLDER));
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.REFUSED)).isOne();
		});
	}

	@Test
	void drainWaitsForTheCallUnderWayUntilItEnds() {
		Replicas.leader(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Batch batch = context.getBean(Batch.class);
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			Future<String> call = this.callers.submit(batch::block);
			try {
				assertThat(batch.entered().await(10, TimeUnit.SECONDS)).isTrue();
				CompletableFuture<Void> drained = context.getBean(LeaderOnlyRegistry.class)
					.drain(Duration.ofSeconds(30));
				assertThat(drained).isNotDone();
				// a new call is refused while the one under way keeps the drain waiting
				assertThat(batch.process("late")).isNull();
				await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !drained.isDone());
				assertThat(call).isNotDone();
				batch.release().countDown();
				await().atMost(Replicas.WAIT).until(drained::isDone);
				assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("released");
			}
			finally {
				batch.release().countDown();
			}
			assertThat(invocations.count("default", Outcome.EXECUTED)).isOne();
			assertThat(invocations.count("default", Outcome.REFUSED)).isOne();
			assertThat(invocations.count("default", Outcome.SKIPPED)).isZero();
		});
	}

	@Test
	void drainCompletesAfterItsTimeoutWhenTheCallUnderWayNeverEnds() {
		Replicas.leader(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Batch batch = context.getBean(Batch.class);
			Future<String> call = this.callers.submit(batch::block);
			try {
				assertThat(batch.entered().await(10, TimeUnit.SECONDS)).isTrue();
				long startedAt = System.nanoTime();
				CompletableFuture<Void> drained = context.getBean(LeaderOnlyRegistry.class)
					.drain(Duration.ofMillis(500));
				assertThat(drained).isNotDone();
				await().atMost(Replicas.WAIT).until(drained::isDone);
				assertThat(Duration.ofNanos(System.nanoTime() - startedAt))
					.isGreaterThanOrEqualTo(Duration.ofMillis(500));
				assertThat(drained).isCompletedWithValue(null);
				// gave up waiting: the call is still under way
				assertThat(call).isNotDone();
			}
			finally {
				// let the context close without waiting for its own drain
				batch.release().countDown();
			}
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("released");
		});
	}

	static class Batch {

		private final List<String> processed = new CopyOnWriteArrayList<>();

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		@LeaderOnly
		public String process(String item) {
			this.processed.add(item);
			return item;
		}

		@LeaderOnly(throwIfNotLeader = true)
		public String strictly(String item) {
			this.processed.add(item);
			return item;
		}

		/** Blocks until released. */
		@LeaderOnly
		public String block() throws InterruptedException {
			this.entered.countDown();
			this.release.await();
			return "released";
		}

		public List<String> processed() {
			return this.processed;
		}

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch release() {
			return this.release;
		}

	}

}
