package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.stream.Stream;

import io.leaderelection.WindowTimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a once-per-window job called on this replica is due, on virtual time: each script is
 * this replica's calls of the job, when the last run started (on any replica) and the job's
 * window, then a leader's call that finds the window closed (held or not) or a grant, and the
 * instant the run then starts, if any. Instants are milliseconds from the script's start.
 */
class DueStartPolicyTests {

	private static final String ELECTION = "default";

	private static final String JOB = "jobs.tick";

	private static final long SECOND = 1000;

	private static final long HOUR = 3600 * SECOND;

	static Stream<Script> heldCalls() {
		return Stream.of(
				held("a call just before the window opens is held until it opens").calls(0, 1000)
					.lastStart(10)
					.window(1000)
					.due(1010),
				held("a call of a timer out of step with the last start is held until the window opens").calls(0, 1000)
					.lastStart(700)
					.window(1000)
					.due(1700),
				held("a call less than a tenth of a period after the last start is that run's come late")
					.calls(0, 1000)
					.lastStart(950)
					.window(1000)
					.notDue(),
				held("a call is not held past the next one").calls(0, 1000).lastStart(400).window(2000).notDue(),
				held("a nightly job called just after another replica's run is not held for a day")
					.calls(0, 24 * HOUR)
					.lastStart(24 * HOUR - 200)
					.window(23 * HOUR)
					.notDue(),
				held("without a period nothing is held").calls(1000).lastStart(100).window(1000).notDue(),
				held("a job that never ran is not held").calls(0, 1000).window(1000).notDue());
	}

	static Stream<Script> grants() {
		return Stream.of(
				granted("a replica that takes over starts the job a period after the last start", 70 * SECOND)
					.calls(0, 60 * SECOND)
					.lastStart(58 * SECOND)
					.window(55 * SECOND)
					.due(118 * SECOND),
				granted("... or when the window opens, if later", 2500).calls(0, 1000)
					.lastStart(2400)
					.window(1200)
					.due(3600),
				granted("a replica that takes over leaves the job to its timer when it calls first", 90 * SECOND)
					.calls(0, 60 * SECOND)
					.lastStart(78 * SECOND)
					.window(55 * SECOND)
					.notDue(),
				granted("... and when its timer's next call is held until due", 1990).calls(0, 1000)
					.lastStart(1020)
					.window(1000)
					.notDue(),
				granted("... but starts it when its timer's next call would be skipped as late", 1980).calls(0, 1000)
					.lastStart(1970)
					.window(1000)
					.due(2970),
				granted("an overdue job starts at once", 2100).calls(1000, 2000).lastStart(600).window(1000).due(2100),
				granted("a job that never ran starts at once", 1100).calls(0, 1000).window(1000).due(1100),
				granted("a replica whose timer is late starts the job when due", 2200).calls(0, 1000)
					.lastStart(1500)
					.window(1000)
					.due(2500),
				granted("... also just under two periods after its last call", 2999).calls(0, 1000)
					.lastStart(2500)
					.window(1000)
					.due(3500),
				granted("a replica whose timer stopped calling (two periods without) starts nothing", 3000)
					.calls(0, 1000)
					.lastStart(2500)
					.window(1000)
					.notDue(),
				granted("a job called once, with no period yet, starts nothing", 1100).calls(1000)
					.lastStart(100)
					.window(1000)
					.notDue(),
				granted("a job of another election starts nothing", 1100).calls(0, 1000)
					.window(1000)
					.grantOf("other")
					.notDue());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource({ "heldCalls", "grants" })
	void aRunStartsWhenDue(Script script) {
		VirtualTime time = new VirtualTime();
		long origin = time.nanoTime();
		List<Long> runsAt = new ArrayList<>();
		Runnable again = () -> runsAt.add(Duration.ofNanos(time.nanoTime() - origin).toMillis());
		DueStartPolicy policy = new DueStartPolicy(time, Runnable::run);
		for (long call : script.calls) {
			time.advanceTo(origin + millis(call));
			policy.called(ELECTION, JOB, time.nanoTime(), again);
		}
		if (script.grantAt == null) {
			assertThat(policy.hold(ELECTION, JOB, script.timesAt(time.nanoTime() - origin), again))
				.as("held")
				.isEqualTo(script.due != null);
		}
		else {
			time.advanceTo(origin + millis(script.grantAt));
			policy.granted(script.grantOf, time.nanoTime(), (job) -> script.timesAt(time.nanoTime() - origin));
		}
		assertThat(policy.runsDue(ELECTION, JOB)).as("a run held").isEqualTo(script.due != null);
		time.advance(Duration.ofDays(3));
		assertThat(runsAt).isEqualTo((script.due != null) ? List.of(script.due) : List.of());
		assertThat(policy.runsDue(ELECTION, JOB)).as("a run held after it ran").isFalse();
	}

	@Test
	void whileARunIsHeldTheJobsCallsAreSkippedAndNoOtherRunIsHeld() {
		VirtualTime time = new VirtualTime();
		List<String> runs = new ArrayList<>();
		DueStartPolicy policy = new DueStartPolicy(time, Runnable::run);
		policy.called(ELECTION, JOB, time.nanoTime(), () -> runs.add("timer"));
		time.advance(Duration.ofSeconds(1));
		policy.called(ELECTION, JOB, time.nanoTime(), () -> runs.add("timer"));
		WindowTimes closed = new WindowTimes(Duration.ofMillis(700), Duration.ofMillis(300));
		assertThat(policy.hold(ELECTION, JOB, Optional.of(closed), () -> runs.add("first"))).isTrue();
		assertThat(policy.runsDue(ELECTION, JOB)).isTrue();
		assertThat(policy.hold(ELECTION, JOB, Optional.of(closed), () -> runs.add("second"))).isFalse();
		policy.granted(ELECTION, time.nanoTime(), (job) -> Optional.empty());
		time.advance(Duration.ofSeconds(10));
		assertThat(runs).containsExactly("first");
		assertThat(policy.runsDue(ELECTION, JOB)).isFalse();
	}

	@Test
	void aSchedulerThatRefusesTasksStartsNothingAndFailsNothing() {
		ElectionScheduler closed = (task, delayNanos) -> {
			throw new RejectedExecutionException("closed");
		};
		List<String> runs = new ArrayList<>();
		DueStartPolicy policy = new DueStartPolicy(closed, Runnable::run);
		policy.called(ELECTION, JOB, 0, () -> runs.add("tick"));
		policy.called(ELECTION, JOB, millis(1000), () -> runs.add("tick"));
		WindowTimes closing = new WindowTimes(Duration.ofMillis(700), Duration.ofMillis(300));
		assertThat(policy.hold(ELECTION, JOB, Optional.of(closing), () -> runs.add("held"))).isFalse();
		policy.granted(ELECTION, millis(1100), (job) -> Optional.empty());
		assertThat(policy.runsDue(ELECTION, JOB)).isFalse();
		assertThat(runs).isEmpty();
	}

	private static long millis(long millis) {
		return Duration.ofMillis(millis).toNanos();
	}

	private static Script held(String rule) {
		return new Script(rule, null);
	}

	private static Script granted(String rule, long grantAt) {
		return new Script(rule, grantAt);
	}

	/** A script: this replica's calls, the last start and the window, then a held call or a grant. */
	static final class Script {

		private final String rule;

		/** When the term began here; {@code null} for a leader's call, at the last call, that found the window closed. */
		private final Long grantAt;

		private String grantOf = ELECTION;

		private long[] calls;

		/** {@code null} when the job never ran. */
		private Long lastStart;

		private long window;

		/** When the run starts; {@code null} when none does. */
		private Long due;

		Script(String rule, Long grantAt) {
			this.rule = rule;
			this.grantAt = grantAt;
		}

		Script calls(long... calls) {
			this.calls = calls;
			return this;
		}

		Script lastStart(long lastStart) {
			this.lastStart = lastStart;
			return this;
		}

		Script window(long window) {
			this.window = window;
			return this;
		}

		Script grantOf(String election) {
			this.grantOf = election;
			return this;
		}

		Script due(long due) {
			this.due = due;
			return this;
		}

		Script notDue() {
			this.due = null;
			return this;
		}

		/** Where the job stands at the instant, as the Lease tells this replica. */
		Optional<WindowTimes> timesAt(long nanos) {
			if (this.lastStart == null) {
				return Optional.empty();
			}
			long startedAt = millis(this.lastStart);
			return Optional.of(new WindowTimes(Duration.ofNanos(nanos - startedAt),
					Duration.ofNanos(Math.max(0, startedAt + millis(this.window) - nanos))));
		}

		@Override
		public String toString() {
			return this.rule;
		}

	}

}
