package io.leaderelection.benchmarks.harness;

import java.time.Duration;

/** Lease duration, renew deadline and retry period, the same for every elector of a run. */
public record Timings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {

	public static final Timings DEFAULT = new Timings(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

	/** Parses "15s/10s/2s" (units ms or s). */
	public static Timings parse(String text) {
		String[] parts = text.split("/");
		if (parts.length != 3) {
			throw new IllegalArgumentException("timings must look like 15s/10s/2s, was " + text);
		}
		return new Timings(duration(parts[0]), duration(parts[1]), duration(parts[2]));
	}

	public static Duration duration(String text) {
		String value = text.trim();
		if (value.endsWith("ms")) {
			return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
		}
		if (value.endsWith("s")) {
			return Duration.ofMillis(Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 1000));
		}
		throw new IllegalArgumentException("durations end with ms or s, was " + text);
	}

	public static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

	@Override
	public String toString() {
		return format(this.leaseDuration) + "/" + format(this.renewDeadline) + "/" + format(this.retryPeriod);
	}

}
