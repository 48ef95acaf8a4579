package io.leaderelection.chaos;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.leaderelection.engine.ElectionScheduler;
import io.leaderelection.engine.ExecutorElectionScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link Pause}: a frozen replica's scheduler and executors start nothing until it is
 * thawed, and a freeze armed on an answer takes hold once the next task has run.
 */
class PauseTests {

	/** Long enough for a task that was not held to have run many times over. */
	private static final Duration HELD = Duration.ofMillis(200);

	private final Pause pause = new Pause();

	private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);

	private final ExecutorService blockingCalls = Executors.newFixedThreadPool(2);

	private final ElectionScheduler scheduler = this.pause.pausing(new ExecutorElectionScheduler(this.threads));

	private final AtomicInteger ran = new AtomicInteger();

	@AfterEach
	void close() {
		this.pause.thaw();
		this.threads.shutdownNow();
		this.blockingCalls.shutdownNow();
	}

	@Test
	void aFrozenReplicaStartsNoTaskOfItsSchedulerOrExecutorsUntilThawed() {
		this.pause.freeze();
		this.scheduler.execute(this.ran::incrementAndGet);
		this.scheduler.schedule(this.ran::incrementAndGet, Duration.ofMillis(10).toNanos());
		this.pause.pausing(this.blockingCalls).execute(this.ran::incrementAndGet);
		await().during(HELD).atMost(HELD.multipliedBy(5)).until(() -> this.ran.get() == 0);
		this.pause.thaw();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.get() == 3);
	}

	@Test
	void aFreezeArmedTakesHoldOnceTheNextTaskHasRun() {
		this.pause.freezeAfterNextTask();
		this.scheduler.execute(this.ran::incrementAndGet);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.get() == 1 && this.pause.paused());
		this.scheduler.execute(this.ran::incrementAndGet);
		this.pause.pausing(this.blockingCalls).execute(this.ran::incrementAndGet);
		await().during(HELD).atMost(HELD.multipliedBy(5)).until(() -> this.ran.get() == 1);
		this.pause.thaw();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.get() == 3);
	}

	@Test
	void aFreezeArmedTakesHoldAtTheNextCheckpoint() {
		this.pause.freezeAfterNextTask();
		Thread checking = new Thread(() -> {
			this.pause.checkpoint();
			this.ran.incrementAndGet();
		});
		checking.start();
		await().during(HELD).atMost(HELD.multipliedBy(5)).until(() -> this.ran.get() == 0 && this.pause.paused());
		this.pause.thaw();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.get() == 1);
	}

}
