package io.leaderelection.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of a sample, by the nearest-rank method: p99 of fewer than 100 values is the maximum. */
final class Stats {

	private final List<Long> sorted;

	Stats(List<Long> values) {
		this.sorted = new ArrayList<>(values);
		Collections.sort(this.sorted);
	}

	int count() {
		return this.sorted.size();
	}

	boolean isEmpty() {
		return this.sorted.isEmpty();
	}

	/** The p-th percentile (0 < p <= 100). */
	long percentile(double p) {
		int rank = (int) Math.ceil(p / 100.0 * this.sorted.size());
		return this.sorted.get(Math.max(0, rank - 1));
	}

	long min() {
		return this.sorted.get(0);
	}

	long max() {
		return this.sorted.get(this.sorted.size() - 1);
	}

}
