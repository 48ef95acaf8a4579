package io.leaderelection.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

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

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws Exception {
		Settings settings = Settings.parse(args);
		Report report = new Report(settings, String.join(" ", args));
		report.machineBefore();
		OurImplementation ours = new OurImplementation();
		Fabric8Implementation fabric8Old = Fabric8Implementation.onOwnClasspath("fabric8-7.3.1");
		Fabric8Implementation fabric8New = Fabric8Implementation.isolated("fabric8-7.8.0");
		for (Fabric8Implementation fabric8 : List.of(fabric8Old, fabric8New)) {
			String expected = fabric8.key().substring("fabric8-".length());
			if (!fabric8.version().startsWith(expected + " ")) {
				throw new IllegalStateException(fabric8.key() + " runs fabric8 " + fabric8.version());
			}
			report.fabric8Version(fabric8.key(), fabric8.version());
			log("fabric8 baseline " + fabric8.key() + " runs fabric8 " + fabric8.version());
		}
		List<Implementation> implementations = List.<Implementation>of(ours, fabric8Old, fabric8New)
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
		// The sections PodDeletionTakeovers and ShardSpread record (runs of their own) are kept as they were.
		String podDeletion = PodDeletionTakeovers.SECTION.recorded(output);
		String shardSpread = ShardSpread.SECTION.recorded(output);
		String kept = (podDeletion != null) ? markdown + "\n" + podDeletion : markdown;
		Files.writeString(output, (shardSpread != null) ? kept + (kept.endsWith("\n\n") ? "" : "\n") + shardSpread : kept);
		log("written to " + output.toAbsolutePath().normalize());
		System.exit(0);
	}

	interface Job<T> {

		T run(Implementation implementation) throws Exception;

	}

	/** Runs the job for every implementation at once, on separate Leases; results in order. */
	private static <T> List<T> inParallel(List<Implementation> implementations, Job<T> job) throws Exception {
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
