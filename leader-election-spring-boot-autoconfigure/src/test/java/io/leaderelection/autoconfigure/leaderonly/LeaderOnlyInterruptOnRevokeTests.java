package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When leadership is revoked, leader-only calls still running are counted, and those whose
 * annotation opts in with {@code interruptOnRevoke} are interrupted; the interrupt does not
 * outlive the call on a pooled thread.
 */
class LeaderOnlyInterruptOnRevokeTests {

	private static MockLeaseServer server;

	/** One thread each, so that the next task shows what the call left on its thread. */
	private final ExecutorService interruptiblePool = Executors.newSingleThreadExecutor();

	private final ExecutorService politePool = Executors.newSingleThreadExecutor();

	@BeforeAll
	static void startServer() {
		server = MockLeaseServer.start();
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

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

	private static boolean interruptFlag() {
		return Thread.currentThread().isInterrupted();
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
