package io.leaderelection.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What the replicas of {@link OncePerWindow} did, on the JVM's monotonic clock, which all of them
 * share: every timer fire of their jobs and what became of it, every gate opened and closed, and
 * a timeline of it all with the harness's own actions, to read when a figure needs explaining.
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

		/** It led, but the start's write was not answered within the renew deadline. */
		UNANSWERED,

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

	/** A gate of a replica open from {@code opened} until {@code closed} ({@link Long#MAX_VALUE} while open). */
	record Gate(String replica, long opened, long closed) {

		boolean contains(long at) {
			return at - this.opened >= 0 && this.closed - at > 0;
		}

	}

	private record Event(long at, String replica, String what) {
	}

	private final long origin = System.nanoTime();

	private final List<Fire> fires = new ArrayList<>();

	private final List<Gate> gates = new ArrayList<>();

	private final Map<String, Long> openGates = new HashMap<>();

	private final List<Event> events = new ArrayList<>();

	synchronized void fired(Fire fire) {
		this.fires.add(fire);
		this.events.add(new Event(fire.asked(), fire.replica(), fire.job() + " fired: " + fire.outcome()
				+ (fire.started() ? ", began " + seconds(fire.began()) + ", token " + fire.fencingToken() : "")));
	}

	synchronized void gateOpened(String replica, long at) {
		this.openGates.put(replica, at);
		event(at, replica, "gate opened");
	}

	synchronized void gateClosed(String replica, long at, String cause) {
		Long opened = this.openGates.remove(replica);
		if (opened != null) {
			this.gates.add(new Gate(replica, opened, at));
		}
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

	/** Every gate, those still open as open until now. */
	synchronized List<Gate> gates() {
		List<Gate> all = new ArrayList<>(this.gates);
		this.openGates.forEach((replica, opened) -> all.add(new Gate(replica, opened, Long.MAX_VALUE)));
		all.sort(Comparator.comparingLong(Gate::opened));
		return all;
	}

	/** The gate of the replica open at the given moment, {@code null} when none was. */
	Gate gateAt(String replica, long at) {
		return gates().stream()
			.filter((gate) -> gate.replica().equals(replica) && gate.contains(at))
			.findFirst()
			.orElse(null);
	}

	/** The gate that opened first after the given moment on a replica other than the given one. */
	Gate firstGateAfter(long at, String besides) {
		return gates().stream()
			.filter((gate) -> gate.opened() - at > 0 && !gate.replica().equals(besides))
			.findFirst()
			.orElse(null);
	}

	/** Seconds since the log began, to the microsecond. */
	String seconds(long nanos) {
		return String.format(Locale.ROOT, "%.6f s", (nanos - this.origin) / 1e9);
	}

	/** The timeline from one moment to another, a line per event. */
	List<String> timeline(long from, long to) {
		return lines((event) -> event.at() - from >= 0 && to - event.at() >= 0);
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
