package io.leaderelection.simulation;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened in a run, in order: faults, writes the server stored, gate changes, leader work.
 * Its hash tells two runs of one seed apart; the entries around a violation make its timeline.
 */
final class Trace {

	private final List<Entry> entries = new ArrayList<>();

	private long hash = 17;

	void add(long at, String who, String what) {
		Entry entry = new Entry(at, who, what);
		this.entries.add(entry);
		this.hash = this.hash * 1_000_003 + entry.hashCode();
	}

	long hash() {
		return this.hash;
	}

	int size() {
		return this.entries.size();
	}

	/** The entries within the given time of the moment, one a line. */
	String around(long at, long within) {
		StringBuilder timeline = new StringBuilder();
		List<Entry> inOrder = new ArrayList<>(this.entries);
		inOrder.sort(java.util.Comparator.comparingLong(Entry::at));
		for (Entry entry : inOrder) {
			if (Math.abs(entry.at - at) <= within) {
				timeline.append(String.format("  %10.3f ms  %-8s %s%n", entry.at / 1e6, entry.who, entry.what));
			}
		}
		return timeline.toString();
	}

	private record Entry(long at, String who, String what) {
	}

}
