package io.leaderelection.benchmarks.comparison;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.leaderelection.benchmarks.harness.HarnessArguments;
import io.leaderelection.benchmarks.harness.Timings;

/**
 * What to run and how long, from the harness's arguments ({@code key=value}, or {@code quick}
 * for a short trial with scaled timings).
 */
record Settings(boolean quick, Set<String> parts, Set<String> implementations, Timings timings, int handovers, int crashes, Timings scaledTimings,
		int scaledCrashes, Duration requestWindow, List<Integer> scale, int scaleWindowSeconds, int jmhWarmups,
		int jmhIterations, long jmhMillis) {

	static final Set<String> ALL_PARTS = Set.of("jmh", "scale", "handover", "requests", "crash");

	static Settings parse(String[] args) {
		HarnessArguments arguments = HarnessArguments.parse(args, "only, impls, timings, handovers, crashes, scaledTimings, scaledCrashes, window, scale, scaleWindow");
		Map<String, String> values = arguments.values();
		boolean quick = arguments.quick();
		Set<String> parts = values.containsKey("only") ? Set.of(values.get("only").split(",")) : ALL_PARTS;
		if (!ALL_PARTS.containsAll(parts)) {
			throw new IllegalArgumentException("only= takes some of " + ALL_PARTS + ", was " + parts);
		}
		Set<String> implementations = values.containsKey("impls") ? Set.of(values.get("impls").split(","))
				: Set.of("ours", "fabric8-7.3.1", "fabric8-7.8.0");
		Timings timings = Timings.parse(values.getOrDefault("timings", quick ? "2s/1s/250ms" : "15s/10s/2s"));
		return new Settings(quick, parts, implementations, timings, Integer.parseInt(values.getOrDefault("handovers", quick ? "5" : "50")),
				Integer.parseInt(values.getOrDefault("crashes", quick ? "3" : "20")),
				Timings.parse(values.getOrDefault("scaledTimings", "2s/1s/250ms")),
				Integer.parseInt(values.getOrDefault("scaledCrashes", quick ? "0" : "50")),
				Duration.ofSeconds(Long.parseLong(values.getOrDefault("window", quick ? "10" : "60"))),
				Arrays.stream(values.getOrDefault("scale", quick ? "1,100" : "1,100,1000").split(","))
					.map(Integer::valueOf)
					.toList(),
				Integer.parseInt(values.getOrDefault("scaleWindow", quick ? "5" : "30")), quick ? 1 : 5, quick ? 2 : 5,
				quick ? 500 : 1000);
	}

	boolean runs(String part) {
		return this.parts.contains(part);
	}

}
