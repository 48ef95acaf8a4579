package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.engine.WindowTimes;
import io.leaderelection.memory.InMemoryLeaseStores;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * When a once-per-window job is due, from where it stands and the period its calls come at; and
 * what a grant does once the application closes.
 */
class DueStartsTests {

	private static final Duration SECOND = Duration.ofSeconds(1);

	@Test
	void aCallJustBeforeTheWindowOpensIsDueWhenItOpens() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(990), Duration.ofMillis(10));
		assertThat(DueStarts.dueIn(times, SECOND, SECOND)).isEqualTo(Duration.ofMillis(10));
	}

	@Test
	void aCallOfATimerOutOfStepWithTheLastStartIsDueAWindowAfterIt() {
		// the new leader's timer fires 120 ms after the old leader's start
		WindowTimes times = new WindowTimes(Duration.ofMillis(120), Duration.ofMillis(880));
		assertThat(DueStarts.dueIn(times, SECOND, SECOND)).isEqualTo(Duration.ofMillis(880));
	}

	@Test
	void aWindowShorterThanThePeriodDoesNotMakeTheJobRunAtTheWindowsPace() {
		// fixedRate 60 s, atMostEvery 55 s: due a period after the last start, not when the window opens
		WindowTimes times = new WindowTimes(Duration.ofSeconds(12), Duration.ofSeconds(43));
		assertThat(DueStarts.dueIn(times, Duration.ofSeconds(60), Duration.ofSeconds(55)))
			.isEqualTo(Duration.ofSeconds(48));
	}

	@Test
	void aJobCalledMuchLessOftenThanItsWindowIsNotHeldTillItsNextCall() {
		// a nightly job with a window of 23 hours, called right after another replica's run
		WindowTimes times = new WindowTimes(Duration.ofMillis(200), Duration.ofHours(23).minusMillis(200));
		assertThat(DueStarts.dueIn(times, Duration.ofHours(24), Duration.ofHours(23))).isNull();
	}

	@Test
	void aJobDueAlreadyIsDueNow() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(1500), Duration.ZERO);
		assertThat(DueStarts.dueIn(times, SECOND, SECOND)).isEqualTo(Duration.ZERO);
	}

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
			due.called("default", "jobs.tick", SECOND, () -> runs.add("tick"));
			Thread.sleep(SECOND.toMillis());
			due.called("default", "jobs.tick", SECOND, () -> runs.add("tick"));
			due.close();
			assertThatNoException().isThrownBy(() -> registry.start("default"));
			assertThat(runs).isEmpty();
		}
	}

	@Test
	void withoutAPeriodNothingIsDue() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(100), Duration.ofMillis(900));
		assertThat(DueStarts.dueIn(times, null, SECOND)).isNull();
	}

}
