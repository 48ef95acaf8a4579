package io.leaderelection.actuate.metrics;

import io.leaderelection.autoconfigure.shedlock.ElectionLockCounts;
import io.leaderelection.autoconfigure.window.WindowedStarts.Outcome;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code leader.election.shedlock.locks{election,outcome}}: the locks ShedLock asked for, per
 * election (for a sharded election, per shard), that were granted ({@code granted}), refused on a
 * follower ({@code skipped}), within the lock's window ({@code skipped-window}) or while shutting
 * down ({@code refused}).
 */
public class ShedLockMetrics implements MeterBinder {

	private final ElectionLockCounts counts;

	public ShedLockMetrics(ElectionLockCounts counts) {
		this.counts = counts;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String election : this.counts.elections()) {
			for (Outcome outcome : Outcome.values()) {
				FunctionCounter
					.builder("leader.election.shedlock.locks", this.counts,
							(counts) -> counts.count(election, outcome))
					.tags("election", election, "outcome", tag(outcome))
					.description("ShedLock locks asked for, by outcome")
					.register(registry);
			}
		}
	}

	private static String tag(Outcome outcome) {
		return switch (outcome) {
			case STARTED -> "granted";
			case NOT_LEADER -> "skipped";
			case WINDOW_CLOSED -> "skipped-window";
			case REFUSED -> "refused";
		};
	}

}
