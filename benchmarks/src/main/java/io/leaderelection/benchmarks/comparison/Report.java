package io.leaderelection.benchmarks.comparison;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Figures;
import io.leaderelection.benchmarks.harness.Implementation;
import io.leaderelection.benchmarks.harness.Machine;
import io.leaderelection.benchmarks.harness.RequestRates;
import io.leaderelection.benchmarks.harness.SectionRun;
import io.leaderelection.benchmarks.harness.Stats;
import io.leaderelection.benchmarks.harness.Takeovers;
import io.leaderelection.benchmarks.harness.Timings;

/** The benchmark results as Markdown: tables side by side, ratios, targets, machine and method. */
public final class Report {

	

	private final Settings settings;

	private final String arguments;

	private final Map<String, String> fabric8Versions = new LinkedHashMap<>();

	private List<Implementation> implementations = List.of();

	private final List<JmhRun.Score> jmh = new ArrayList<>();

	private final List<Scale.Result> scale = new ArrayList<>();

	private final List<Takeovers.Result> takeovers = new ArrayList<>();

	private final List<RequestRates.Result> requests = new ArrayList<>();

	private String loadBefore = "?";

	private String loadAfter = "?";

	private Instant started;

	public Report(Settings settings, String arguments) {
		this.settings = settings;
		this.arguments = arguments;
	}

	/** A report of takeovers and requests only, rendered by {@link #tables}, not as a whole file. */
	public Report() {
		this(null, "");
	}

	public void machineBefore() {
		this.started = Instant.now();
		this.loadBefore = Machine.loadAverage();
	}

	public void machineAfter() {
		this.loadAfter = Machine.loadAverage();
	}

	public void fabric8Version(String key, String version) {
		this.fabric8Versions.put(key, version);
	}

	public void implementations(List<Implementation> implementations) {
		this.implementations = implementations;
	}

	public void jmh(List<JmhRun.Score> scores) {
		this.jmh.addAll(scores);
	}

	public void scale(Scale.Result result) {
		this.scale.add(result);
	}

	public void takeovers(Takeovers.Result result) {
		this.takeovers.add(result);
	}

	public void requests(RequestRates.Result result) {
		this.requests.add(result);
	}

	public String markdown(Instant finished) {
		StringBuilder out = new StringBuilder();
		out.append("# Benchmarks: this project's elector against fabric8's LeaderElector\n\n");
		SectionRun.producedBy(out, SectionRun.COMMAND, this.arguments,
				this.settings.quick() ? "scaled timings, few samples" : null, this.started, finished, this.loadBefore,
				this.loadAfter);
		out.append("- Baselines, loaded in class loaders of their own in the same JVM: ");
		List<String> versions = new ArrayList<>();
		this.fabric8Versions.forEach((key, version) -> versions.add(key + " runs " + version));
		out.append(String.join("; ", versions)).append(".\n");
		out.append("- API server: fabric8's `KubernetesMockServer` 7.3.1 in CRUD mode on 127.0.0.1, in the harness's JVM; ")
			.append("requests counted at the server, by a header each client sends.\n");
		out.append("- Ratios are this project ÷ the baseline: below 1 means this project's figure is lower.\n\n");
		targets(out);
		takeoverTables(out, "##");
		requestTable(out, "##", 1);
		scaleTable(out);
		jmhTable(out);
		method(out);
		return out.toString();
	}

	// ---- targets

	private void targets(StringBuilder out) {
		out.append("## Targets of issue 6 (default timings 15s/10s/2s)\n\n");
		out.append("| target | measured | met |\n|---|---|---|\n");
		Takeovers.Result graceful = takeover(ours(), Takeovers.Mode.GRACEFUL, Timings.DEFAULT);
		if (graceful != null && !graceful.takeovers().isEmpty()) {
			Stats stats = new Stats(graceful.takeovers());
			long p50 = stats.percentile(50);
			long p99 = stats.percentile(99);
			target(out, "graceful handover p50 < 100 ms", Figures.duration(p50) + " (n=" + stats.count() + ")",
					p50 < 100_000_000L && graceful.problems().isEmpty());
			target(out, "graceful handover p99 < 500 ms", Figures.duration(p99) + " (n=" + stats.count() + ")",
					p99 < 500_000_000L && graceful.problems().isEmpty());
		}
		else {
			out.append("| graceful handover | not measured with default timings | – |\n");
		}
		Takeovers.Result crash = takeover(ours(), Takeovers.Mode.CRASH, Timings.DEFAULT);
		if (crash != null && !crash.takeovers().isEmpty()) {
			Stats stats = new Stats(crash.takeovers());
			long limit = Timings.DEFAULT.leaseDuration().toNanos() + 200_000_000L;
			target(out, "crash failover p99 ≤ lease duration + 200 ms (15.2 s)",
					Figures.duration(stats.percentile(99)) + " (n=" + stats.count() + ": p99 is the maximum)",
					stats.percentile(99) <= limit && crash.problems().isEmpty());
		}
		else {
			out.append("| crash failover | not measured with default timings | – |\n");
		}
		RequestRates.Result ourRequests = requests(ours());
		if (ourRequests != null && ourRequests.timings().equals(Timings.DEFAULT)) {
			double ourRate = RequestRates.Result.total(ourRequests.follower());
			List<String> figures = new ArrayList<>();
			boolean met = ourRequests.leaderKept();
			for (Implementation baseline : baselines()) {
				RequestRates.Result theirs = requests(baseline);
				if (theirs == null) {
					continue;
				}
				double theirRate = RequestRates.Result.total(theirs.follower());
				figures.add(baseline.label() + " " + Figures.rate(theirRate) + "/s: "
						+ ((ourRate == 0) ? "none at all from ours" : String.format(Locale.ROOT, "%.1f× fewer", theirRate / ourRate)));
				met &= theirRate >= 10 * ourRate;
			}
			target(out, "follower requests ≥ 10× fewer than fabric8's",
					"this project " + Figures.rate(ourRate) + "/s per follower; " + String.join("; ", figures), met);
		}
		else {
			out.append("| follower requests | not measured with default timings | – |\n");
		}
		Scale.Result thousand = scaleOf(ours(), 1000);
		if (thousand != null && thousand.electorThreads() >= 0) {
			target(out, "1,000 elections in one JVM with ≤ 8 elector threads",
					thousand.electorThreads() + " threads named leader-election*" + (thousand.allLead() ? "" : " (not all leading!)"),
					thousand.electorThreads() <= 8 && thousand.allLead());
		}
		else {
			out.append("| 1,000 elections | not measured | – |\n");
		}
		JmhRun.Score plain = score("unannotated", "leader");
		JmhRun.Score gated = score("leaderOnly", "leader");
		JmhRun.Score plainFollower = score("unannotated", "follower");
		JmhRun.Score gatedFollower = score("leaderOnly", "follower");
		if (plain != null && gated != null && plainFollower != null && gatedFollower != null) {
			out.append("| `@LeaderOnly` overhead reported in ns against the unannotated call | leader: ")
				.append(nanos(gated.nanos() - plain.nanos()))
				.append(" ns more per call; follower (body skipped): ")
				.append(nanos(gatedFollower.nanos() - plainFollower.nanos()))
				.append(" ns more | reported |\n");
		}
		else {
			out.append("| `@LeaderOnly` overhead | not measured | – |\n");
		}
		out.append('\n');
	}

	private static void target(StringBuilder out, String target, String measured, boolean met) {
		out.append("| ").append(target).append(" | ").append(measured).append(" | ").append(met ? "yes" : "**no**")
			.append(" |\n");
	}

	// ---- takeovers

	/**
	 * The handover, failover and request tables, headed at the given level (e.g. {@code ###}),
	 * requests counted per the given number of seconds: for a section of a file of its own.
	 */
	public String tables(String level, int requestSeconds) {
		StringBuilder out = new StringBuilder();
		takeoverTables(out, level);
		requestTable(out, level, requestSeconds);
		return out.toString();
	}

	private void takeoverTables(StringBuilder out, String level) {
		if (this.takeovers.isEmpty()) {
			return;
		}
		out.append(level).append(" Handover and failover\n\n");
		out.append("Time from the leader being stopped with a release (graceful) or black-holed by its TCP proxy (crash) ")
			.append("to the successor's gate opening (this project: the engine's grant; fabric8: `onStartLeading`), ")
			.append("and from the old gate closing (this project: the revocation's gate-close time; fabric8: ")
			.append("`onStopLeading`) to the new one opening — negative when both were open at once. ")
			.append("Percentiles by nearest rank: with fewer than 100 samples p99 is the maximum.\n\n");
		List<String> groups = new ArrayList<>();
		for (Takeovers.Result result : this.takeovers) {
			String group = result.mode() + " " + result.timings();
			if (!groups.contains(group)) {
				groups.add(group);
			}
		}
		for (String group : groups) {
			List<Takeovers.Result> results = this.takeovers.stream()
				.filter((result) -> (result.mode() + " " + result.timings()).equals(group))
				.toList();
			Takeovers.Result first = results.get(0);
			String title = (first.mode() == Takeovers.Mode.GRACEFUL) ? "Graceful handover" : "Crash failover";
			out.append(level).append("# ").append(title).append(", timings ").append(first.timings()).append(", ")
				.append(results.stream().map((result) -> result.implementation().label() + " n=" + result.takeovers().size())
					.reduce((a, b) -> a + ", " + b).orElse(""))
				.append("\n\n");
			header(out, "measure");
			Function<Implementation, Takeovers.Result> of = (implementation) -> results.stream()
				.filter((result) -> result.implementation() == implementation)
				.findFirst()
				.orElse(null);
			takeoverRow(out, "stop → new gate open, p50", of, (result) -> statistic(result.takeovers(), 50));
			takeoverRow(out, "stop → new gate open, p99", of, (result) -> statistic(result.takeovers(), 99));
			takeoverRow(out, "stop → new gate open, min", of, (result) -> min(result.takeovers()));
			takeoverRow(out, "old gate closed → new gate open, min", of, (result) -> min(result.gaps()));
			takeoverRow(out, "old gate closed → new gate open, p50", of, (result) -> statistic(result.gaps(), 50));
			if (first.mode() == Takeovers.Mode.CRASH) {
				out.append("| old gate still open ").append(Takeovers.CLOSE_WAIT.toSeconds()).append(" s after the cut |");
				for (Implementation implementation : this.implementations) {
					Takeovers.Result result = of.apply(implementation);
					out.append(' ').append((result != null) ? result.neverClosed() + " of " + result.takeovers().size() : "–").append(" |");
				}
				out.append(" | |\n");
			}
			out.append('\n');
			for (Takeovers.Result result : results) {
				for (String problem : result.problems()) {
					out.append("- ").append(result.implementation().label()).append(": ").append(problem).append('\n');
				}
			}
			if (results.stream().anyMatch((result) -> !result.problems().isEmpty())) {
				out.append('\n');
			}
		}
	}

	private void takeoverRow(StringBuilder out, String label, Function<Implementation, Takeovers.Result> of,
			Function<Takeovers.Result, Long> measure) {
		List<Double> values = new ArrayList<>();
		List<String> cells = new ArrayList<>();
		for (Implementation implementation : this.implementations) {
			Takeovers.Result result = of.apply(implementation);
			Long value = (result != null) ? measure.apply(result) : null;
			values.add((value != null) ? value.doubleValue() : Double.NaN);
			cells.add((value != null) ? Figures.duration(value) : "–");
		}
		row(out, label, cells, values);
	}

	private static Long statistic(List<Long> values, double percentile) {
		return values.isEmpty() ? null : new Stats(values).percentile(percentile);
	}

	private static Long min(List<Long> values) {
		return values.isEmpty() ? null : new Stats(values).min();
	}

	// ---- requests

	/** @param seconds requests are counted per this many seconds (1: per second) */
	private void requestTable(StringBuilder out, String level, int seconds) {
		if (this.requests.isEmpty()) {
			return;
		}
		RequestRates.Result any = this.requests.get(0);
		String per = (seconds == 1) ? "per second" : "per " + seconds + " s";
		out.append(level).append(" API requests per election\n\n");
		out.append("One leader and two followers on one Lease, timings ").append(any.timings()).append(", counted at the ")
			.append("server over ").append(any.window().toSeconds()).append(" s once every follower was ready. ")
			.append("A watch counts once, when it is opened; requests ").append(per)
			.append(" by kind in brackets (WATCH: watches opened).\n\n");
		header(out, "requests " + per);
		for (String role : List.of("leader", "follower")) {
			List<String> cells = new ArrayList<>();
			List<Double> values = new ArrayList<>();
			for (Implementation implementation : this.implementations) {
				RequestRates.Result result = requests(implementation);
				if (result == null) {
					cells.add("–");
					values.add(Double.NaN);
					continue;
				}
				double[] rates = role.equals("leader") ? result.leader() : result.follower();
				double total = RequestRates.Result.total(rates) * seconds;
				List<String> kinds = new ArrayList<>();
				for (ApiServer.Kind kind : ApiServer.Kind.values()) {
					if (rates[kind.ordinal()] > 0) {
						kinds.add(kind + " " + Figures.rate(rates[kind.ordinal()] * seconds));
					}
				}
				cells.add(Figures.rate(total) + (kinds.isEmpty() ? "" : " (" + String.join(", ", kinds) + ")")
						+ (result.leaderKept() ? "" : " — leadership changed!"));
				values.add(total);
			}
			row(out, role + " (per " + (role.equals("leader") ? "leader" : "follower") + ")", cells, values);
		}
		out.append('\n');
	}

	// ---- scale

	private void scaleTable(StringBuilder out) {
		if (this.scale.isEmpty()) {
			return;
		}
		out.append("## Elections in one JVM\n\n");
		out.append("Each row's figures come from a fresh JVM (-Xmx1g) running that many elections of one ")
			.append("implementation on one fabric8 client, each election alone on its Lease (so all lead), timings ")
			.append(this.settings.timings()).append(", measured over ").append(this.settings.scaleWindowSeconds())
			.append(" s once all led and two retry periods passed. Elector threads: this project's are the threads ")
			.append("named `leader-election*`; fabric8's are its client executor's and its shared scheduler's ")
			.append("(the threads its loop runs on). JVM threads include the HTTP client's and the JVM's own. ")
			.append("Heap: used after a full GC at the end of the window. CPU: the process's CPU time per second.")
			.append(" Time until all led: from the start, with no Lease in existence; this project creates a Lease ")
			.append("it finds missing without holder and claims it once unchanged for a lease duration, so that a ")
			.append("leader cut off from a Lease deleted under it has closed its gate.\n\n");
		header(out, "elections: measure");
		for (int elections : this.settings.scale()) {
			scaleRow(out, elections, "elector threads", (result) -> result.electorThreads(), (value) -> String.valueOf(Math.round(value)));
			scaleRow(out, elections, "JVM threads", (result) -> result.jvmThreads(), (value) -> String.valueOf(Math.round(value)));
			scaleRow(out, elections, "heap after GC", (result) -> result.heapBytes() / 1048576.0,
					(value) -> String.format(Locale.ROOT, "%.1f MiB", value));
			scaleRow(out, elections, "CPU", Scale.Result::cpuMillisPerSecond,
					(value) -> String.format(Locale.ROOT, "%.1f ms/s", value));
			scaleRow(out, elections, "requests at the server", Scale.Result::requestsPerSecond, (value) -> Figures.rate(value) + "/s");
			scaleRow(out, elections, "time until all led", (result) -> result.readyMillis(), (value) -> Figures.duration((long) (value * 1e6)));
			scaleRow(out, elections, "leaderships lost (start to window end)", (result) -> result.losses(),
					(value) -> String.valueOf(Math.round(value)));
		}
		out.append('\n');
		for (Scale.Result result : this.scale) {
			for (String problem : result.problems()) {
				out.append("- ").append(result.implementation().label()).append(", ").append(result.elections())
					.append(" elections: ").append(problem).append('\n');
			}
			if (!result.allLead() && result.problems().isEmpty()) {
				out.append("- ").append(result.implementation().label()).append(", ").append(result.elections())
					.append(" elections: not all still led at the end of the window\n");
			}
		}
		out.append("\nRequests by kind: per second in the window, and in all from the start until every election led:\n\n");
		for (Scale.Result result : this.scale) {
			out.append("- ").append(result.implementation().label()).append(", ").append(result.elections())
				.append(": ").append(result.requestKinds()).append("; until all led: ").append(result.startupRequests())
				.append('\n');
		}
		out.append("\nThreads by name (digits as #), most at once during the window:\n\n");
		for (Scale.Result result : this.scale) {
			out.append("- ").append(result.implementation().label()).append(", ").append(result.elections())
				.append(": ").append(result.threadGroups()).append('\n');
		}
		out.append('\n');
	}

	private void scaleRow(StringBuilder out, int elections, String label, ToDoubleFunction<Scale.Result> measure,
			Function<Double, String> format) {
		List<String> cells = new ArrayList<>();
		List<Double> values = new ArrayList<>();
		for (Implementation implementation : this.implementations) {
			Scale.Result result = scaleOf(implementation, elections);
			double value = (result != null && result.electorThreads() >= 0) ? measure.applyAsDouble(result) : Double.NaN;
			values.add(value);
			cells.add(Double.isNaN(value) ? "–" : format.apply(value));
		}
		row(out, String.format(Locale.ROOT, "%,d: %s", elections, label), cells, values);
	}

	// ---- JMH

	private void jmhTable(StringBuilder out) {
		if (this.jmh.isEmpty()) {
			return;
		}
		out.append("## `@LeaderOnly` and `isLeader()` (JMH)\n\n");
		out.append("Average time per call in ns (± JMH's 99.9% error), one forked JVM per benchmark and role, ")
			.append(this.settings.jmhWarmups()).append(" warm-up and ").append(this.settings.jmhIterations())
			.append(" measured iterations of ").append(this.settings.jmhMillis()).append(" ms. A minimal Spring ")
			.append("context with `LeaderElectionAutoConfiguration` and `LeaderOnlyAutoConfiguration` and a ")
			.append("`KubernetesClient` on an in-process CRUD mock server; `leader`: the replica leads; `follower`: ")
			.append("another identity holds the Lease. The body is `return value + 1`, on a bean without the ")
			.append("annotation (a direct call) and on one with `@LeaderOnly` on the method (a class proxy). ")
			.append("fabric8's LeaderElector has no gate to compare with.\n\n");
		out.append("| call | leader | follower |\n|---|---|---|\n");
		for (String benchmark : List.of("unannotated", "leaderOnly", "isLeader")) {
			String label = switch (benchmark) {
				case "unannotated" -> "same method, bean without the annotation";
				case "leaderOnly" -> "`@LeaderOnly` method";
				default -> "`LeaderElector.isLeader()`";
			};
			out.append("| ").append(label).append(" |");
			for (String role : List.of("leader", "follower")) {
				JmhRun.Score score = score(benchmark, role);
				out.append(' ').append((score != null) ? nanos(score.nanos()) + " ± " + nanos(score.error()) + " ns" : "–")
					.append(" |");
			}
			out.append('\n');
		}
		out.append("| `@LeaderOnly` overhead (difference) |");
		for (String role : List.of("leader", "follower")) {
			JmhRun.Score plain = score("unannotated", role);
			JmhRun.Score gated = score("leaderOnly", role);
			out.append(' ').append((plain != null && gated != null)
					? nanos(gated.nanos() - plain.nanos()) + " ns (" + String.format(Locale.ROOT, "%.0f×", gated.nanos() / plain.nanos()) + " the unannotated call)"
					: "–").append(" |");
		}
		out.append("\n\n");
	}

	// ---- method

	private void method(StringBuilder out) {
		out.append("## How it is measured\n\n");
		out.append("""
				- Every elector is built as it runs in an application: this project's `ElectionEngine` with \
				its own `LeaderElectionThreads` and its own fabric8 client per replica (fabric8's default \
				client settings); fabric8's `LeaderElector` from `client.leaderElector()` with a `LeaseLock`, \
				one client per replica, `releaseOnCancel` for the graceful handover. Every replica sends a \
				header naming it, so the server counts its requests.
				- Graceful handover and crash failover: one Lease per implementation and scenario; each sample \
				has a leader and a follower that has sent its first request (and, for this project, opened its \
				watch and received a renewal of the leader through it: the mock server logs a watch request \
				before it registers the watch); then a pause drawn uniformly from [0, 2.2 retry periods) — the same sequence for every \
				implementation — so that the stop falls anywhere in a polling follower's cycle; then the leader \
				is stopped (this project: `engine.stop(true)`, which closes the gate and writes the release; \
				fabric8: cancelling its future, which writes the release before returning) or black-holed \
				(its TCP proxy, netcrusher's `TcpCrusher.freeze()`, stops passing bytes while connections stay \
				open). The follower becomes the next leader and a new follower starts. The three \
				implementations run at the same time on separate Leases.
				- Gate times: this project's listener is given the engine's own gate-open and gate-close \
				times (monotonic clock); fabric8's callbacks are timed with `System.nanoTime()` when called.
				- Requests: counted at the server (the mock server's request log, drained as requests come), \
				by client header and kind; the three implementations run at the same time on separate Leases.
				- Scale: a child JVM per implementation and number of elections, so that no run inherits \
				another's threads or heap; the server stays in the harness's JVM, so the child's CPU and heap \
				are the elector's and its client's only.
				- JMH: `LeaderOnlyBenchmark`, run by the harness through JMH's `Runner`.
				- The harness's code is in `benchmarks/` (the fabric8 adapter in `fabric8-baseline/`, compiled \
				against 7.8.0 and loaded over 7.3.1's or 7.8.0's classes). `./mvnw -B verify` compiles both \
				modules and runs none of it. A short trial: \
				`./mvnw -B -Pbenchmarks -pl benchmarks -am verify -Dbenchmarks.args="quick"` (scaled timings, \
				few samples, written to benchmarks/target/benchmarks-quick.md); parts can be chosen with \
				`only=jmh,scale,handover,requests,crash`.
				""");
	}

	// ---- helpers

	private void header(StringBuilder out, String first) {
		out.append("| ").append(first).append(" |");
		for (Implementation implementation : this.implementations) {
			out.append(' ').append(implementation.label()).append(" |");
		}
		for (Implementation baseline : baselines()) {
			out.append(" ÷ ").append(baseline.label().replace("fabric8 ", "")).append(" |");
		}
		out.append("\n|---|");
		out.append("---|".repeat(this.implementations.size() + baselines().size()));
		out.append('\n');
	}

	/** A row: the cells, then this project's value divided by each baseline's. */
	private void row(StringBuilder out, String label, List<String> cells, List<Double> values) {
		out.append("| ").append(label).append(" |");
		for (String cell : cells) {
			out.append(' ').append(cell).append(" |");
		}
		double ours = values.get(0);
		for (int i = 1; i < values.size(); i++) {
			out.append(' ').append(Figures.ratio(ours, values.get(i))).append(" |");
		}
		out.append('\n');
	}

	private Implementation ours() {
		return this.implementations.isEmpty() ? null : this.implementations.get(0);
	}

	private List<Implementation> baselines() {
		return this.implementations.isEmpty() ? List.of() : this.implementations.subList(1, this.implementations.size());
	}

	private Takeovers.Result takeover(Implementation implementation, Takeovers.Mode mode, Timings timings) {
		return this.takeovers.stream()
			.filter((result) -> result.implementation() == implementation && result.mode() == mode
					&& result.timings().equals(timings))
			.findFirst()
			.orElse(null);
	}

	private RequestRates.Result requests(Implementation implementation) {
		return this.requests.stream()
			.filter((result) -> result.implementation() == implementation)
			.findFirst()
			.orElse(null);
	}

	private Scale.Result scaleOf(Implementation implementation, int elections) {
		return this.scale.stream()
			.filter((result) -> result.implementation() == implementation && result.elections() == elections)
			.findFirst()
			.orElse(null);
	}

	private JmhRun.Score score(String benchmark, String role) {
		return this.jmh.stream()
			.filter((score) -> score.benchmark().equals(benchmark) && score.role().equals(role))
			.findFirst()
			.orElse(null);
	}

	private static String nanos(double nanos) {
		return (Math.abs(nanos) >= 100) ? String.format(Locale.ROOT, "%.0f", nanos)
				: String.format(Locale.ROOT, "%.1f", nanos);
	}

}
