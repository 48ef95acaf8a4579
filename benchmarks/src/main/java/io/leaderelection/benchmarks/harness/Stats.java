package io.leaderelection.benchmarks.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of a sample, by the nearest-rank method: p99 of fewer than 100 values is the maximum. */
public final class Stats {

	private final List<Long> sorted;

	public Stats(List<Long> values) {
		this.sorted = new ArrayList<>(values);
		Collections.sort(this.sorted);
	}

	public int count() {
		return this.sorted.size();
	}

	public boolean isEmpty() {
		return this.sorted.isEmpty();
	}

	/** The p-th percentile (0 < p <= 100). */
	public long percentile(double p) {
		int rank = (int) Math.ceil(p / 100.0 * this.sorted.size());
		return this.sorted.get(Math.max(0, rank - 1));
	}

	public long min() {
		return this.sorted.get(0);
	}

	public long max() {
		return this.sorted.get(this.sorted.size() - 1);
	}

}
