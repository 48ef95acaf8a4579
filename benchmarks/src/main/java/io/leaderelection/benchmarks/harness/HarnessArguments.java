package io.leaderelection.benchmarks.harness;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A harness's arguments: {@code quick}, and {@code key=value} pairs, separated by white space in
 * one argument or given as several.
 *
 * @param quick whether a short trial was asked for
 * @param values the values by key
 */
public record HarnessArguments(boolean quick, Map<String, String> values) {

	/** The timings of a run of record: client-go's defaults. */
	public static final String STANDARD_TIMINGS = "15s/10s/2s";

	/** The timings of most quick trials. */
	public static final String QUICK_TIMINGS = "2s/1s/250ms";

	/**
	 * @param keys the keys the harness takes, named in the message about an unknown argument
	 * @throws IllegalArgumentException for an argument that is neither {@code quick} nor a pair
	 */
	public static HarnessArguments parse(String[] args, String keys) {
		Map<String, String> values = new HashMap<>();
		boolean quick = false;
		for (String arg : args) {
			for (String token : arg.trim().split("\\s+")) {
				if (token.isEmpty()) {
					continue;
				}
				if (token.equals("quick")) {
					quick = true;
				}
				else if (token.contains("=")) {
					values.put(token.substring(0, token.indexOf('=')), token.substring(token.indexOf('=') + 1));
				}
				else {
					throw new IllegalArgumentException(
							"unknown argument " + token + " (expected quick or key=value with key one of " + keys + ")");
				}
			}
		}
		return new HarnessArguments(quick, values);
	}

	/** The value given, else the default of a quick trial or of a run of record. */
	public String value(String key, String standard, String quick) {
		return this.values.getOrDefault(key, this.quick ? quick : standard);
	}

	public int integer(String key, int standard, int quick) {
		return Integer.parseInt(value(key, String.valueOf(standard), String.valueOf(quick)));
	}

	public Duration seconds(String key, long standard, long quick) {
		return Duration.ofSeconds(Long.parseLong(value(key, String.valueOf(standard), String.valueOf(quick))));
	}

	/** The timings given, else {@link #QUICK_TIMINGS} or {@link #STANDARD_TIMINGS}. */
	public Timings timings() {
		return Timings.parse(value("timings", STANDARD_TIMINGS, QUICK_TIMINGS));
	}

	/** A comma-separated list. */
	public List<String> list(String key, String standard) {
		return Arrays.asList(this.values.getOrDefault(key, standard).split(","));
	}

}
