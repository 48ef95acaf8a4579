package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
			DueStarts due = new DueStarts(new WindowedStarts(engine, registry), registry);
			// calls a second apart: a period the grant below comes within
			due.called("default", "jobs.tick", () -> runs.add("tick"));
			Thread.sleep(SECOND.toMillis());
			due.called("default", "jobs.tick", () -> runs.add("tick"));
			due.close();
			assertThatNoException().isThrownBy(() -> registry.start("default"));
			assertThat(runs).isEmpty();
		}
	}

}
