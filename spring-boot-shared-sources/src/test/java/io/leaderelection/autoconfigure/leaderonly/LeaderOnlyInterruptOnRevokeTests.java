package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When leadership is revoked, leader-only calls still running are counted, and those whose
 * annotation opts in with {@code interruptOnRevoke} are interrupted; the interrupt does not
 * outlive the call on a pooled thread.
 */
class LeaderOnlyInterruptOnRevokeTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	/** One thread each, so that the next task shows what the call left on its thread. */
	private final ExecutorService interruptiblePool = Executors.newSingleThreadExecutor();

	private final ExecutorService politePool = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopPools() {
		this.interruptiblePool.shutdownNow();
		this.politePool.shutdownNow();
	}

	@Test
	void revocationInterruptsOnlyTheCallsThatOptedInAndCountsEveryCallUnderWay() {
		Replicas.leader(server).withBean(Sync.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Sync sync = context.getBean(Sync.class);
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			Future<String> interruptible = this.interruptiblePool
				.submit(() -> sync.sleepInterruptibly() + ", flag after the call: " + interruptFlag());
			Future<String> polite = this.politePool
				.submit(() -> sync.awaitPolitely() + ", flag after the call: " + interruptFlag());
			try {
				assertThat(sync.entered().await(10, TimeUnit.SECONDS)).isTrue();
				assertThat(invocations.runningAtRevoke("default")).isZero();

				context.getBean(LeaderElector.class).stepDown("default");

				assertThat(interruptible.get(10, TimeUnit.SECONDS))
					.isEqualTo("interrupted, flag after the call: false");
				// the next task on the same pooled thread starts with a clear flag
				assertThat(this.interruptiblePool.submit(LeaderOnlyInterruptOnRevokeTests::interruptFlag)
					.get(10, TimeUnit.SECONDS)).isFalse();
				await().atMost(Replicas.WAIT).until(() -> invocations.runningAtRevoke("default") == 2);
				// the default: not interrupted, still running after the revocation
				await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !polite.isDone());
				sync.release().countDown();
				assertThat(polite.get(10, TimeUnit.SECONDS))
					.isEqualTo("released, flag in the body: false, flag after the call: false");
			}
			finally {
				sync.release().countDown();
			}
			assertThat(invocations.count("default", Outcome.EXECUTED)).isEqualTo(2);
			assertThat(invocations.runningAtRevoke("default")).isEqualTo(2);
		});
	}

	@Test
	void callsEndedBeforeTheRevocationAreNeitherCountedNorInterrupted() {
		Replicas.leader(server).withBean(Sync.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Sync sync = context.getBean(Sync.class);
			sync.release().countDown();
			Future<String> ended = this.politePool
				.submit(() -> sync.awaitPolitely() + ", flag after the call: " + interruptFlag());
			assertThat(ended.get(10, TimeUnit.SECONDS))
				.isEqualTo("released, flag in the body: false, flag after the call: false");
			LeaderElector elector = context.getBean(LeaderElector.class);
			elector.stepDown("default");
			assertThat(elector.isLeader()).isFalse();
			// the revocation is handled on the elector's event thread right away; the next
			// grant comes a lease duration (2s) later, when the stepped-down replica rejoins
			Replicas.awaitLeader(context, "default");
			assertThat(context.getBean(LeaderOnlyInvocations.class).runningAtRevoke("default")).isZero();
			assertThat(this.politePool.submit(LeaderOnlyInterruptOnRevokeTests::interruptFlag)
				.get(10, TimeUnit.SECONDS)).isFalse();
		});
	}

	@Test
	void anInterruptedCallKeepsItsInterruptWhenANestedInterruptedCallReturns() {
		Replicas.leader(server).withBean(Steps.class).withBean(Loop.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Loop loop = context.getBean(Loop.class);
			Future<String> looping = this.interruptiblePool
				.submit(() -> loop.untilInterrupted() + ", flag after the call: " + interruptFlag());
			assertThat(loop.entered().await(10, TimeUnit.SECONDS)).isTrue();
			context.getBean(LeaderElector.class).stepDown("default");
			// Both calls opted in and were interrupted; the nested one must not clear the
			// interrupt the enclosing one is still to see, nor may either leave it behind.
			assertThat(looping.get(20, TimeUnit.SECONDS)).isEqualTo("interrupted, flag after the call: false");
		});
	}

	@Test
	void anEnclosingCallThatDidNotOptInDoesNotSeeTheInterruptOfANestedCall() {
		Replicas.leader(server).withBean(Steps.class).withBean(Loop.class).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Loop loop = context.getBean(Loop.class);
			Future<String> stepping = this.interruptiblePool
				.submit(() -> loop.oneStepPolitely() + ", flag after the call: " + interruptFlag());
			assertThat(loop.entered().await(10, TimeUnit.SECONDS)).isTrue();
			context.getBean(LeaderElector.class).stepDown("default");
			assertThat(stepping.get(20, TimeUnit.SECONDS))
				.isEqualTo("step interrupted, flag in the caller: false, flag after the call: false");
		});
	}

	private static boolean interruptFlag() {
		return Thread.currentThread().isInterrupted();
	}

	static class Steps {

		/** Sleeps a little unless interrupted; keeps the interrupt status. */
		@LeaderOnly(interruptOnRevoke = true)
		public boolean step(CountDownLatch entered) {
			entered.countDown();
			try {
				Thread.sleep(50);
				return true;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		/** Waits for an interrupt; keeps the interrupt status. */
		@LeaderOnly(interruptOnRevoke = true)
		public boolean longStep(CountDownLatch entered) {
			entered.countDown();
			try {
				Thread.sleep(60_000);
				return true;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

	}

	static class Loop {

		private final Steps steps;

		private final CountDownLatch entered = new CountDownLatch(1);

		Loop(Steps steps) {
			this.steps = steps;
		}

		/**
		 * Takes leader-only steps until interrupted (on a follower they are skipped at once),
		 * giving up after ten seconds.
		 */
		@LeaderOnly(interruptOnRevoke = true)
		public String untilInterrupted() {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (!Thread.currentThread().isInterrupted()) {
				if (System.nanoTime() - deadline > 0) {
					return "never interrupted";
				}
				this.steps.step(this.entered);
			}
			return "interrupted";
		}

		/** Not interruptible itself; takes one step that is. */
		@LeaderOnly
		public String oneStepPolitely() {
			boolean completed = this.steps.longStep(this.entered);
			return (completed ? "step completed" : "step interrupted") + ", flag in the caller: "
					+ Thread.currentThread().isInterrupted();
		}

		public CountDownLatch entered() {
			return this.entered;
		}

	}

	static class Sync {

		private final CountDownLatch entered = new CountDownLatch(2);

		private final CountDownLatch release = new CountDownLatch(1);

		/** Sleeps for a minute unless interrupted; keeps the interrupt status, as it should. */
		@LeaderOnly(interruptOnRevoke = true)
		public String sleepInterruptibly() {
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

		/** Waits until released. */
		@LeaderOnly
		public String awaitPolitely() {
			this.entered.countDown();
			try {
				boolean released = this.release.await(60, TimeUnit.SECONDS);
				return (released ? "released" : "timed out") + ", flag in the body: "
						+ Thread.currentThread().isInterrupted();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return "interrupted";
			}
		}

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch release() {
			return this.release;
		}

	}

}
