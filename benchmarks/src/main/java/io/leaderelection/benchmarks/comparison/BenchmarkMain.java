package io.leaderelection.benchmarks.comparison;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.leaderelection.benchmarks.exittakeover.ExitTakeovers;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Fabric8Implementation;
import io.leaderelection.benchmarks.harness.Implementation;
import io.leaderelection.benchmarks.harness.MarkdownSection;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.RequestRates;
import io.leaderelection.benchmarks.harness.Takeovers;
import io.leaderelection.benchmarks.poddeletion.PodDeletionTakeovers;
import io.leaderelection.benchmarks.renewcadence.RenewCadence;
import io.leaderelection.benchmarks.routing.LeaderOnlyRouting;
import io.leaderelection.benchmarks.shards.ShardSpread;
import org.netcrusher.core.reactor.NioReactor;

/**
 * The benchmark harness: this project's elector against fabric8's LeaderElector 7.3.1 and
 * 7.8.0, in one run, on fabric8's CRUD mock API server on loopback. Prints a Markdown report
 * and writes it to the file named by the {@code benchmarks.output} system property (a quick
 * run writes target/benchmarks-quick.md instead).
 * <p>
 * Run it with {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify}
 * ({@code -Dbenchmarks.args="quick"} for a short trial).
 */
public final class BenchmarkMain {

	/**
	 * The section ControlPlaneBenchmarks records, the benchmarks on the real control plane: on the
	 * test class path, beside the control plane's harness, which is test code of its module.
	 */
	public static final MarkdownSection CONTROL_PLANE_SECTION = new MarkdownSection("## On the real control plane");

	/** The sections of the benchmarks file that harnesses run apart record, in the file's order. */
	static final List<MarkdownSection> SEPARATE_SECTIONS = List.of(CONTROL_PLANE_SECTION,
			PodDeletionTakeovers.SECTION, ShardSpread.SECTION, RenewCadence.SECTION, LeaderOnlyRouting.SECTION,
			ExitTakeovers.SECTION);

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws Exception {
		Settings settings = Settings.parse(args);
		Report report = new Report(settings, String.join(" ", args));
		report.machineBefore();
		OurImplementation ours = new OurImplementation();
		List<Fabric8Implementation> baselines = Fabric8Implementation.baselines();
		for (Fabric8Implementation fabric8 : baselines) {
			report.fabric8Version(fabric8.key(), fabric8.version());
			log("fabric8 baseline " + fabric8.key() + " runs fabric8 " + fabric8.version());
		}
		List<Implementation> implementations = List.<Implementation>of(ours, baselines.get(0), baselines.get(1))
			.stream()
			.filter((implementation) -> settings.implementations().contains(implementation.key()))
			.toList();
		report.implementations(implementations);

		if (settings.runs("jmh")) {
			log("JMH: @LeaderOnly and isLeader()");
			report.jmh(JmhRun.run(settings));
		}
		try (ApiServer server = ApiServer.start()) {
			NioReactor reactor = new NioReactor();
			try {
				if (settings.runs("scale")) {
					Path logs = Path.of("target", "scale-logs");
					Files.createDirectories(logs);
					Scale scale = new Scale(server, logs);
					for (int elections : settings.scale()) {
						for (Implementation implementation : implementations) {
							log("scale: " + elections + " elections of " + implementation.label());
							Scale.Result result = scale.run(implementation, elections, settings.timings(),
									settings.scaleWindowSeconds());
							log("  " + result);
							report.scale(result);
						}
					}
				}
				if (settings.runs("handover")) {
					log("graceful handover: " + settings.handovers() + " samples each, " + settings.timings());
					Takeovers takeovers = new Takeovers(server, reactor);
					for (Takeovers.Result result : inParallel(implementations, (implementation) -> takeovers
						.run(implementation, Takeovers.Mode.GRACEFUL, settings.handovers(), settings.timings()))) {
						report.takeovers(result);
					}
				}
				if (settings.runs("requests")) {
					log("requests: " + settings.requestWindow().toSeconds() + " s window, " + settings.timings());
					RequestRates rates = new RequestRates(server);
					for (RequestRates.Result result : inParallel(implementations,
							(implementation) -> rates.run(implementation, settings.timings(),
									settings.requestWindow(), 2))) {
						report.requests(result);
					}
				}
				if (settings.runs("crash")) {
					Takeovers takeovers = new Takeovers(server, reactor);
					log("crash failover: " + settings.crashes() + " samples each, " + settings.timings());
					for (Takeovers.Result result : inParallel(implementations, (implementation) -> takeovers
						.run(implementation, Takeovers.Mode.CRASH, settings.crashes(), settings.timings()))) {
						report.takeovers(result);
					}
					if (settings.scaledCrashes() > 0) {
						log("crash failover: " + settings.scaledCrashes() + " samples each, "
								+ settings.scaledTimings());
						for (Takeovers.Result result : inParallel(implementations,
								(implementation) -> takeovers.run(implementation, Takeovers.Mode.CRASH,
										settings.scaledCrashes(), settings.scaledTimings()))) {
							report.takeovers(result);
						}
					}
				}
			}
			finally {
				reactor.close();
			}
		}
		report.machineAfter();
		String markdown = report.markdown(Instant.now());
		System.out.println();
		System.out.println(markdown);
		Path output = settings.quick() ? Path.of("target", "benchmarks-quick.md")
				: Path.of(Fabric8Implementation.property("benchmarks.output"));
		Files.createDirectories(output.toAbsolutePath().getParent());
		// The sections the harnesses run apart record are kept as they were, in this order.
		String kept = markdown;
		for (MarkdownSection section : SEPARATE_SECTIONS) {
			String recorded = section.recorded(output);
			if (recorded != null) {
				kept = kept + (kept.endsWith("\n\n") ? "" : "\n") + recorded;
			}
		}
		Files.writeString(output, kept);
		log("written to " + output.toAbsolutePath().normalize());
		System.exit(0);
	}

	interface Job<T> {

		T run(Implementation implementation) throws Exception;

	}

	/** Runs the job for every implementation at once, on separate Leases; results in order. */
	static <T> List<T> inParallel(List<Implementation> implementations, Job<T> job) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(implementations.size());
		try {
			List<Future<T>> futures = new ArrayList<>();
			for (Implementation implementation : implementations) {
				Callable<T> call = () -> job.run(implementation);
				futures.add(executor.submit(call));
			}
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get());
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

	static void log(String message) {
		System.out.println("[benchmarks " + Instant.now() + "] " + message);
		System.out.flush();
	}

}
