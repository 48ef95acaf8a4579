package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.memory.InMemoryLeaseStores;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * What a grant does once the application closes. When a job is due is
 * {@code DueStartPolicyTests}' in the core.
 */
class DueStartsTests {

	private static final Duration SECOND = Duration.ofSeconds(1);

	@Test
	void aGrantWhileTheApplicationClosesStartsNothingAndFailsNothing() throws InterruptedException {
		try (LeaderElectionThreads threads = new LeaderElectionThreads();
				InMemoryLeaseStores stores = InMemoryLeaseStores.forOneProcess()) {
			LeaderOnlyRegistry registry = new LeaderOnlyRegistry(new LeaderOnlyInvocations());
			ElectionEngine engine = new ElectionEngine("a", List.of(new ElectionSettings("default", "test", "lease",
					Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(500))), stores, threads.runtime(),
					List.of(), registry, ElectionEngine.DEFAULT_DRAIN_TIMEOUT);
			List<String> runs = new CopyOnWriteArrayList<>();
			AtomicLong now = new AtomicLong();
			DueStarts due = new DueStarts(new WindowedStarts(engine, registry), registry, now::get);
			// calls a second apart: a period the grant below comes within, so that it would start the job
			due.called("default", "jobs.tick", () -> runs.add("tick"));
			now.addAndGet(SECOND.toNanos());
			due.called("default", "jobs.tick", () -> runs.add("tick"));
			due.close();
			assertThatNoException().isThrownBy(() -> registry.start("default"));
			assertThat(due.runsDue("default", "jobs.tick")).as("a run held or running").isFalse();
			assertThat(runs).isEmpty();
		}
	}

}
