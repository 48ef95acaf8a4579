package io.leaderelection.autoconfigure;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts per election and outcome, for the metrics to read.
 *
 * @param <O> the outcomes counted
 */
public final class OutcomeCounts<O extends Enum<O>> {

	private final Map<String, Map<O, LongAdder>> counts = new ConcurrentHashMap<>();

	public void record(String election, O outcome) {
		this.counts.computeIfAbsent(election, (name) -> new ConcurrentHashMap<>())
			.computeIfAbsent(outcome, (key) -> new LongAdder())
			.increment();
	}

	/** How many of the election's ended with the outcome. */
	public long count(String election, O outcome) {
		LongAdder adder = this.counts.getOrDefault(election, Map.of()).get(outcome);
		return (adder != null) ? adder.sum() : 0;
	}

}
