package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.StepDown;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link LeaderOnlyInvocations} counts what ran, was skipped and was refused; a refusing
 * {@link LeaderOnlyRegistry} refuses new calls; a step-down releases the Lease only once the calls
 * under way have ended, or leaves it to expire if they outlast the drain timeout.
 */
@ExtendWith(OutputCaptureExtension.class)
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
	void aRefusingRegistryRefusesNewCallsEvenOnTheLeader() {
		Replicas.leader(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Batch batch = context.getBean(Batch.class);
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			context.getBean(LeaderOnlyRegistry.class).refuseCalls();
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
			context.getBean(LeaderOnlyRegistry.class).refuseCalls();
			assertThatExceptionOfType(NotLeaderException.class)
				.isThrownBy(() -> context.getBean(Batch.class).strictly("late"))
				.satisfies((ex) -> assertThat(ex.getHolderIdentity()).isEqualTo(Replicas.OTHER_HOLDER));
			assertThat(context.getBean(LeaderOnlyInvocations.class).count("default", Outcome.REFUSED)).isOne();
		});
	}

	@Test
	void aStepDownReleasesTheLeaseOnlyOnceTheCallUnderWayHasEnded() {
		Replicas.leader(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Batch batch = context.getBean(Batch.class);
			LeaderElector elector = context.getBean(LeaderElector.class);
			String leaseName = elector.status("default").leaseName();
			Future<String> call = this.callers.submit(batch::block);
			try {
				assertThat(batch.entered().await(10, TimeUnit.SECONDS)).isTrue();
				StepDown stepDown = elector.stepDown("default", Duration.ZERO);
				assertThat(stepDown.release()).isEqualTo(StepDown.Release.WAITING_FOR_CALLS);
				assertThat(stepDown.callsUnderWay()).singleElement()
					.asString()
					.startsWith("Batch.block() on thread ");
				// the gate closed at once: new calls are skipped
				assertThat(elector.isLeader()).isFalse();
				assertThat(batch.process("late")).isNull();
				// for longer than a lease duration the Lease stays ours, renewed, so that nobody
				// takes over while the call runs
				Instant heldAt = Replicas.lease(server, leaseName).getSpec().getRenewTime().toInstant();
				await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(4)).until(
						() -> Replicas.lease(server, leaseName).getSpec().getHolderIdentity(),
						(holder) -> elector.identity().equals(holder));
				assertThat(Replicas.lease(server, leaseName).getSpec().getRenewTime().toInstant()).isAfter(heldAt);
				assertThat(call).isNotDone();
				batch.release().countDown();
				await().atMost(Replicas.WAIT)
					.until(() -> Replicas.lease(server, leaseName).getSpec().getHolderIdentity(), String::isEmpty);
				assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("released");
			}
			finally {
				batch.release().countDown();
			}
		});
	}

	@Test
	void aStepDownWaitsForAFutureACallReturnedUntilItCompletes() {
		Replicas.leader(server).withBean(Batch.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Batch batch = context.getBean(Batch.class);
			LeaderElector elector = context.getBean(LeaderElector.class);
			String leaseName = elector.status("default").leaseName();
			CompletableFuture<String> later = batch.later();
			assertThat(later).isNotDone();
			StepDown stepDown = elector.stepDown("default", Duration.ofMillis(300));
			assertThat(stepDown.release()).isEqualTo(StepDown.Release.WAITING_FOR_CALLS);
			assertThat(stepDown.callsUnderWay()).singleElement().asString().startsWith("Batch.later() on thread ");
			assertThat(Replicas.lease(server, leaseName).getSpec().getHolderIdentity()).isEqualTo(elector.identity());
			batch.pending().complete("done");
			await().atMost(Replicas.WAIT)
				.until(() -> Replicas.lease(server, leaseName).getSpec().getHolderIdentity(), String::isEmpty);
		});
	}

	@Test
	void aStepDownWhoseCallOutlastsTheDrainTimeoutLeavesTheLeaseToExpireAndLogsTheCall(CapturedOutput output) {
		// a shutdown phase of 2s leaves 1s for the drain and 1s (the renew deadline) for the release
		Replicas.leader(server)
			.withBean(Batch.class)
			.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=2s")
			.run((context) -> {
				Replicas.awaitLeader(context, "default");
				Batch batch = context.getBean(Batch.class);
				LeaderElector elector = context.getBean(LeaderElector.class);
				String leaseName = elector.status("default").leaseName();
				Future<String> call = this.callers.submit(batch::block);
				try {
					assertThat(batch.entered().await(10, TimeUnit.SECONDS)).isTrue();
					StepDown stepDown = elector.stepDown("default", Duration.ofSeconds(5));
					assertThat(stepDown.release()).isEqualTo(StepDown.Release.NOT_WRITTEN);
					assertThat(stepDown.detail()).startsWith(
							"1 leader-only call(s) still running after the drain timeout of 1000 ms; the Lease expires");
					assertThat(stepDown.callsUnderWay()).singleElement()
						.asString()
						.startsWith("Batch.block() on thread ");
					assertThat(output).contains("does not release Lease leader-only/" + leaseName
							+ " of election 'default': 1 leader-only call(s) still running", "Batch.block() on thread ");
					// never released: the Lease names this replica, and is no longer renewed
					Lease left = Replicas.lease(server, leaseName);
					await().during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(3))
						.until(() -> Replicas.lease(server, leaseName).getMetadata().getResourceVersion(),
								left.getMetadata().getResourceVersion()::equals);
					assertThat(left.getSpec().getHolderIdentity()).isEqualTo(elector.identity());
					assertThat(call).isNotDone();
				}
				finally {
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

		private final CompletableFuture<String> pending = new CompletableFuture<>();

		/** Returns a future that the test completes. */
		@LeaderOnly
		public CompletableFuture<String> later() {
			return this.pending;
		}

		public CompletableFuture<String> pending() {
			return this.pending;
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
