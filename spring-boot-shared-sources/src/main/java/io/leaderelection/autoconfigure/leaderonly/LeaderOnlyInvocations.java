package io.leaderelection.autoconfigure.leaderonly;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.leaderelection.autoconfigure.OutcomeCounts;

/**
 * Counts {@code @LeaderOnly} calls per election and outcome.
 */
public class LeaderOnlyInvocations {

	private final OutcomeCounts<Outcome> counts = new OutcomeCounts<>();

	private final Map<String, LongAdder> runningAtRevoke = new ConcurrentHashMap<>();

	void record(String election, Outcome outcome) {
		this.counts.record(election, outcome);
	}

	void recordRunningAtRevoke(String election, int running) {
		this.runningAtRevoke.computeIfAbsent(election, (name) -> new LongAdder()).add(running);
	}

	/** How many calls of the election ended with the outcome. */
	public long count(String election, Outcome outcome) {
		return this.counts.count(election, outcome);
	}

	/** How many calls of the election were still running when its leadership was revoked. */
	public long runningAtRevoke(String election) {
		LongAdder adder = this.runningAtRevoke.get(election);
		return (adder != null) ? adder.sum() : 0;
	}

	/**
	 * What became of a {@code @LeaderOnly} call.
	 */
	public enum Outcome {

		/** The body ran: this replica led. */
		EXECUTED,

		/** The body did not run: this replica did not lead. */
		SKIPPED,

		/** The body did not run: the application is shutting down and draining leader work. */
		REFUSED,

		/**
		 * The body of a {@code @LeaderOnly(atMostEvery)} method did not run: this replica led, but
		 * the method's window was closed, its last start by whichever replica too recent.
		 */
		SKIPPED_WINDOW;

		/** The outcome as a metric tag value: {@code executed}, {@code skipped-window}. */
		public String tag() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

	}

}
