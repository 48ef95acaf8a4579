package io.leaderelection.integration;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every gate-open interval of every replica in one JVM, on the shared monotonic clock, and the
 * check that no two of them overlap.
 */
public final class GateHistory {

	private final List<Interval> intervals = new ArrayList<>();

	/** The listener that records one replica's gates. */
	public ElectionListener recorderFor(String replica) {
		return new ElectionListener() {
			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				opened(replica, election, fencingToken, gateOpenedAt);
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				closed(replica, election, gateClosedAt);
			}
		};
	}

	synchronized void opened(String replica, String election, long fencingToken, long at) {
		this.intervals.add(new Interval(replica, election, fencingToken, at));
	}

	synchronized void closed(String replica, String election, long at) {
		for (int i = this.intervals.size() - 1; i >= 0; i--) {
			Interval interval = this.intervals.get(i);
			if (interval.replica.equals(replica) && interval.election.equals(election) && interval.closedAt == null) {
				interval.closedAt = at;
				return;
			}
		}
	}

	synchronized List<Interval> intervals() {
		return List.copyOf(this.intervals);
	}

	/** The interval of the replica that opened its gate last. */
	synchronized Interval last() {
		return this.intervals.get(this.intervals.size() - 1);
	}

	/**
	 * Asserts that gates of one election never overlap and that fencing tokens increase with
	 * each new interval. An interval still open counts as open until now.
	 */
	public synchronized void assertNoOverlap(String election) {
		List<Interval> sorted = this.intervals.stream()
			.filter((interval) -> interval.election.equals(election))
			.sorted(Comparator.comparingLong((Interval interval) -> interval.openedAt))
			.toList();
		for (int i = 1; i < sorted.size(); i++) {
			Interval previous = sorted.get(i - 1);
			Interval next = sorted.get(i);
			assertThat(previous.closedAt).as("%s is still open while %s opened", previous, next).isNotNull();
			assertThat(next.openedAt - previous.closedAt).as("%s overlaps %s", previous, next)
				.isGreaterThanOrEqualTo(0);
			assertThat(next.fencingToken).as("token of %s after %s", next, previous)
				.isGreaterThan(previous.fencingToken);
		}
	}

	static final class Interval {

		final String replica;

		final String election;

		final long fencingToken;

		final long openedAt;

		volatile Long closedAt;

		Interval(String replica, String election, long fencingToken, long openedAt) {
			this.replica = replica;
			this.election = election;
			this.fencingToken = fencingToken;
			this.openedAt = openedAt;
		}

		@Override
		public String toString() {
			return this.replica + "[" + this.election + " token " + this.fencingToken + " " + this.openedAt + ".."
					+ this.closedAt + "]";
		}

	}

}
