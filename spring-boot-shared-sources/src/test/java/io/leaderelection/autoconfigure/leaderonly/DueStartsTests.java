package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
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
	void aCallJustBeforeTheWindowOpensIsHeldUntilItOpens() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(990), Duration.ofMillis(10));
		assertThat(DueStarts.heldFor(times, SECOND)).isEqualTo(Duration.ofMillis(10));
	}

	@Test
	void aCallLessThanATenthOfAPeriodAfterTheLastStartIsThatRunsComeLateAndNotHeld() {
		// the new leader's timer fires 50 ms after the old leader's start
		WindowTimes times = new WindowTimes(Duration.ofMillis(50), Duration.ofMillis(950));
		assertThat(DueStarts.heldFor(times, SECOND)).isNull();
	}

	@Test
	void aCallOfATimerOutOfStepWithTheLastStartIsHeldUntilTheWindowOpens() {
		// the new leader's timer fires 300 ms after the old leader's start
		WindowTimes times = new WindowTimes(Duration.ofMillis(300), Duration.ofMillis(700));
		assertThat(DueStarts.heldFor(times, SECOND)).isEqualTo(Duration.ofMillis(700));
	}

	@Test
	void aCallIsNotHeldPastTheNextOne() {
		// a window longer than the period: the next call comes first
		WindowTimes times = new WindowTimes(Duration.ofMillis(600), Duration.ofMillis(1400));
		assertThat(DueStarts.heldFor(times, SECOND)).isNull();
	}

	@Test
	void aNightlyJobCalledJustAfterAnotherReplicasRunIsNotHeldForADay() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(200), Duration.ofHours(23).minusMillis(200));
		assertThat(DueStarts.heldFor(times, Duration.ofHours(24))).isNull();
	}

	@Test
	void withoutAPeriodNothingIsHeld() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(900), Duration.ofMillis(100));
		assertThat(DueStarts.heldFor(times, null)).isNull();
	}

	@Test
	void aReplicaThatTakesOverIsDueAPeriodAfterTheLastStartWhenItsTimerWouldCallLater() {
		// fixedRate 60 s, window 55 s; a's run 12 s ago, b's timer called 10 s ago: it calls again in 50 s
		WindowTimes times = new WindowTimes(Duration.ofSeconds(12), Duration.ofSeconds(43));
		assertThat(DueStarts.dueAfterGrant(Optional.of(times), Duration.ofSeconds(60), Duration.ofSeconds(10)))
			.isEqualTo(Duration.ofSeconds(48));
	}

	@Test
	void aReplicaThatTakesOverLeavesTheJobToItsTimerWhenItCallsFirst() {
		// a's run 12 s ago, b's timer called 30 s ago: it calls again in 30 s, before the job is due
		WindowTimes times = new WindowTimes(Duration.ofSeconds(12), Duration.ofSeconds(43));
		assertThat(DueStarts.dueAfterGrant(Optional.of(times), Duration.ofSeconds(60), Duration.ofSeconds(30)))
			.isNull();
	}

	@Test
	void aReplicaThatTakesOverStartsTheJobWhenItsTimersNextCallWouldBeSkippedAsLate() {
		// a's run 10 ms ago; b's timer calls again in 20 ms, which is a's run's call come late
		WindowTimes justRan = new WindowTimes(Duration.ofMillis(10), Duration.ofMillis(990));
		assertThat(DueStarts.dueAfterGrant(Optional.of(justRan), SECOND, Duration.ofMillis(980)))
			.isEqualTo(Duration.ofMillis(990));
	}

	@Test
	void aReplicaThatTakesOverLeavesTheJobToItsTimerWhenItsNextCallIsHeldUntilDue() {
		// a's run 970 ms ago; b's timer calls again in 10 ms and is held 20 ms
		WindowTimes dueSoon = new WindowTimes(Duration.ofMillis(970), Duration.ofMillis(30));
		assertThat(DueStarts.dueAfterGrant(Optional.of(dueSoon), SECOND, Duration.ofMillis(990))).isNull();
	}

	@Test
	void aReplicaThatTakesOverStartsAnOverdueJobAtOnce() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(1500), Duration.ZERO);
		assertThat(DueStarts.dueAfterGrant(Optional.of(times), SECOND, Duration.ofMillis(100)))
			.isEqualTo(Duration.ZERO);
	}

	@Test
	void aReplicaThatTakesOverStartsAJobThatNeverRanAtOnce() {
		assertThat(DueStarts.dueAfterGrant(Optional.empty(), SECOND, Duration.ofMillis(100))).isEqualTo(Duration.ZERO);
	}

	@Test
	void aReplicaWhoseTimerIsLateStartsTheJobWhenDue() {
		// the grant came 1.2 periods after the timer's last call, whose next one has not come
		WindowTimes times = new WindowTimes(Duration.ofMillis(700), Duration.ofMillis(300));
		assertThat(DueStarts.dueAfterGrant(Optional.of(times), SECOND, Duration.ofMillis(1200)))
			.isEqualTo(Duration.ofMillis(300));
	}

	@Test
	void aReplicaWhoseTimerStoppedCallingStartsNothing() {
		WindowTimes times = new WindowTimes(Duration.ofMillis(1500), Duration.ZERO);
		assertThat(DueStarts.dueAfterGrant(Optional.of(times), SECOND, Duration.ofSeconds(5))).isNull();
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
			due.called("default", "jobs.tick", () -> runs.add("tick"));
			Thread.sleep(SECOND.toMillis());
			due.called("default", "jobs.tick", () -> runs.add("tick"));
			due.close();
			assertThatNoException().isThrownBy(() -> registry.start("default"));
			assertThat(runs).isEmpty();
		}
	}

}
