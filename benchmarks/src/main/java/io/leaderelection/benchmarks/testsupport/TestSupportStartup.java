package io.leaderelection.benchmarks.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.leaderelection.LeaderOnly;
import io.leaderelection.benchmarks.harness.Stats;
import io.leaderelection.test.AutoConfigureTestLeaderElection;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.TestContextManager;

/**
 * How long an application's {@code @SpringBootTest} takes to start and stop with the test support
 * ({@link AutoConfigureTestLeaderElection}) against the same test without the starter, through
 * Spring's own test context framework, alternating the two, after a warm-up. Prints a table and
 * writes it to {@code -Dbenchmarks.output}.
 */
public final class TestSupportStartup {

	private static final int WARM_UP = 10;

	private static final int RUNS = 40;

	private TestSupportStartup() {
	}

	public static void main(String[] args) throws Exception {
		Timings withSupport = new Timings();
		Timings standalone = new Timings();
		Timings withoutStarter = new Timings();
		for (int run = 0; run < WARM_UP + RUNS; run++) {
			startAndStop(WithTestSupport.class, (run >= WARM_UP) ? withSupport : new Timings());
			startAndStop(Standalone.class, (run >= WARM_UP) ? standalone : new Timings());
			startAndStop(WithoutStarter.class, (run >= WARM_UP) ? withoutStarter : new Timings());
		}
		String report = report(withSupport, standalone, withoutStarter);
		System.out.println(report);
		String output = System.getProperty("benchmarks.output");
		if (output != null && !output.isEmpty()) {
			Files.writeString(Path.of(output), report);
		}
	}

	/** Starts the test class's context as a test run would, then closes it, timing both. */
	private static void startAndStop(Class<?> testClass, Timings timings) throws Exception {
		long start = System.nanoTime();
		TestContextManager tests = new TestContextManager(testClass);
		tests.prepareTestInstance(testClass.getDeclaredConstructor().newInstance());
		long started = System.nanoTime();
		tests.getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
		long stopped = System.nanoTime();
		timings.start.add(started - start);
		timings.stop.add(stopped - started);
		timings.both.add(stopped - start);
	}

	private static String report(Timings withSupport, Timings standalone, Timings withoutStarter) throws IOException {
		StringBuilder report = new StringBuilder();
		report.append("# Test support: start and stop of a @SpringBootTest\n\n");
		report.append("Produced by\n\n```shell\n./mvnw -B -Pbenchmarks -pl benchmarks -am verify "
				+ "-Dbenchmarks.main=io.leaderelection.benchmarks.testsupport.TestSupportStartup "
				+ "-Dbenchmarks.output=$PWD/docs/test-support-startup.md\n```\n\n");
		report.append("- Date: ").append(Instant.now()).append('\n');
		report.append("- Machine: ")
			.append(Runtime.getRuntime().availableProcessors())
			.append(" cores, ")
			.append(System.getProperty("java.vm.name"))
			.append(' ')
			.append(System.getProperty("java.vm.version"))
			.append('\n');
		report.append("- Each run loads the test class's context through Spring's TestContextManager, as a test run"
				+ " does, and closes it; the three kinds alternate; ")
			.append(WARM_UP)
			.append(" warm-up rounds, then ")
			.append(RUNS)
			.append(" measured rounds.\n");
		report.append("- With the test support: `@SpringBootTest` + `@AutoConfigureTestLeaderElection`, the"
				+ " starter's auto-configurations active (no actuator on this class path), two elections, leading both"
				+ " at start, a bean with `@LeaderOnly` methods.\n");
		report.append("- Standalone: the same application in `leader.election.mode=standalone`, without the test"
				+ " support: what the starter itself costs.\n");
		report.append("- Without the starter: the same application with every leader-election auto-configuration"
				+ " excluded (`spring.autoconfigure.exclude`); the starter's jars stay on the class path.\n\n");
		report.append("| measure | with the test support | standalone | without the starter |"
				+ " test support ÷ without | standalone ÷ without |\n|---|---|---|---|---|---|\n");
		rows(report, "start and stop", withSupport.both, standalone.both, withoutStarter.both);
		rows(report, "start", withSupport.start, standalone.start, withoutStarter.start);
		rows(report, "stop", withSupport.stop, standalone.stop, withoutStarter.stop);
		return report.toString();
	}

	private static void rows(StringBuilder report, String what, List<Long> withSupport, List<Long> standalone,
			List<Long> withoutStarter) {
		Stats with = new Stats(withSupport);
		Stats alone = new Stats(standalone);
		Stats without = new Stats(withoutStarter);
		row(report, what + ", p50", with.percentile(50), alone.percentile(50), without.percentile(50));
		row(report, what + ", p90", with.percentile(90), alone.percentile(90), without.percentile(90));
		row(report, what + ", min", with.min(), alone.min(), without.min());
	}

	/** Nanoseconds per run. */
	private static final class Timings {

		final List<Long> start = new ArrayList<>();

		final List<Long> stop = new ArrayList<>();

		final List<Long> both = new ArrayList<>();

	}

	private static void row(StringBuilder report, String measure, long with, long alone, long without) {
		report.append(String.format(Locale.ROOT, "| %s | %.1f ms | %.1f ms | %.1f ms | %.2f | %.2f |%n", measure,
				with / 1e6, alone / 1e6, without / 1e6, (double) with / without, (double) alone / without));
	}

	@SpringBootApplication
	static class Orders {

		@Component
		static class Reconciler {

			@LeaderOnly
			public void reconcile() {
			}

			@LeaderOnly("billing")
			public void bill() {
			}

		}

	}

	@SpringBootTest(classes = Orders.class, properties = "leader.election.elections.billing.lease-name=billing")
	@AutoConfigureTestLeaderElection
	public static class WithTestSupport {

	}

	@SpringBootTest(classes = Orders.class,
			properties = { "leader.election.elections.billing.lease-name=billing", "leader.election.mode=standalone" })
	public static class Standalone {

	}

	@SpringBootTest(classes = Orders.class,
			properties = "spring.autoconfigure.exclude=io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration,"
					+ "io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration,"
					+ "io.leaderelection.actuate.endpoint.LeaderEndpointAutoConfiguration,"
					+ "io.leaderelection.actuate.health.LeaderElectionHealthContributorAutoConfiguration,"
					+ "io.leaderelection.actuate.info.LeaderElectionInfoContributorAutoConfiguration,"
					+ "io.leaderelection.actuate.metrics.LeaderElectionMetricsAutoConfiguration")
	public static class WithoutStarter {

	}

}
