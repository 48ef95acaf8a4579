package io.leaderelection.benchmarks.comparison;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs {@link LeaderOnlyBenchmark} with JMH (one forked JVM per benchmark and role). */
final class JmhRun {

	/** One benchmark's average time per call, in ns, with JMH's 99.9% error. */
	record Score(String benchmark, String role, double nanos, double error) {
	}

	private JmhRun() {
	}

	static List<Score> run(Settings settings) throws RunnerException {
		Options options = new OptionsBuilder().include(LeaderOnlyBenchmark.class.getName() + "\\.")
			.warmupIterations(settings.jmhWarmups())
			.warmupTime(TimeValue.milliseconds(settings.jmhMillis()))
			.measurementIterations(settings.jmhIterations())
			.measurementTime(TimeValue.milliseconds(settings.jmhMillis()))
			.forks(1)
			.build();
		Collection<RunResult> results = new Runner(options).run();
		List<Score> scores = new ArrayList<>();
		for (RunResult result : results) {
			String benchmark = result.getParams().getBenchmark();
			scores.add(new Score(benchmark.substring(benchmark.lastIndexOf('.') + 1), result.getParams().getParam("role"),
					result.getPrimaryResult().getScore(), result.getPrimaryResult().getScoreError()));
		}
		return scores;
	}

}
