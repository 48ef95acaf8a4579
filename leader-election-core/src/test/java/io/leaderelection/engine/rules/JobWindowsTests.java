package io.leaderelection.engine.rules;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.leaderelection.WindowStatus;
import io.leaderelection.WindowTimes;
import io.leaderelection.store.WindowRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.engine.rules.FollowerSteps.RENEWED;
import static io.leaderelection.engine.rules.FollowerSteps.ms;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The once-per-window jobs' windows, as scripts of replica "me" in election "jobs": its runs
 * (a, b) of job "report" start under term 4, and start or extend for at least 100 ms and at
 * most 1000 ms. Times are milliseconds on its monotonic clock, whose 0 is 06:00:00 on its wall
 * clock; versions and writes record jobs as "report by b in term 4 at 06:00:00 (the starter's
 * wall clock), started 300 ago, ended 100 ago, closed for 700".
 */
class JobWindowsTests {

	private static final String JOB = "report";

	private static final long TERM = 4;

	private static final long AT_LEAST = ms(100);

	private static final long AT_MOST = ms(1000);

	private static final Pattern RECORD = Pattern.compile(
			"(\\S+) by (\\S+) in term (\\d+) at ([\\d:.]+|an unknown time), started (-?\\d+) ago(?:, ended (-?\\d+) ago)?, closed for (-?\\d+)");

	private static final int MILLI = 1_000_000;

	private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");

	private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                          | script                                          | last start
			a job never run may start at once                                    | start a at 0                                    | started
			a running run keeps the window closed for its longest window         | start a at 0; start b at 999.999999             | refused
			the window opens at the instant the longest window passes            | start a at 0; start b at 1000                   | started
			an ended run keeps it closed for its shortest window                 | start a at 0; end a at 50; start b at 99.999999 | refused
			the window opens at the instant the shortest window passes           | start a at 0; end a at 50; start b at 100       | started
			a start lost with its term still closes the window: it may be stored | start a at 0; term ended; start b at 500        | refused
			""")
	void aStart(String situation, String script, String lastStart) {
		assertThat(new Script().run(script).lastOutcome).isEqualTo(lastStart);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                      | script                                                                                                                              | last step | closes at
			a running run closes the window for its longest window           | start a at 0                                                                                                                        | started   | 1000
			a run ended within its shortest window keeps it closed till then | start a at 0; end a at 40                                                                                                           | ended     | 100
			a run ended after its shortest window opens it at its end        | start a at 0; end a at 300                                                                                                          | ended     | 300
			the end of a run no longer the job's leaves the job's window     | start a at 0; start b at 1000; end a at 1050                                                                                        | ended     | 2000
			an extension moves the window's close, counted from now          | start a at 0; extend a at 600                                                                                                       | extended  | 1600
			an extension moves the shortest window, counted from now         | start a at 0; extend a at 600; end a at 650                                                                                         | ended     | 700
			an ended run is not extended                                     | start a at 0; end a at 50; extend a at 60                                                                                           | refused   | 100
			a run no longer the job's is not extended                        | start a at 0; start b at 1000; extend a at 1100                                                                                     | refused   | 2000
			a run replaced by another leader's is not extended               | start a at 0; term ended; observe at 1500: report by b in term 5 at 06:00:01.400, started 100 ago, closed for 900; extend a at 1600 | refused   | 2400
			""")
	void aRunsEndOrExtension(String situation, String script, String lastStep, String closesAt) {
		Script run = new Script().run(script);
		assertThat(run.lastOutcome).isEqualTo(lastStep);
		WindowRecord written = run.windows.toWrite(run.lastMoment).get(JOB);
		assertThat(millis(run.lastMoment + ms(written.closedForMillis()))).as("the moment the window opens")
			.isEqualTo(closesAt);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                           | known, observed at 0                                              | the version observed at 1000                                                             | known at 1000
			nothing known: the version's run is taken, counted from then          | nothing                                                           | report by b in term 4 at 06:00:00, started 300 ago, closed for 700                       | report by b in term 4 at 06:00:00, started 300 ago, closed for 700
			a later run replaces the one known                                    | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | report by c in term 5 at 06:00:01, started 200 ago, closed for 800                       | report by c in term 5 at 06:00:01, started 200 ago, closed for 800
			a run started at the same moment replaces the one known               | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | report by c in term 5 at 06:00:01, started 1000 ago, closed for 50                       | report by c in term 5 at 06:00:01, started 1000 ago, closed for 50
			an earlier run (a Lease created again by one that knew less) does not | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | report by c in term 3 at 05:59:59, started 1500 ago, ended 1400 ago, closed for -1000    | report by b in term 4 at 06:00:00, started 1000 ago, closed for 0
			the same run replaces the one known, even counted as started earlier  | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | report by b in term 4 at 06:00:00, started 1200 ago, ended 1100 ago, closed for -900     | report by b in term 4 at 06:00:00, started 1200 ago, ended 1100 ago, closed for -900
			a run by another replica is another run                               | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | report by c in term 4 at 06:00:00, started 1200 ago, ended 1100 ago, closed for -900     | report by b in term 4 at 06:00:00, started 1000 ago, closed for 0
			a run of another term is another run                                  | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | report by b in term 5 at 06:00:00, started 1200 ago, ended 1100 ago, closed for -900     | report by b in term 4 at 06:00:00, started 1000 ago, closed for 0
			a run started at another moment is another run                        | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | report by b in term 4 at 05:59:59.800, started 1200 ago, ended 1100 ago, closed for -900 | report by b in term 4 at 06:00:00, started 1000 ago, closed for 0
			a run whose start time was edited away is not known to be the same    | report by b in term 4 at an unknown time, started 0 ago, closed for 1000 | report by b in term 4 at an unknown time, started 1200 ago, ended 1100 ago, closed for -900 | report by b in term 4 at an unknown time, started 1000 ago, closed for 0
			a job the version does not record stays known                         | report by b in term 4 at 06:00:00, started 0 ago, closed for 1000 | cleanup by c in term 5 at 06:00:01, started 100 ago, closed for 900                      | report by b in term 4 at 06:00:00, started 1000 ago, closed for 0; cleanup by c in term 5 at 06:00:01, started 100 ago, closed for 900
			""")
	void aVersionObserved(String situation, String known, String version, String knownThen) {
		JobWindows windows = new JobWindows("jobs", "me");
		windows.observed(records(known), 0);
		windows.observed(records(version), ms(1000));
		assertThat(describe(windows.toWrite(ms(1000)))).isEqualTo(knownThen);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			# situation                                                    | gate open | run ended | goes on
			a run stored while the gate is open goes on                      | true      | false     | true
			a run stored after the gate closed never begins                  | false     | false     | false
			a run that ended before it was stored has nothing to go on with  | true      | true      | false
			""")
	void aStoredRunGoesOn(String situation, boolean gateOpen, boolean runEnded, boolean goesOn) {
		JobWindows windows = new JobWindows("jobs", "me");
		JobWindows.Run run = windows.start(JOB, AT_LEAST, AT_MOST, ms(0), TERM, wall(ms(0)));
		List<JobWindows.Pending> sent = windows.sending();
		if (runEnded) {
			windows.ended(run, ms(10));
		}
		assertThat(windows.stored(sent, gateOpen)).containsExactly(Map.entry(run, goesOn));
		assertThat(windows.unrecorded()).isFalse();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                    | script                                                                              | written at | records
			nothing known, nothing written                                 | -                                                                                   | 0          | nothing
			written on the millisecond                                     | start a at 0                                                                        | 300        | report by me in term 4 at 06:00:00, started 300 ago, closed for 700
			a nanosecond later: closed for rounded up, started ago down    | start a at 0                                                                        | 300.000001 | report by me in term 4 at 06:00:00, started 300 ago, closed for 700
			a nanosecond earlier: closed for rounded up, started ago down  | start a at 0                                                                        | 299.999999 | report by me in term 4 at 06:00:00, started 299 ago, closed for 701
			ended ago rounded down                                         | start a at 0; end a at 50                                                           | 80.4       | report by me in term 4 at 06:00:00, started 80 ago, ended 30 ago, closed for 20
			an open window is closed for zero or less, rounded up          | start a at 0; end a at 50                                                           | 300.4      | report by me in term 4 at 06:00:00, started 300 ago, ended 250 ago, closed for -200
			another's run observed is written counted from its observation | observe at 1000: report by b in term 5 at 06:00:00, started 300 ago, closed for 700 | 1200.5     | report by b in term 5 at 06:00:00, started 500 ago, closed for 500
			""")
	void whatAWriteRecords(String situation, String script, String writtenAt, String records) {
		JobWindows writer = new Script().run(script).windows;
		long sentAt = moment(writtenAt);
		Map<String, WindowRecord> written = writer.toWrite(sentAt);
		assertThat(describe(written)).isEqualTo(records);
		JobWindows reader = new JobWindows("jobs", "you");
		reader.observed(written, sentAt);
		written.keySet().forEach((job) -> {
			WindowTimes writers = writer.times(job, sentAt);
			WindowTimes readers = reader.times(job, sentAt);
			assertThat(readers.untilOpen()).as("a reader's window closes no earlier than the writer's")
				.isGreaterThanOrEqualTo(writers.untilOpen());
			assertThat(readers.sinceLastStart()).as("a reader's run started no earlier than the writer's")
				.isLessThanOrEqualTo(writers.sinceLastStart());
		});
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                      | script                                                      | waits | sent next                           | lost when the term ends
			nothing started, nothing waits                                   | -                                                           | false | none                                | none
			a start waits for a write of its term                            | start a at 0                                                | true  | a                                   | a
			a write on its way leaves it waiting, should it fail             | start a at 0; send 1                                        | true  | a                                   | a
			stored, a start no longer waits                                  | start a at 0; send 1; stored 1                              | false | none                                | none
			what came after the write was sent still waits once it is stored | start a at 0; send 1; extend a at 10; stored 1              | true  | a extended at 10                    | a extended at 10
			a refused extension does not wait                                | start a at 0; send 1; stored 1; end a at 50; extend a at 60 | false | none                                | none
			a run and its extensions waiting tell that it ended              | start a at 0; extend a at 10; end a at 20                   | true  | a (ended), a extended at 10 (ended) | a (ended), a extended at 10 (ended)
			what an ended term lost is not carried by the next term          | start a at 0; term ended; start b at 2000                   | true  | b                                   | b
			""")
	void whatWaitsToBeStored(String situation, String script, boolean waits, String sentNext, String lost) {
		Script run = new Script().run(script);
		assertThat(run.windows.unrecorded()).isEqualTo(waits);
		assertThat(run.describe(run.windows.sending())).isEqualTo(sentNext);
		assertThat(run.describe(run.windows.termEnded())).isEqualTo(lost);
		assertThat(run.windows.unrecorded()).as("nothing waits once the term ended").isFalse();
		assertThat(run.windows.sending()).as("nothing is sent once the term ended").isEmpty();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', nullValues = "-", textBlock = """
			# situation                                                    | script                                                                              | at   | status                                                                                     | times
			nothing known of the job                                       | -                                                                                   | 300  | -                                                                                          | -
			a running run                                                  | start a at 0                                                                        | 300  | jobs/report by me in term 4: started 06:00:00, next start 06:00:01                         | 300 since the last start, 700 until open
			an ended run within its shortest window                        | start a at 0; end a at 50                                                           | 80   | jobs/report by me in term 4: started 06:00:00, ended 06:00:00.050, next start 06:00:00.100 | 80 since the last start, 20 until open
			an open window may start now                                   | start a at 0; end a at 50                                                           | 300  | jobs/report by me in term 4: started 06:00:00, ended 06:00:00.050, next start 06:00:00.300 | 300 since the last start, 0 until open
			another's run on this replica's clocks, not the starter's wall | observe at 1000: report by b in term 5 at 07:00:00, started 300 ago, closed for 700 | 1100 | jobs/report by b in term 5: started 06:00:00.700, next start 06:00:01.700                  | 400 since the last start, 600 until open
			""")
	void whereAJobStands(String situation, String script, long atMillis, String status, String times) {
		JobWindows windows = new Script().run(script).windows;
		List<WindowStatus> statuses = windows.statuses(ms(atMillis), wall(ms(atMillis)));
		assertThat(statuses.isEmpty() ? null
				: statuses.stream().map(JobWindowsTests::describe).collect(Collectors.joining("; ")))
			.isEqualTo(status);
		WindowTimes known = windows.times(JOB, ms(atMillis));
		assertThat((known != null) ? millis(known.sinceLastStart().toNanos()) + " since the last start, "
				+ millis(known.untilOpen().toNanos()) + " until open" : null)
			.isEqualTo(times);
	}

	/**
	 * Replica "me" taking the steps of a script, separated by "; ": {@code start a at 0},
	 * {@code end a at 50}, {@code extend a at 600}, {@code send 1} (a write carries what waits),
	 * {@code stored 1} (that write succeeded), {@code term ended}, {@code observe at 1000: <job's
	 * record>}.
	 */
	private static final class Script {

		private final JobWindows windows = new JobWindows("jobs", "me");

		private final Map<String, JobWindows.Run> runs = new HashMap<>();

		private final Map<JobWindows.Pending, String> names = new HashMap<>();

		private final Map<String, List<JobWindows.Pending>> writes = new HashMap<>();

		private long lastMoment;

		private String lastOutcome;

		/** Takes the steps of the script; none when it is {@code null}. */
		Script run(String script) {
			if (script != null) {
				for (String step : script.split("; ")) {
					take(step);
				}
			}
			return this;
		}

		private void take(String step) {
			String[] words = step.split(" ");
			switch (words[0]) {
				case "start" -> {
					long now = at(words[3]);
					JobWindows.Run run = this.windows.start(JOB, AT_LEAST, AT_MOST, now, TERM, wall(now));
					if (run != null) {
						this.runs.put(words[1], run);
						this.names.put(run, words[1]);
					}
					this.lastOutcome = (run != null) ? "started" : "refused";
				}
				case "end" -> {
					this.windows.ended(this.runs.get(words[1]), at(words[3]));
					this.lastOutcome = "ended";
				}
				case "extend" -> {
					JobWindows.Pending extension = this.windows.extend(this.runs.get(words[1]), AT_MOST, AT_LEAST,
							at(words[3]));
					if (extension != null) {
						this.names.put(extension, words[1] + " extended at " + words[3]);
					}
					this.lastOutcome = (extension != null) ? "extended" : "refused";
				}
				case "send" -> this.writes.put(words[1], this.windows.sending());
				case "stored" -> this.windows.stored(this.writes.get(words[1]), true);
				case "term" -> this.windows.termEnded();
				case "observe" -> {
					String[] momentAndRecord = step.substring("observe at ".length()).split(": ", 2);
					this.windows.observed(records(momentAndRecord[1]), at(momentAndRecord[0]));
				}
				default -> throw new IllegalArgumentException("No step is told as '" + step + "'");
			}
		}

		private long at(String millis) {
			this.lastMoment = moment(millis);
			return this.lastMoment;
		}

		String describe(List<JobWindows.Pending> pending) {
			return pending.isEmpty() ? "none" : pending.stream()
				.map((each) -> this.names.get(each) + (each.ended() ? " (ended)" : ""))
				.collect(Collectors.joining(", "));
		}

	}

	/** A moment in milliseconds, to the nanosecond. */
	private static long moment(String millis) {
		return new BigDecimal(millis).movePointRight(6).longValueExact();
	}

	private static String millis(long nanos) {
		return BigDecimal.valueOf(nanos).movePointLeft(6).stripTrailingZeros().toPlainString();
	}

	/** The wall clock of replica "me" at a moment of its monotonic clock. */
	private static Instant wall(long nanos) {
		return RENEWED.plusNanos(nanos);
	}

	/** Jobs' records separated by "; ", or "nothing". */
	private static Map<String, WindowRecord> records(String described) {
		Map<String, WindowRecord> records = new LinkedHashMap<>();
		if (!described.equals("nothing")) {
			for (String each : described.split("; ")) {
				Matcher record = RECORD.matcher(each);
				if (!record.matches()) {
					throw new IllegalArgumentException("No record is described as '" + each + "'");
				}
				Instant startedAt = record.group(4).equals("an unknown time") ? null
						: LocalTime.parse(record.group(4))
							.atDate(RENEWED.atOffset(ZoneOffset.UTC).toLocalDate())
							.toInstant(ZoneOffset.UTC);
				records.put(record.group(1), new WindowRecord(Long.parseLong(record.group(7)),
						Long.parseLong(record.group(5)), (record.group(6) != null) ? Long.valueOf(record.group(6)) : null,
						record.group(2), Long.parseLong(record.group(3)), startedAt));
			}
		}
		return records;
	}

	private static String describe(Map<String, WindowRecord> records) {
		List<String> described = new ArrayList<>();
		records.forEach((job, record) -> described.add(job + " by " + record.startedBy() + " in term "
				+ record.fencingToken() + " at "
				+ ((record.startedAt() != null) ? timeOfDay(record.startedAt()) : "an unknown time") + ", started "
				+ record.startedMillisAgo() + " ago"
				+ ((record.endedMillisAgo() != null) ? ", ended " + record.endedMillisAgo() + " ago" : "")
				+ ", closed for " + record.closedForMillis()));
		return described.isEmpty() ? "nothing" : String.join("; ", described);
	}

	private static String describe(WindowStatus status) {
		return status.election() + "/" + status.job() + " by " + status.startedBy() + " in term "
				+ status.fencingToken() + ": started " + timeOfDay(status.lastStart())
				+ ((status.ended() != null) ? ", ended " + timeOfDay(status.ended()) : "") + ", next start "
				+ timeOfDay(status.nextStartAllowed());
	}

	private static String timeOfDay(Instant instant) {
		LocalTime time = LocalTime.ofInstant(instant, ZoneOffset.UTC);
		if (time.getNano() % MILLI != 0) {
			return time.toString();
		}
		return ((time.getNano() == 0) ? SECONDS : MILLIS).format(time);
	}

}
