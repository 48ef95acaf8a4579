package io.leaderelection.benchmarks.windows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * What the replicas of {@link OncePerWindow} did, on the JVM's monotonic clock, which all of them
 * share: every timer fire of their jobs and what became of it, and a timeline of it with every
 * gate opened and closed and the harness's own actions, to read when a figure needs explaining.
 */
final class JobLog {

	/** The two jobs every replica runs on its timer. */
	enum Job {

		/** Started as {@code @LeaderOnly(atMostEvery)} starts it, with a window as long as the timer's period. */
		WINDOWED,

		/** The same, with a window a little shorter than the period, as the documentation advises. */
		WINDOWED_SHORT,

		/** A plain {@code @LeaderOnly} job: the gate checked when the timer fires. */
		PLAIN

	}

	/** What became of a timer fire. */
	enum Outcome {

		/** The job ran. */
		STARTED,

		/** The replica did not lead. */
		NOT_LEADER,

		/** It led, but the job's window was closed. */
		WINDOW_CLOSED,

		/** The replica was stopping or killed: no leader work accepted. */
		REFUSED

	}

	/**
	 * A timer fire of a job.
	 * @param asked when the timer fired (before the call registered and the gate was read); for a
	 * windowed start, the moment its replica's engine counted the start from
	 * @param began when the job's body began, for a start: after the gate check, and for the
	 * windowed job after the start's write was answered; 0 otherwise
	 * @param fencingToken the term's fencing token, for a windowed start; 0 otherwise
	 */
	record Fire(Job job, String replica, long asked, Outcome outcome, long began, long fencingToken) {

		boolean started() {
			return this.outcome == Outcome.STARTED;
		}

	}

	private record Event(long at, String replica, String what) {
	}

	private final long origin = System.nanoTime();

	private final List<Fire> fires = new ArrayList<>();

	private final List<Event> events = new ArrayList<>();

	synchronized void fired(Fire fire) {
		this.fires.add(fire);
		this.events.add(new Event(fire.asked(), fire.replica(), fire.job() + " fired: " + fire.outcome()
				+ (fire.started() ? ", began " + seconds(fire.began()) + ", token " + fire.fencingToken() : "")));
	}

	void gateOpened(String replica, long at) {
		event(at, replica, "gate opened");
	}

	void gateClosed(String replica, long at, String cause) {
		event(at, replica, "gate closed (" + cause + ")");
	}

	synchronized void event(long at, String replica, String what) {
		this.events.add(new Event(at, replica, what));
	}

	/** The fires of the job, in the order the timers fired. */
	synchronized List<Fire> fires(Job job) {
		return this.fires.stream()
			.filter((fire) -> fire.job() == job)
			.sorted(Comparator.comparingLong(Fire::asked))
			.toList();
	}

	/** The starts of the job, in the order the timers fired. */
	List<Fire> starts(Job job) {
		return fires(job).stream().filter(Fire::started).toList();
	}

	/** Seconds since the log began, to the microsecond. */
	String seconds(long nanos) {
		return String.format(Locale.ROOT, "%.6f s", (nanos - this.origin) / 1e9);
	}

	/** Writes the whole timeline to the file. */
	void writeTimeline(Path file) throws IOException {
		Files.createDirectories(file.toAbsolutePath().getParent());
		Files.write(file, lines((event) -> true));
	}

	private synchronized List<String> lines(Predicate<Event> which) {
		return this.events.stream()
			.filter(which)
			.sorted(Comparator.comparingLong(Event::at))
			.map((event) -> seconds(event.at()) + "  " + event.replica() + "  " + event.what())
			.toList();
	}

}
