package io.leaderelection.benchmarks.renewcadence;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.LeaderElectionSettingsResolver;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.ElectionGroup;
import io.leaderelection.benchmarks.harness.Fabric8Implementation;
import io.leaderelection.benchmarks.harness.Figures;
import io.leaderelection.benchmarks.harness.HarnessArguments;
import io.leaderelection.benchmarks.harness.Implementation;
import io.leaderelection.benchmarks.harness.Log;
import io.leaderelection.benchmarks.harness.MarkdownSection;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.Parallel;
import io.leaderelection.benchmarks.harness.SectionRun;
import io.leaderelection.benchmarks.harness.Stats;
import io.leaderelection.benchmarks.harness.Takeovers;
import io.leaderelection.benchmarks.harness.Timings;
import org.netcrusher.core.reactor.NioReactor;

/**
 * What the leader's renew period costs and buys: this project renewing every retry period (as it
 * did before {@code renewPeriod} existed), every default renew period (as
 * {@code leader.election.renew-period} resolves when unset) and, to show the trade-off, every
 * longer period, beside fabric8's LeaderElector 7.3.1 and 7.8.0 (which renew every retry period),
 * all in the same run on the same API server, each on Leases of its own:
 * <ol>
 * <li>one replica holding 64 Leases (64 elections on one client, each alone on its Lease): API
 * writes and all requests per held Lease per second, counted at the server over a window once all
 * lead, and the leaderships lost;</li>
 * <li>graceful handover ({@link Takeovers}, the leader stopped with a release);</li>
 * <li>crash failover ({@link Takeovers}, the leader black-holed by its TCP proxy).</li>
 * </ol>
 * <p>
 * Run it with {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify
 * -Dbenchmarks.main=io.leaderelection.benchmarks.renewcadence.RenewCadence}; it prints its section and writes
 * it into the file named by {@code benchmarks.output} (by default docs/benchmarks.md) under
 * {@value #HEADING}, replacing that section and nothing else. Arguments
 * ({@code -Dbenchmarks.args=...}): {@code timings=15s/10s/2s}, {@code leases=64},
 * {@code window=120} (seconds; a multiple of every renew period), {@code handovers=20},
 * {@code crashes=15}, {@code longer=8s} (or {@code none}), {@code only=requests,handover,crash}, or
 * {@code quick} (scaled timings, a 20 s window, 3 handovers and 2 crashes each, written to
 * target/renew-cadence-quick.md).
 */
public final class RenewCadence {

	static final String HEADING = "## Renew period";

	/** The section of the benchmarks file this harness records. */
	public static final MarkdownSection SECTION = new MarkdownSection(HEADING);

	private static final String BEFORE = "this project: before";

	private static final String BASELINE = "fabric8-7.3.1";

	/**
	 * One replica holding its Leases, over the window.
	 * @param seconds the window's length
	 * @param counts the requests the server counted from the replica in the window, by
	 * {@link ApiServer.Kind}
	 * @param leadingAtStart elections leading when the window began
	 * @param leadingAtEnd elections leading when it ended
	 * @param lostInWindow leaderships lost in the window
	 * @param lostBefore leaderships lost from the start to the window
	 * @param allLedNanos from the start to every election leading
	 */
	record Held(Implementation implementation, int leases, double seconds, long[] counts, int leadingAtStart,
			int leadingAtEnd, int lostInWindow, int lostBefore, long allLedNanos, List<String> problems) {

		/** Requests of the given kinds per held Lease per second. */
		double perLease(ApiServer.Kind... kinds) {
			long count = 0;
			for (ApiServer.Kind kind : kinds) {
				count += this.counts[kind.ordinal()];
			}
			return count / this.seconds / this.leases;
		}

		double writes() {
			return perLease(ApiServer.Kind.PUT, ApiServer.Kind.PATCH, ApiServer.Kind.POST, ApiServer.Kind.OTHER);
		}

		double all() {
			return perLease(ApiServer.Kind.values());
		}

	}

	private RenewCadence() {
	}

	public static void main(String[] args) throws Exception {
		SectionRun run = new SectionRun(RenewCadence.class, SECTION, args,
				"timings, leases, window, handovers, crashes, longer, only");
		HarnessArguments arguments = run.arguments();
		Timings timings = arguments.timings();
		int leases = arguments.integer("leases", 64, 64);
		Duration window = arguments.seconds("window", 120, 20);
		int handovers = arguments.integer("handovers", 20, 3);
		int crashes = arguments.integer("crashes", 15, 2);
		String longerText = arguments.values().getOrDefault("longer",
				Timings.format(Duration.ofMillis(timings.renewDeadline().toMillis() * 8 / 10)));
		List<String> only = arguments.list("only", "requests,handover,crash");

		Duration before = timings.retryPeriod();
		Duration chosen = defaultRenewPeriod(timings);
		List<Implementation> implementations = new ArrayList<>();
		implementations.add(ours(BEFORE, before));
		if (!chosen.equals(before)) {
			implementations.add(ours("this project: default", chosen));
		}
		if (!longerText.equals("none")) {
			Duration longer = Timings.duration(longerText);
			if (!longer.equals(before) && !longer.equals(chosen)) {
				implementations.add(ours("this project: longer", longer));
			}
		}
		List<Fabric8Implementation> baselines = Fabric8Implementation.baselines();
		for (Fabric8Implementation fabric8 : baselines) {
			Log.log("fabric8 baseline " + fabric8.key() + " runs fabric8 " + fabric8.version());
		}
		implementations.addAll(baselines);
		for (Implementation implementation : implementations) {
			Log.log(implementation.label() + ": renews every "
					+ Timings.format(implementation.renewPeriod(timings)) + ", " + timings);
		}

		List<Held> held = new ArrayList<>();
		List<Takeovers.Result> takeovers = new ArrayList<>();
		try (ApiServer server = ApiServer.start()) {
			NioReactor reactor = new NioReactor();
			try {
				if (only.contains("requests")) {
					Log.log("requests: one replica holding " + leases + " Leases each, " + window.toSeconds()
							+ " s window, " + timings);
					for (Held result : Parallel.inParallel(implementations,
							(implementation) -> hold(server, implementation, leases, timings, window))) {
						Log.log("  " + describe(result));
						held.add(result);
					}
				}
				Takeovers harness = new Takeovers(server, reactor);
				if (only.contains("handover")) {
					Log.log("graceful handover: " + handovers + " samples each, " + timings);
					takeovers.addAll(Parallel.inParallel(implementations, (implementation) -> harness
						.run(implementation, Takeovers.Mode.GRACEFUL, handovers, timings)));
				}
				if (only.contains("crash")) {
					Log.log("crash failover: " + crashes + " samples each, " + timings);
					takeovers.addAll(Parallel.inParallel(implementations, (implementation) -> harness
						.run(implementation, Takeovers.Mode.CRASH, crashes, timings)));
				}
			}
			finally {
				reactor.close();
			}
		}
		run.record(section(run, implementations, held, takeovers, timings, leases, window, handovers, crashes));
	}

	/** This project, its leaders renewing every given period. */
	private static Implementation ours(String label, Duration renewPeriod) {
		return OurImplementation.renewingEvery("ours-renew-" + Timings.format(renewPeriod), label,
				(timings) -> renewPeriod);
	}

	/**
	 * The renew period {@code leader.election.renew-period} resolves to with these timings when it
	 * is not set: what {@link LeaderElectionSettingsResolver} gives the default election.
	 */
	static Duration defaultRenewPeriod(Timings timings) {
		LeaderElectionProperties properties = new LeaderElectionProperties();
		properties.setIdentity("renew-cadence");
		properties.setNamespace(ApiServer.NAMESPACE);
		properties.setLeaseDuration(timings.leaseDuration());
		properties.setRenewDeadline(timings.renewDeadline());
		properties.setRetryPeriod(timings.retryPeriod());
		return new LeaderElectionSettingsResolver((variable) -> null, Path.of("/nonexistent"))
			.resolve(properties, "renew-cadence", () -> ApiServer.NAMESPACE)
			.elections()
			.get(0)
			.renewPeriod();
	}

	// ---- one replica holding many Leases

	/**
	 * Starts the elections, waits until all lead and two more cycles (the retry period or the
	 * renew period, the longer) have passed, then counts the replica's requests at the server over
	 * the window.
	 */
	static Held hold(ApiServer server, Implementation implementation, int leases, Timings timings, Duration window)
			throws InterruptedException {
		String client = "cadence-" + implementation.key();
		String namespace = client.replace('.', '-');
		List<String> problems = new ArrayList<>();
		long startedAt = System.nanoTime();
		try (ElectionGroup group = implementation.elections(server.port(), client, namespace, leases, timings)) {
			Duration limit = timings.leaseDuration().multipliedBy(4).plusSeconds(60);
			while (group.leading() < leases) {
				if (System.nanoTime() - startedAt > limit.toNanos()) {
					problems.add("only " + group.leading() + " of " + leases + " led within " + limit.toSeconds()
							+ " s; measured all the same");
					break;
				}
				Thread.sleep(20);
			}
			long allLed = System.nanoTime() - startedAt;
			Thread.sleep(Takeovers.cycle(implementation, timings).multipliedBy(2).toMillis());
			int lostBefore = group.losses();
			int leadingAtStart = group.leading();
			long[] before = server.counts(client).snapshot();
			long windowStart = System.nanoTime();
			Thread.sleep(window.toMillis());
			long[] after = server.counts(client).snapshot();
			double seconds = (System.nanoTime() - windowStart) / 1e9;
			int leadingAtEnd = group.leading();
			int lostInWindow = group.losses() - lostBefore;
			long[] counts = new long[after.length];
			for (int k = 0; k < after.length; k++) {
				counts[k] = after[k] - before[k];
			}
			return new Held(implementation, leases, seconds, counts, leadingAtStart, leadingAtEnd, lostInWindow,
					lostBefore, allLed, problems);
		}
	}

	private static String describe(Held result) {
		return String.format(java.util.Locale.ROOT,
				"%s: writes %s, all %s per held Lease per s (%s); led %d → %d of %d, lost %d in the window%s",
				result.implementation().label(), Figures.rate(result.writes()), Figures.rate(result.all()),
				kinds(result), result.leadingAtStart(), result.leadingAtEnd(), result.leases(), result.lostInWindow(),
				result.problems().isEmpty() ? "" : "; " + result.problems());
	}

	/** Requests per held Lease per second by kind, the kinds counted only. */
	private static String kinds(Held result) {
		List<String> kinds = new ArrayList<>();
		for (ApiServer.Kind kind : ApiServer.Kind.values()) {
			if (result.counts()[kind.ordinal()] > 0) {
				kinds.add(kind + " " + Figures.rate(result.perLease(kind)));
			}
		}
		return kinds.isEmpty() ? "none" : String.join(", ", kinds);
	}

	// ---- the section

	static String section(SectionRun run, List<Implementation> implementations, List<Held> held, List<Takeovers.Result> takeovers,
			Timings timings, int leases, Duration window, int handovers, int crashes) {
		Implementation before = implementations.get(0);
		Implementation baseline = implementations.stream()
			.filter((implementation) -> implementation.key().equals(BASELINE))
			.findFirst()
			.orElse(null);
		StringBuilder out = new StringBuilder();
		run.open(out, "scaled timings, a short window, few samples");
		out.append("- Timings ")
			.append(timings)
			.append(" (lease duration / renew deadline / retry period")
			.append(timings.equals(Timings.DEFAULT) ? ", the defaults" : "")
			.append(") for every elector. This project's leader renews every renew period once a renewal ")
			.append("succeeded (after a failure it retries every retry period); the rows: ");
		List<String> rows = new ArrayList<>();
		for (Implementation implementation : implementations) {
			String period = Timings.format(implementation.renewPeriod(timings));
			rows.add("**" + implementation.label() + "** renews every " + period + switch (role(implementation)) {
				case "before" -> " (the retry period: what this project did before `renew-period`)";
				case "default" -> " (the default of `leader.election.renew-period` with these timings, as "
						+ "`LeaderElectionSettingsResolver` resolves it: half the renew deadline, or the retry period "
						+ "when that is longer)";
				case "longer" -> " (a longer period, to show the trade-off)";
				default -> " (its retry period: fabric8's LeaderElector renews every retry period)";
			});
		}
		out.append(String.join("; ", rows)).append(".\n");
		out.append("- All side by side in the same run, in one JVM, on one API server (fabric8's ")
			.append("`KubernetesMockServer` 7.3.1 in CRUD mode on 127.0.0.1), each elector on Leases of its own; ")
			.append("requests counted at the server, by a header each client sends.\n");
		out.append("- Percentiles by nearest rank: with fewer than 100 samples p99 is the maximum. Ratios: the ")
			.append("row's figure ÷ the same figure of the row *").append(before.label()).append('*');
		if (baseline != null) {
			out.append(" and ÷ that of *").append(baseline.label()).append('*');
		}
		out.append(" (below 1: lower).\n\n");

		expected(out, implementations, timings);
		summary(out, implementations, held, takeovers, timings, leases);
		if (!held.isEmpty()) {
			requestTable(out, implementations, held, timings, leases, before, baseline);
		}
		for (Takeovers.Mode mode : Takeovers.Mode.values()) {
			List<Takeovers.Result> results = takeovers.stream().filter((result) -> result.mode() == mode).toList();
			if (!results.isEmpty()) {
				takeoverTable(out, implementations, results, mode, timings, (mode == Takeovers.Mode.GRACEFUL)
						? handovers : crashes, before, baseline);
			}
		}
		method(out, leases, window);
		return out.toString();
	}

	private static String role(Implementation implementation) {
		String label = implementation.label();
		return label.startsWith("this project: ") ? label.substring("this project: ".length()) : "baseline";
	}

	private static void expected(StringBuilder out, List<Implementation> implementations, Timings timings) {
		Duration lease = timings.leaseDuration();
		Duration deadline = timings.renewDeadline();
		out.append("What to expect (arithmetic from the settings, not measured):\n\n");
		out.append("- API writes per held Lease per second: one renewal write every renew period, so ")
			.append("1 ÷ renew period (");
		List<String> rates = new ArrayList<>();
		List<String> windows = new ArrayList<>();
		List<String> margins = new ArrayList<>();
		List<String> timeouts = new ArrayList<>();
		for (Implementation implementation : implementations) {
			if (!(implementation instanceof OurImplementation)) {
				continue;
			}
			Duration period = implementation.renewPeriod(timings);
			rates.add(Figures.rate(1e9 / period.toNanos()) + "/s at " + Timings.format(period));
			windows.add(Figures.duration(lease.minus(period).toNanos()) + " to " + Figures.duration(lease.toNanos())
					+ " at " + Timings.format(period));
			Duration margin = deadline.minus(period);
			margins.add(Figures.duration(margin.toNanos()) + " at " + Timings.format(period));
			Duration firstTimeout = margin.minus(timings.retryPeriod());
			timeouts.add(Figures.duration(Math.max(firstTimeout.toNanos(), margin.toNanos() / 2)));
		}
		out.append(String.join(", ", rates)).append("). fabric8 renews every retry period with a GET and a PATCH.\n");
		out.append("- Crash failover, from the cut: the last successful renewal began less than a renew period ")
			.append("before it, and a follower takes over a lease duration after the last renewal it saw: between ")
			.append("lease duration − renew period and lease duration after the cut (")
			.append(String.join(", ", windows))
			.append("), plus the follower's detection (this project's followers watch the Lease and claim it when ")
			.append("it expires; fabric8's poll every retry period). Counted from the last renewal it is a lease ")
			.append("duration whatever the renew period: a longer renew period does not slow failover.\n");
		out.append("- Old gate closed → new gate open after a crash: the old gate closes a renew deadline after ")
			.append("the start of the last successful renewal, the new one opens a lease duration after it: about ")
			.append(Figures.duration(lease.minus(deadline).toNanos()))
			.append(" (lease duration − renew deadline) whatever the renew period, never both open at once.\n");
		out.append("- Graceful handover: the leader writes its release and the follower claims the Lease on it ")
			.append("(this project's followers see it through their watch): the renew period plays no part.\n");
		out.append("- The price of a longer renew period: when a renewal fails or hangs, the leader has renew ")
			.append("deadline − renew period left before its gate closes (")
			.append(String.join(", ", margins))
			.append("); the engine gives the renewal's request that time less a retry period, or half of it when ")
			.append("that is more (")
			.append(String.join(", ", timeouts))
			.append("), and retries every retry period after a failure. Not measured here: apart from the ")
			.append("cut-off leaders of the crash failovers, the mock server answers every request.\n\n");
	}

	private static void summary(StringBuilder out, List<Implementation> implementations, List<Held> held,
			List<Takeovers.Result> takeovers, Timings timings, int leases) {
		out.append("### Summary, timings ").append(timings).append("\n\n");
		out.append("| elector | renews every | API writes per held Lease per s (").append(leases)
			.append(" Leases, one replica) | leaderships lost in the window (before it) | graceful handover p50 / p99 | ")
			.append("crash failover p50 / p99 | crash: old gate closed → new gate open, min |\n");
		out.append("|---|---|---|---|---|---|---|\n");
		for (Implementation implementation : implementations) {
			Held requests = find(held, implementation);
			Takeovers.Result graceful = find(takeovers, implementation, Takeovers.Mode.GRACEFUL);
			Takeovers.Result crash = find(takeovers, implementation, Takeovers.Mode.CRASH);
			out.append("| ")
				.append(implementation.label())
				.append(" | ")
				.append(Timings.format(implementation.renewPeriod(timings)))
				.append(" | ")
				.append((requests != null) ? Figures.rate(requests.writes()) : "–")
				.append(" | ")
				.append((requests != null) ? requests.lostInWindow() + " (" + requests.lostBefore() + ")" : "–")
				.append(" | ")
				.append(percentiles(graceful))
				.append(" | ")
				.append(percentiles(crash))
				.append(" | ")
				.append((crash != null && !crash.gaps().isEmpty()) ? Figures.duration(new Stats(crash.gaps()).min())
						: "–")
				.append(" |\n");
		}
		out.append('\n');
	}

	private static String percentiles(Takeovers.Result result) {
		if (result == null || result.takeovers().isEmpty()) {
			return "–";
		}
		Stats stats = new Stats(result.takeovers());
		return Figures.duration(stats.percentile(50)) + " / " + Figures.duration(stats.percentile(99));
	}

	private static void requestTable(StringBuilder out, List<Implementation> implementations, List<Held> held,
			Timings timings, int leases, Implementation before, Implementation baseline) {
		Held any = held.get(0);
		out.append("### API requests, one replica holding ").append(leases).append(" Leases, timings ")
			.append(timings).append(", ").append(Math.round(any.seconds())).append(" s window\n\n");
		out.append("Per held Lease per second (the replica's requests ÷ ").append(leases)
			.append(" ÷ the window). Writes: PUT, PATCH, POST and DELETE; all: every request, a watch counted ")
			.append("once, when opened.\n\n");
		out.append("| elector | renews every | expected writes (1 ÷ renew period) | writes | writes ÷ before")
			.append(baselineHeader(baseline))
			.append(" | all requests | all ÷ before")
			.append(baselineHeader(baseline))
			.append(" | by kind | Leases led at the window's start / end | leaderships lost in the window ")
			.append("(before it) |\n");
		out.append("|---|---|---|---|---|").append((baseline != null) ? "---|" : "").append("---|---|")
			.append((baseline != null) ? "---|" : "").append("---|---|---|\n");
		Held first = find(held, before);
		Held theirs = (baseline != null) ? find(held, baseline) : null;
		for (Implementation implementation : implementations) {
			Held result = find(held, implementation);
			if (result == null) {
				continue;
			}
			out.append("| ")
				.append(implementation.label())
				.append(" | ")
				.append(Timings.format(implementation.renewPeriod(timings)))
				.append(" | ")
				.append(Figures.rate(1e9 / implementation.renewPeriod(timings).toNanos()))
				.append(" | ")
				.append(Figures.rate(result.writes()))
				.append(" | ")
				.append(ratio(result, first, Held::writes));
			if (baseline != null) {
				out.append(" | ").append(ratio(result, theirs, Held::writes));
			}
			out.append(" | ").append(Figures.rate(result.all())).append(" | ").append(ratio(result, first, Held::all));
			if (baseline != null) {
				out.append(" | ").append(ratio(result, theirs, Held::all));
			}
			out.append(" | ")
				.append(kinds(result))
				.append(" | ")
				.append(result.leadingAtStart())
				.append(" / ")
				.append(result.leadingAtEnd())
				.append(" | ")
				.append(result.lostInWindow())
				.append(" (")
				.append(result.lostBefore())
				.append(") |\n");
		}
		out.append('\n');
		List<String> notes = new ArrayList<>();
		for (Held result : held) {
			long periodMillis = result.implementation().renewPeriod(timings).toMillis();
			long windowMillis = Math.round(result.seconds()) * 1000;
			if (windowMillis % periodMillis != 0) {
				notes.add(result.implementation().label() + ": the window is not a multiple of its renew period, "
						+ "so its count may be off by up to one renewal per Lease");
			}
			notes.add(result.implementation().label() + ": every Lease led " + Figures.duration(result.allLedNanos())
					+ " after the start (no Lease existed)");
			for (String problem : result.problems()) {
				notes.add(result.implementation().label() + ": **" + problem + "**");
			}
		}
		for (String note : notes) {
			out.append("- ").append(note).append('\n');
		}
		out.append('\n');
	}

	private static String baselineHeader(Implementation baseline) {
		return (baseline != null) ? " | ÷ " + baseline.label() : "";
	}

	private static String ratio(Held result, Held reference, Function<Held, Double> measure) {
		return (reference != null) ? Figures.ratio(measure.apply(result), measure.apply(reference)) : "–";
	}

	private static void takeoverTable(StringBuilder out, List<Implementation> implementations,
			List<Takeovers.Result> results, Takeovers.Mode mode, Timings timings, int samples, Implementation before,
			Implementation baseline) {
		boolean crash = mode == Takeovers.Mode.CRASH;
		out.append("### ")
			.append(crash ? "Crash failover" : "Graceful handover")
			.append(", timings ")
			.append(timings)
			.append(", n=")
			.append(samples)
			.append(" each\n\n");
		out.append(crash
				? "From the leader being black-holed by its TCP proxy to the successor's gate opening; "
				: "From the leader being stopped with a release to the successor's gate opening; ")
			.append("gap: from the old gate closing to the new one opening (negative: both open at once). ")
			.append("With n < 100, p99 is the maximum.\n\n");
		out.append("| elector | renews every |")
			.append(crash ? " expected from the cut (+ detection) |" : "")
			.append(" p50 | p99 | min | p50 ÷ before | p99 ÷ before |")
			.append((baseline != null) ? " p50 ÷ " + baseline.label() + " | p99 ÷ " + baseline.label() + " |" : "")
			.append(" gap min | gap p50 |")
			.append(crash ? " old gate still open " + Takeovers.CLOSE_WAIT.toSeconds() + " s after the cut |" : "")
			.append('\n');
		int columns = 9 + (crash ? 2 : 0) + ((baseline != null) ? 2 : 0);
		out.append("|").append("---|".repeat(columns)).append('\n');
		Takeovers.Result first = find(results, before, mode);
		Takeovers.Result theirs = (baseline != null) ? find(results, baseline, mode) : null;
		for (Implementation implementation : implementations) {
			Takeovers.Result result = find(results, implementation, mode);
			if (result == null) {
				continue;
			}
			Duration period = implementation.renewPeriod(timings);
			out.append("| ").append(implementation.label()).append(" | ").append(Timings.format(period)).append(" |");
			if (crash) {
				out.append(' ')
					.append(Figures.duration(timings.leaseDuration().minus(period).toNanos()))
					.append(" – ")
					.append(Figures.duration(timings.leaseDuration().toNanos()))
					.append(" |");
			}
			out.append(' ').append(statistic(result.takeovers(), 50)).append(" |");
			out.append(' ').append(statistic(result.takeovers(), 99)).append(" |");
			out.append(' ').append(result.takeovers().isEmpty() ? "–" : Figures.duration(new Stats(result.takeovers()).min()))
				.append(" |");
			out.append(' ').append(ratio(result, first, 50)).append(" |");
			out.append(' ').append(ratio(result, first, 99)).append(" |");
			if (baseline != null) {
				out.append(' ').append(ratio(result, theirs, 50)).append(" |");
				out.append(' ').append(ratio(result, theirs, 99)).append(" |");
			}
			Long gapMin = result.gaps().isEmpty() ? null : new Stats(result.gaps()).min();
			out.append(' ')
				.append((gapMin != null) ? Figures.duration(gapMin) + ((gapMin < 0) ? " (**both open**)" : "") : "–")
				.append(" |");
			out.append(' ').append(statistic(result.gaps(), 50)).append(" |");
			if (crash) {
				out.append(' ').append(result.neverClosed()).append(" of ").append(result.takeovers().size()).append(" |");
			}
			out.append('\n');
		}
		out.append('\n');
		boolean problems = false;
		for (Takeovers.Result result : results) {
			if (result.takeovers().size() != samples) {
				out.append("- ").append(result.implementation().label()).append(": n=")
					.append(result.takeovers().size()).append('\n');
				problems = true;
			}
			for (String problem : result.problems()) {
				out.append("- ").append(result.implementation().label()).append(": **").append(problem).append("**\n");
				problems = true;
			}
		}
		if (problems) {
			out.append('\n');
		}
	}

	private static String statistic(List<Long> values, double percentile) {
		return values.isEmpty() ? "–" : Figures.duration(new Stats(values).percentile(percentile));
	}

	private static String ratio(Takeovers.Result result, Takeovers.Result reference, double percentile) {
		if (reference == null || result.takeovers().isEmpty() || reference.takeovers().isEmpty()) {
			return "–";
		}
		return Figures.ratio(new Stats(result.takeovers()).percentile(percentile),
				new Stats(reference.takeovers()).percentile(percentile));
	}

	private static void method(StringBuilder out, int leases, Duration window) {
		out.append("How it is measured:\n\n");
		out.append("- One replica holding ").append(leases).append(" Leases, per elector: ")
			.append("this project's `ElectionEngine` with ").append(leases)
			.append(" elections (`ElectionSettings.renewingEvery` the row's period), its own ")
			.append("`LeaderElectionThreads` and one fabric8 client, as the auto-configuration builds a replica; ")
			.append("fabric8: ").append(leases).append(" `LeaderElector`s on one client, campaigning once each. ")
			.append("Each election alone on its Lease, in a namespace of the elector's own, none of them existing ")
			.append("at the start (this project creates a Lease it finds missing without holder, and claims it once ")
			.append("unchanged for a lease duration). Once all led, two cycles more (the retry period or the renew period, the ")
			.append("longer), then the replica's requests counted at the server over ")
			.append(window.toSeconds())
			.append(" s, a multiple of every renew period here, so that each Lease is renewed a whole number of ")
			.append("times. Leaderships lost: this project's revocations, fabric8's `onStopLeading` calls.\n");
		out.append("- Handover and failover: the harness of \"Handover and failover\" above (`Takeovers`): per ")
			.append("elector one Lease, a leader and a follower that has read the Lease (this project's: opened ")
			.append("its watch and seen a renewal through it), then a pause drawn uniformly from [0, 2.2 cycles) ")
			.append("(a cycle: the retry period or the renew period, the longer; the same random sequence for ")
			.append("every elector), so that the stop falls anywhere in the leader's renew cycle and in a polling ")
			.append("follower's; then the leader stopped with a release (this project: `engine.stop(true)`; ")
			.append("fabric8: cancelling its future with `releaseOnCancel`) or black-holed (netcrusher's ")
			.append("`TcpCrusher.freeze()`: connections stay open, no byte passes). The follower becomes the next ")
			.append("leader and a new follower starts. Gate times: this project's engine's own gate-open and ")
			.append("gate-close times, fabric8's callbacks timed when called, all on `System.nanoTime()`.\n");
		out.append("- The electors run at the same time in each of the three parts (two cores for ")
			.append("all of them and the server), so the timing figures carry each other's noise alike.\n");
		out.append("- The harness's code: `RenewCadence` in `benchmarks/` (with `ElectionGroup`, `Takeovers` and ")
			.append("`ApiServer`). Arguments: `timings=`, `leases=`, `window=` (s), `handovers=`, `crashes=`, ")
			.append("`longer=` (a period, or `none`), `only=requests,handover,crash`; `quick` for a short trial ")
			.append("(scaled timings, written to benchmarks/target/renew-cadence-quick.md). The section is ")
			.append("written into the file named by `-Dbenchmarks.output` (docs/benchmarks.md by default) in ")
			.append("place of its earlier version; the full benchmark run keeps it.\n");
	}

	private static Held find(List<Held> held, Implementation implementation) {
		return held.stream().filter((result) -> result.implementation() == implementation).findFirst().orElse(null);
	}

	private static Takeovers.Result find(List<Takeovers.Result> results, Implementation implementation,
			Takeovers.Mode mode) {
		return results.stream()
			.filter((result) -> result.implementation() == implementation && result.mode() == mode)
			.findFirst()
			.orElse(null);
	}

}
