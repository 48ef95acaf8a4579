package io.leaderelection.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.leaderelection.RevocationCause;
import io.leaderelection.memory.InMemoryLeaseStores;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing the elector's threads while a lane is busy: what the engine handed a lane before the
 * close (a revocation, the stop of leader work) still runs, in order, within the close's bound.
 */
class LeaderElectionThreadsTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@Test
	void aTaskQueuedInALaneBehindOneStillRunningRunsWhenTheThreadsCloseMeanwhile() throws Exception {
		LeaderElectionThreads threads = new LeaderElectionThreads();
		Executor lane = new SerialExecutor(threads.runtime().callbackExecutor(), "a lane");
		CountDownLatch firstRunning = new CountDownLatch(1);
		CountDownLatch firstMayEnd = new CountDownLatch(1);
		List<String> ran = new CopyOnWriteArrayList<>();
		lane.execute(() -> {
			firstRunning.countDown();
			awaitUninterruptibly(firstMayEnd);
			ran.add("first");
		});
		lane.execute(() -> ran.add("second"));
		assertThat(firstRunning.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

		Thread closing = closeOnAnotherThread(threads);
		firstMayEnd.countDown();
		closing.join(WAIT.toMillis());

		assertThat(closing.isAlive()).isFalse();
		assertThat(ran).containsExactly("first", "second");
	}

	@Test
	void whileClosingALaneRunsPastAnotherLaneBlockedInUserCodeThoughTheWatchdogIsShutDown() throws Exception {
		ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
		ElasticExecutor callbacks = new ElasticExecutor(DaemonThreads.named("closing-test-"), watchdog,
				Duration.ofMillis(50));
		Executor blockedLane = new SerialExecutor(callbacks, "a blocked lane");
		Executor otherLane = new SerialExecutor(callbacks, "another lane");
		CountDownLatch blocking = new CountDownLatch(1);
		CountDownLatch mayReturn = new CountDownLatch(1);
		CountDownLatch otherRan = new CountDownLatch(1);
		// closing shuts the watchdog down first, before it added a thread for the blocked call
		watchdog.shutdownNow();
		blockedLane.execute(() -> {
			blocking.countDown();
			awaitUninterruptibly(mayReturn);
		});
		assertThat(blocking.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		otherLane.execute(otherRan::countDown);

		Thread closing = new Thread(() -> {
			try {
				callbacks.shutdown(WAIT);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "closing");
		closing.start();

		assertThat(otherRan.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("ran while the other lane blocks")
			.isTrue();
		mayReturn.countDown();
		closing.join(WAIT.toMillis());
		assertThat(closing.isAlive()).isFalse();
	}

	@Test
	void aRevocationQueuedBehindAListenerCallStillRunningIsMadeWhenTheThreadsClose() throws Exception {
		LeaderElectionThreads threads = new LeaderElectionThreads();
		CountDownLatch grantedCalled = new CountDownLatch(1);
		CountDownLatch grantedMayReturn = new CountDownLatch(1);
		List<String> calls = new CopyOnWriteArrayList<>();
		ElectionListener slowToHearOfAGrant = new ElectionListener() {

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				calls.add("granted");
				grantedCalled.countDown();
				awaitUninterruptibly(grantedMayReturn);
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				calls.add("revoked " + cause);
			}

		};
		ElectionSettings election = new ElectionSettings("default", "test", "lease", Duration.ofSeconds(3),
				Duration.ofSeconds(2), Duration.ofMillis(500));
		try (InMemoryLeaseStores stores = InMemoryLeaseStores.forOneProcess()) {
			ElectionEngine engine = new ElectionEngine("a", List.of(election), stores, threads.runtime(),
					List.of(slowToHearOfAGrant));
			engine.start();
			assertThat(grantedCalled.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			// the process is killed: no release, the revocation queued behind the grant's call
			engine.stop(false);
			assertThat(engine.isLeader("default")).isFalse();

			Thread closing = closeOnAnotherThread(threads);
			grantedMayReturn.countDown();
			closing.join(WAIT.toMillis());

			assertThat(closing.isAlive()).isFalse();
			assertThat(calls).containsExactly("granted", "revoked SHUTDOWN");
		}
	}

	/** Starts closing the threads, and returns once the close waits for what the lanes were handed. */
	private static Thread closeOnAnotherThread(LeaderElectionThreads threads) {
		Thread closing = new Thread(() -> {
			try {
				threads.close();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "closing");
		closing.start();
		await().atMost(WAIT).until(() -> closing.getState() == Thread.State.TIMED_WAITING);
		return closing;
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		boolean interrupted = false;
		while (true) {
			try {
				latch.await();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
