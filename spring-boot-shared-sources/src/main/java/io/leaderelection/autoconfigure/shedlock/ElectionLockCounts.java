package io.leaderelection.autoconfigure.shedlock;

import java.util.List;

import io.leaderelection.autoconfigure.OutcomeCounts;
import io.leaderelection.autoconfigure.window.WindowedStarts.Outcome;

/**
 * The locks ShedLock asked for, per election (for a sharded election, per shard) and outcome:
 * granted, or refused on a follower, within the lock's window, or while shutting down.
 */
public class ElectionLockCounts {

	private final List<String> elections;

	private final OutcomeCounts<Outcome> counts = new OutcomeCounts<>();

	ElectionLockCounts(List<String> elections) {
		this.elections = List.copyOf(elections);
	}

	/** The elections, or shards, locks are taken in. */
	public List<String> elections() {
		return this.elections;
	}

	void record(String election, Outcome outcome) {
		this.counts.record(election, outcome);
	}

	/** How many locks asked for in the election ended with the outcome. */
	public long count(String election, Outcome outcome) {
		return this.counts.count(election, outcome);
	}

}
