package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every term of one election across the replicas of a test, with its gate's times on the JVM's
 * monotonic clock, which every replica shares: from it, overlapping gates, fencing tokens that did
 * not rise, and the time without a leader.
 */
final class Terms {

	private final String election;

	private final List<Term> terms = new ArrayList<>();

	Terms(String election) {
		this.election = election;
	}

	/** Records the terms of the election that the given replica's engine tells. */
	ElectionListener recorderFor(String replica) {
		return new ElectionListener() {

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				if (election.equals(Terms.this.election)) {
					opened(replica, fencingToken, gateOpenedAt);
				}
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				if (election.equals(Terms.this.election)) {
					closed(replica, cause, gateClosedAt);
				}
			}

		};
	}

	synchronized void opened(String replica, long fencingToken, long at) {
		this.terms.add(new Term(replica, fencingToken, at));
	}

	synchronized void closed(String replica, RevocationCause cause, long at) {
		for (int i = this.terms.size() - 1; i >= 0; i--) {
			Term term = this.terms.get(i);
			if (term.replica.equals(replica) && term.closedAt == Long.MAX_VALUE) {
				term.closedAt = at;
				term.cause = cause;
				return;
			}
		}
	}

	/** The terms so far, in the order their gates opened. */
	synchronized List<Term> all() {
		return this.terms.stream().map(Term::copy).sorted(Comparator.comparingLong((term) -> term.openedAt)).toList();
	}

	/** The replica whose gate is open now; {@code null} when none. */
	synchronized String holder() {
		return this.terms.stream().filter((term) -> term.closedAt == Long.MAX_VALUE).map((term) -> term.replica)
			.findFirst().orElse(null);
	}

	synchronized int count() {
		return this.terms.size();
	}

	/** Fails on two gates open at once, and on a fencing token that did not rise from one term to the next. */
	void assertSafe() {
		List<Term> all = all();
		for (int i = 1; i < all.size(); i++) {
			Term before = all.get(i - 1);
			Term after = all.get(i);
			assertThat(after.openedAt).as("%s opened while %s was open, in %s", after, before, all)
				.isGreaterThanOrEqualTo(before.closedAt);
			assertThat(after.fencingToken).as("fencing token of %s after %s", after, before)
				.isGreaterThan(before.fencingToken);
		}
	}

	/**
	 * The time without a leader between the first term's start and the given moment (or the
	 * last term's end).
	 */
	Duration leaderless(long until) {
		List<Term> all = all();
		long without = 0;
		for (int i = 1; i < all.size(); i++) {
			without += Math.max(0, all.get(i).openedAt - all.get(i - 1).closedAt);
		}
		if (!all.isEmpty()) {
			long lastClosed = all.get(all.size() - 1).closedAt;
			without += (lastClosed == Long.MAX_VALUE) ? 0 : Math.max(0, until - lastClosed);
		}
		return Duration.ofNanos(without);
	}

	/** One term: a replica's gate open from {@code openedAt} to {@code closedAt} (open: {@link Long#MAX_VALUE}). */
	static final class Term {

		final String replica;

		final long fencingToken;

		final long openedAt;

		long closedAt = Long.MAX_VALUE;

		RevocationCause cause;

		Term(String replica, long fencingToken, long openedAt) {
			this.replica = replica;
			this.fencingToken = fencingToken;
			this.openedAt = openedAt;
		}

		Term copy() {
			Term copy = new Term(this.replica, this.fencingToken, this.openedAt);
			copy.closedAt = this.closedAt;
			copy.cause = this.cause;
			return copy;
		}

		/** From this term's gate closing to the given term's opening. */
		Duration until(Term next) {
			return Duration.ofNanos(next.openedAt - this.closedAt);
		}

		@Override
		public String toString() {
			return this.replica + "#" + this.fencingToken
					+ ((this.closedAt == Long.MAX_VALUE) ? " (open)" : " (" + this.cause + ")");
		}

	}

}
