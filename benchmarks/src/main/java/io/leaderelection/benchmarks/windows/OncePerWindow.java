package io.leaderelection.benchmarks.windows;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.leaderelection.RevocationCause;
import io.leaderelection.WindowStatus;
import io.leaderelection.autoconfigure.leaderonly.DueStarts;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.HarnessArguments;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.OurImplementation.OurCandidate;
import io.leaderelection.benchmarks.harness.Replica;
import io.leaderelection.benchmarks.harness.Timings;
import io.leaderelection.benchmarks.windows.JobLog.Fire;
import io.leaderelection.benchmarks.windows.JobLog.Job;
import io.leaderelection.benchmarks.windows.JobLog.Outcome;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.LeaderCalls;
import io.leaderelection.engine.MonotonicClock;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;

/**
 * Issue 28's measurement: three replicas on one CRUD mock API server, each its own engine, client
 * and TCP proxy, run three jobs on their own timers ({@code fixedRate} 1 s, each replica on its own
 * phase): two started as {@code @LeaderOnly(atMostEvery)} starts them (the auto-configuration's
 * {@link WindowedStarts} on the replica's leader work, a call that finds the window closed held
 * by {@link DueStarts} until the job is due), one with a window of 1 s as the issue asks,
 * one of 950 ms, shorter than the period, and one gated as plain {@code @LeaderOnly} is (the
 * gate read once the call is registered). The harness hands leadership over again and
 * again, in turn by a step-down, a rolling restart (release, and a new replica in its place), a
 * kill (no release; a new replica in its place once another leads) and a cut (the leader's
 * traffic frozen in its proxy until another leads, then let through). Every start is timed on the
 * JVM's monotonic clock, which all replicas share: a plain one when its timer fired, a windowed
 * one at the moment its replica's engine counted it from, as that replica records it.
 * <p>
 * {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify -DskipTests
 * -Dbenchmarks.main=io.leaderelection.benchmarks.windows.OncePerWindow -Dbenchmarks.args="handovers=50"}
 * (arguments: {@code handovers=N}, {@code timings=3s/2s/500ms}, {@code seed=N}).
 */
public final class OncePerWindow {

	static final Duration PERIOD = Duration.ofSeconds(1);

	static final Duration WINDOW = Duration.ofSeconds(1);

	/** A window a little shorter than the period, which a job held until due still runs at the period. */
	static final Duration SHORT_WINDOW = Duration.ofMillis(950);

	/** How long each run of either job works. */
	static final Duration WORK = Duration.ofMillis(20);

	/** Plain starts closer than this are two in one window: below the window, for the timers' jitter. */
	static final Duration TWO_IN_A_WINDOW = WINDOW.minusMillis(50);

	/** What counts as two starts in one window, per job: a windowed job's own window, exactly. */
	static final Map<Job, Duration> TOO_CLOSE = Map.of(Job.WINDOWED, WINDOW, Job.WINDOWED_SHORT, SHORT_WINDOW,
			Job.PLAIN, TWO_IN_A_WINDOW);

	enum Handover {

		STEP_DOWN("step-down"), ROLLING_RESTART("rolling restart"), KILL("kill"), CUT("cut");

		final String label;

		Handover(String label) {
			this.label = label;
		}

	}

	private record Event(Handover kind, long at, String from, String to) {
	}

	private final ApiServer server;

	private final NioReactor reactor;

	private final Timings timings;

	private final Random random;

	private final JobLog log = new JobLog();

	private final List<JobReplica> replicas = new ArrayList<>();

	private int generation;

	private OncePerWindow(ApiServer server, NioReactor reactor, Timings timings, long seed) {
		this.server = server;
		this.reactor = reactor;
		this.timings = timings;
		this.random = new Random(seed);
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> values = HarnessArguments.parse(args, "handovers, timings, seed").values();
		int handovers = Integer.parseInt(values.getOrDefault("handovers", "50"));
		Timings timings = Timings.parse(values.getOrDefault("timings", "3s/2s/500ms"));
		long seed = Long.parseLong(values.getOrDefault("seed", "28"));
		try (ApiServer server = ApiServer.start()) {
			NioReactor reactor = new NioReactor();
			try {
				new OncePerWindow(server, reactor, timings, seed).run(handovers);
			}
			finally {
				reactor.close();
			}
		}
		System.exit(0);
	}

	private void run(int handovers) throws Exception {
		for (int i = 0; i < 3; i++) {
			this.replicas.add(newReplica());
		}
		JobReplica leader = awaitLeaderOtherThan(null);
		// the election alone for a while: the writes it costs without jobs
		long idleFrom = System.nanoTime();
		long idleWrites = writes();
		Thread.sleep(10_000);
		double idleWritesPerSecond = (writes() - idleWrites) / seconds(System.nanoTime() - idleFrom);
		this.replicas.forEach(JobReplica::startTimers);
		long runFrom = System.nanoTime();
		long runWrites = writes();
		List<Event> events = new ArrayList<>();
		Handover[] kinds = Handover.values();
		for (int i = 0; i < handovers; i++) {
			Thread.sleep(2_500 + this.random.nextInt(2_000));
			leader = awaitLeaderOtherThan(null);
			Handover kind = kinds[i % kinds.length];
			long at = System.nanoTime();
			this.log.event(at, leader.identity, "handover: " + kind.label);
			JobReplica next = switch (kind) {
				case STEP_DOWN -> {
					leader.candidate.engine().stepDown("default");
					yield awaitLeaderOtherThan(leader);
				}
				case ROLLING_RESTART -> {
					leader.stop(true);
					this.replicas.remove(leader);
					JobReplica successor = awaitLeaderOtherThan(leader);
					this.replicas.add(newReplica().startTimers());
					yield successor;
				}
				case KILL -> {
					leader.stop(false);
					this.replicas.remove(leader);
					JobReplica successor = awaitLeaderOtherThan(leader);
					this.replicas.add(newReplica().startTimers());
					yield successor;
				}
				case CUT -> {
					leader.proxy.freeze();
					JobReplica successor = awaitLeaderOtherThan(leader);
					leader.proxy.unfreeze();
					yield successor;
				}
			};
			events.add(new Event(kind, at, leader.identity, next.identity));
			System.out.printf(Locale.ROOT, "handover %d/%d: %s, %s -> %s%n", i + 1, handovers, kind.label,
					leader.identity, next.identity);
		}
		Thread.sleep(3_000);
		for (JobReplica replica : List.copyOf(this.replicas)) {
			replica.stopTimers();
		}
		double runSeconds = seconds(System.nanoTime() - runFrom);
		long writes = writes() - runWrites;
		for (JobReplica replica : List.copyOf(this.replicas)) {
			replica.stop(true);
		}
		this.log.writeTimeline(Path.of("target", "once-per-window-timeline.txt"));
		report(handovers, events, idleWritesPerSecond, runSeconds, writes);
	}

	private void report(int handovers, List<Event> events, double idleWritesPerSecond, double runSeconds,
			long writes) {
		List<Job> jobs = List.of(Job.WINDOWED, Job.WINDOWED_SHORT, Job.PLAIN);
		Map<Job, List<Fire>> starts = new EnumMap<>(Job.class);
		jobs.forEach((job) -> starts.put(job, this.log.starts(job)));
		System.out.println();
		System.out.printf(Locale.ROOT, "timings %s, timers every %d ms, %d handovers, %.0f s of jobs%n",
				this.timings, PERIOD.toMillis(), handovers, runSeconds);
		System.out.println();
		System.out.println("| | `atMostEvery = \"1s\"` | `atMostEvery = \"950ms\"` | plain `@LeaderOnly` |");
		System.out.println("|---|---|---|---|");
		row("starts", jobs, (job) -> starts.get(job).size());
		row("pairs of starts closer than the window (1 s, 950 ms; plain: 950 ms)", jobs,
				(job) -> closePairs(starts.get(job), TOO_CLOSE.get(job)));
		row("of which by two replicas", jobs, (job) -> closePairsByTwo(starts.get(job), TOO_CLOSE.get(job)));
		row("shortest gap between two starts", jobs, (job) -> micros(shortestGap(starts.get(job))));
		row("longest gap away from handovers", jobs, (job) -> millis(max(steadyGaps(starts.get(job), events))));
		for (Handover kind : Handover.values()) {
			long count = events.stream().filter((event) -> event.kind() == kind).count();
			row("longest gap to the new leader's first start, " + kind.label + " (" + count + ")", jobs,
					(job) -> millis(max(gapsToSuccessor(starts.get(job), events, kind))));
			row("median of those", jobs, (job) -> millis(median(gapsToSuccessor(starts.get(job), events, kind))));
		}
		System.out.println();
		for (Job job : List.of(Job.WINDOWED, Job.WINDOWED_SHORT)) {
			Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
			this.log.fires(job).forEach((fire) -> outcomes.merge(fire.outcome(), 1L, Long::sum));
			System.out.println(job + " timer fires by outcome: " + outcomes);
		}
		long windowedStarts = starts.get(Job.WINDOWED).size() + starts.get(Job.WINDOWED_SHORT).size();
		double extra = writes - idleWritesPerSecond * runSeconds;
		System.out.printf(Locale.ROOT,
				"API writes (PUT, POST, PATCH, all replicas): %d in %.0f s; the election alone %.2f/s; "
						+ "beyond it %.0f, %.2f per windowed start (%d starts of both windowed jobs)%n",
				writes, runSeconds, idleWritesPerSecond, extra, extra / windowedStarts, windowedStarts);
		System.out.println("the issue's bounds: graceful gap <= window + 100 ms; kill or cut gap <= window + lease "
				+ "duration = " + WINDOW.plus(this.timings.leaseDuration()).toMillis() + " ms");
	}

	private static void row(String label, List<Job> jobs, Function<Job, Object> value) {
		StringBuilder row = new StringBuilder("| " + label + " |");
		jobs.forEach((job) -> row.append(' ').append(value.apply(job)).append(" |"));
		System.out.println(row);
	}

	private static long closePairs(List<Fire> starts, Duration tooClose) {
		long pairs = 0;
		for (int i = 1; i < starts.size(); i++) {
			if (starts.get(i).asked() - starts.get(i - 1).asked() < tooClose.toNanos()) {
				pairs++;
			}
		}
		return pairs;
	}

	private static long closePairsByTwo(List<Fire> starts, Duration tooClose) {
		long pairs = 0;
		for (int i = 1; i < starts.size(); i++) {
			if (!starts.get(i).replica().equals(starts.get(i - 1).replica())
					&& starts.get(i).asked() - starts.get(i - 1).asked() < tooClose.toNanos()) {
				pairs++;
			}
		}
		return pairs;
	}

	private static long shortestGap(List<Fire> starts) {
		long shortest = Long.MAX_VALUE;
		for (int i = 1; i < starts.size(); i++) {
			shortest = Math.min(shortest, starts.get(i).asked() - starts.get(i - 1).asked());
		}
		return shortest;
	}

	/**
	 * For each handover of the kind, from the new leader's first start after it to the start
	 * before that one, by whichever replica.
	 */
	private static List<Long> gapsToSuccessor(List<Fire> starts, List<Event> events, Handover kind) {
		List<Long> gaps = new ArrayList<>();
		for (Event event : events) {
			if (event.kind() != kind) {
				continue;
			}
			for (int i = 1; i < starts.size(); i++) {
				Fire start = starts.get(i);
				if (start.asked() - event.at() > 0 && start.replica().equals(event.to())) {
					gaps.add(start.asked() - starts.get(i - 1).asked());
					break;
				}
			}
		}
		return gaps;
	}

	/**
	 * The gaps between two starts by one replica with no handover from before the first until
	 * the second: a steady leader's own rhythm.
	 */
	private static List<Long> steadyGaps(List<Fire> starts, List<Event> events) {
		List<Long> gaps = new ArrayList<>();
		for (int i = 1; i < starts.size(); i++) {
			Fire previous = starts.get(i - 1);
			Fire start = starts.get(i);
			boolean handover = events.stream()
				.anyMatch((event) -> event.at() - previous.asked() > -PERIOD.toNanos()
						&& start.asked() - event.at() > 0);
			if (!handover && start.replica().equals(previous.replica())) {
				gaps.add(start.asked() - previous.asked());
			}
		}
		return gaps;
	}

	private static Long max(List<Long> values) {
		return values.stream().max(Long::compare).orElse(null);
	}

	private static Long median(List<Long> values) {
		if (values.isEmpty()) {
			return null;
		}
		List<Long> sorted = values.stream().sorted().toList();
		return sorted.get(sorted.size() / 2);
	}

	private static String millis(Long nanos) {
		return (nanos == null || nanos == Long.MAX_VALUE) ? "-"
				: String.format(Locale.ROOT, "%d ms", Math.round(nanos / 1e6));
	}

	private static String micros(long nanos) {
		return (nanos == Long.MAX_VALUE) ? "-" : String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
	}

	private static double seconds(long nanos) {
		return nanos / 1e9;
	}

	private long writes() {
		long writes = 0;
		for (JobReplica replica : this.all) {
			ApiServer.Counts counts = this.server.counts(replica.identity);
			writes += counts.get(ApiServer.Kind.PUT) + counts.get(ApiServer.Kind.POST)
					+ counts.get(ApiServer.Kind.PATCH);
		}
		return writes;
	}

	/** Every replica ever started, for the request counts. */
	private final List<JobReplica> all = new ArrayList<>();

	private JobReplica newReplica() {
		JobReplica replica = new JobReplica("r" + (++this.generation));
		this.all.add(replica);
		return replica;
	}

	private JobReplica awaitLeaderOtherThan(JobReplica previous) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (System.nanoTime() - deadline < 0) {
			for (JobReplica replica : List.copyOf(this.replicas)) {
				if (replica != previous && replica.candidate.engine().isLeader("default")) {
					return replica;
				}
			}
			Thread.sleep(5);
		}
		throw new IllegalStateException("no leader besides " + previous + " within 60 s");
	}

	/** One replica: its engine through its proxy, its leader work, and its two jobs' timers. */
	private final class JobReplica {

		final String identity;

		final TcpCrusher proxy;

		final LeaderOnlyRegistry registry = new LeaderOnlyRegistry(new LeaderOnlyInvocations());

		final OurCandidate candidate;

		final WindowedStarts starts;

		final DueStarts due;

		private ScheduledExecutorService timers;

		JobReplica(String identity) {
			this.identity = identity;
			this.proxy = Replica.proxy(OncePerWindow.this.reactor, OncePerWindow.this.server);
			ElectionListener gates = new ElectionListener() {
				@Override
				public void granted(String election, long fencingToken, long gateOpenedAt) {
					OncePerWindow.this.log.gateOpened(identity, gateOpenedAt);
				}

				@Override
				public void revoked(String election, RevocationCause cause, long gateClosedAt) {
					OncePerWindow.this.log.gateClosed(identity, gateClosedAt, cause.toString());
				}
			};
			this.candidate = new OurCandidate(identity,
					OncePerWindow.this.server.access(identity, this.proxy.getBindAddress().getPort()),
					OurImplementation.settings("default", ApiServer.NAMESPACE, "once-per-window",
							OncePerWindow.this.timings),
					true, gates, this.registry);
			this.starts = new WindowedStarts(this.candidate.engine(), this.registry);
			this.due = new DueStarts(this.starts, this.registry, MonotonicClock.system());
			this.candidate.start();
		}

		/** Both jobs every period, from a phase of this replica's own. */
		JobReplica startTimers() {
			this.timers = Executors.newScheduledThreadPool(3);
			long phase = OncePerWindow.this.random.nextInt((int) PERIOD.toMillis());
			this.timers.scheduleAtFixedRate(() -> windowed(Job.WINDOWED, WINDOW), phase, PERIOD.toMillis(),
					TimeUnit.MILLISECONDS);
			this.timers.scheduleAtFixedRate(() -> windowed(Job.WINDOWED_SHORT, SHORT_WINDOW), phase,
					PERIOD.toMillis(), TimeUnit.MILLISECONDS);
			this.timers.scheduleAtFixedRate(this::plain, phase, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
			return this;
		}

		/** A timer's call, as the interceptor takes it: skipped while a run held here is due, held when the window is closed. */
		private void windowed(Job job, Duration window) {
			Runnable again = () -> start(job, window, null);
			this.due.called("default", job.name(), again);
			if (this.due.runsDue("default", job.name())) {
				fired(job, System.nanoTime(), Outcome.WINDOW_CLOSED, 0, 0);
				return;
			}
			start(job, window, () -> this.due.hold("default", job.name(), again));
		}

		/** @param holdUntilDue holds a start the window refused, and tells whether it did; {@code null} for none */
		private void start(Job job, Duration window, BooleanSupplier holdUntilDue) {
			long asked = System.nanoTime();
			WindowedStarts.Attempt attempt = this.starts.start("default", job.name(), window, window, false, job);
			if (attempt.outcome() == WindowedStarts.Outcome.WINDOW_CLOSED && holdUntilDue != null
					&& holdUntilDue.getAsBoolean()) {
				return;
			}
			if (attempt.run() == null) {
				fired(job, asked, switch (attempt.outcome()) {
					case NOT_LEADER -> Outcome.NOT_LEADER;
					case WINDOW_CLOSED -> Outcome.WINDOW_CLOSED;
					default -> Outcome.REFUSED;
				}, 0, 0);
				return;
			}
			long began = System.nanoTime();
			long counted = countedAt(job);
			try {
				work();
			}
			finally {
				attempt.run().end();
			}
			fired(job, counted, Outcome.STARTED, began, attempt.run().fencingToken());
		}

		/**
		 * The moment the engine counted the job's start from, on this JVM's monotonic clock: the
		 * replica's own record of it, which it tells on its wall clock, converted back with both
		 * clocks read together (within microseconds).
		 */
		private long countedAt(Job job) {
			WindowStatus status = this.candidate.engine()
				.windows("default")
				.stream()
				.filter((window) -> window.job().equals(job.name()))
				.findFirst()
				.orElseThrow();
			long now = System.nanoTime();
			Instant wallNow = Instant.now();
			return now - Duration.between(status.lastStart(), wallNow).toNanos();
		}

		private void plain() {
			long asked = System.nanoTime();
			LeaderCalls.Call call = this.registry.enter("default", false, "plain job");
			if (call == null) {
				fired(Job.PLAIN, asked, Outcome.REFUSED, 0, 0);
				return;
			}
			try {
				if (!this.candidate.engine().isLeader("default")) {
					fired(Job.PLAIN, asked, Outcome.NOT_LEADER, 0, 0);
					return;
				}
				long began = System.nanoTime();
				work();
				fired(Job.PLAIN, asked, Outcome.STARTED, began, 0);
			}
			finally {
				call.exit();
			}
		}

		private void fired(Job job, long asked, Outcome outcome, long began, long token) {
			OncePerWindow.this.log.fired(new Fire(job, this.identity, asked, outcome, began, token));
		}

		private void work() {
			try {
				Thread.sleep(WORK.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		void stopTimers() throws InterruptedException {
			if (this.timers != null) {
				this.timers.shutdown();
				this.timers.awaitTermination(10, TimeUnit.SECONDS);
			}
		}

		/** A rolling restart's stop (timers end, the release after the drain), or a kill's (neither). */
		void stop(boolean graceful) throws InterruptedException {
			if (graceful) {
				stopTimers();
			}
			else if (this.timers != null) {
				this.timers.shutdownNow();
			}
			this.due.close();
			this.candidate.stop(graceful);
			this.candidate.close();
			this.proxy.close();
		}

		@Override
		public String toString() {
			return this.identity;
		}

	}

}
