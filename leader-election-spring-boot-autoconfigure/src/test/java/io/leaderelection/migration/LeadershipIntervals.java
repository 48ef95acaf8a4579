package io.leaderelection.migration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The terms of leadership of one election, as every replica in it reports them, old protocol or
 * new, on the JVM's monotonic clock ({@link System#nanoTime()}), which all replicas of a test
 * share: a term begins when its replica is told it leads (for the old protocol, when it
 * publishes {@code OnGrantedEvent}) and ends when it is told it no longer does
 * ({@code OnRevokedEvent}), or when the replica is killed or stopped, whichever comes first.
 * <p>
 * Two terms of different holders that share any instant are an overlap: two leaders at once.
 * A term still open ends, for that purpose, at the end of time. Thread-safe; replicas report from
 * their own threads.
 */
public final class LeadershipIntervals {

	private final Map<String, Long> open = new LinkedHashMap<>();

	private final List<Interval> closed = new ArrayList<>();

	/** What a replica reported that made no sense, e.g. a second grant while it led. */
	private final List<String> anomalies = new ArrayList<>();

	/** The holder was told it leads, now. */
	public void granted(String holder) {
		synchronized (this) {
			granted(holder, System.nanoTime());
		}
	}

	/** The holder was told it leads, at the given {@link System#nanoTime()}. */
	public synchronized void granted(String holder, long at) {
		Long since = this.open.putIfAbsent(holder, at);
		if (since != null) {
			this.anomalies.add(holder + " granted at " + at + " while leading since " + since);
		}
	}

	/** The holder was told it no longer leads, now; nothing if it did not lead. */
	public void revoked(String holder) {
		synchronized (this) {
			revoked(holder, System.nanoTime());
		}
	}

	/** The holder was told it no longer leads, at the given {@link System#nanoTime()}. */
	public synchronized void revoked(String holder, long at) {
		Long since = this.open.remove(holder);
		if (since == null) {
			this.anomalies.add(holder + " revoked at " + at + " while not leading");
			return;
		}
		this.closed.add(new Interval(holder, since, at));
	}

	/**
	 * The holder's term, if one is open, ends now because the holder is gone (killed or stopped);
	 * unlike {@link #revoked(String)}, not an anomaly when it did not lead.
	 */
	public void ended(String holder) {
		synchronized (this) {
			long at = System.nanoTime();
			Long since = this.open.remove(holder);
			if (since != null) {
				this.closed.add(new Interval(holder, since, at));
			}
		}
	}

	/** Who leads now, as their reports tell it. */
	public synchronized Set<String> leaders() {
		return new TreeSet<>(this.open.keySet());
	}

	/** Every term so far, in the order they began; open ones end at {@link Long#MAX_VALUE}. */
	public synchronized List<Interval> intervals() {
		List<Interval> all = new ArrayList<>(this.closed);
		this.open.forEach((holder, since) -> all.add(new Interval(holder, since, Long.MAX_VALUE)));
		all.sort(Comparator.comparingLong(Interval::from));
		return all;
	}

	/** Every pair of terms of different holders that overlap. */
	public synchronized List<Overlap> overlaps() {
		List<Interval> all = intervals();
		List<Overlap> overlaps = new ArrayList<>();
		for (int i = 0; i < all.size(); i++) {
			for (int j = i + 1; j < all.size(); j++) {
				Interval first = all.get(i);
				Interval second = all.get(j);
				if (!first.holder().equals(second.holder()) && first.overlaps(second)) {
					overlaps.add(new Overlap(first, second));
				}
			}
		}
		return overlaps;
	}

	/** What replicas reported that made no sense. */
	public synchronized List<String> anomalies() {
		return List.copyOf(this.anomalies);
	}

	/** For failure messages: every term, relative to the first. */
	@Override
	public synchronized String toString() {
		List<Interval> all = intervals();
		if (all.isEmpty()) {
			return "no terms";
		}
		long origin = all.get(0).from();
		StringBuilder text = new StringBuilder();
		for (Interval interval : all) {
			text.append(String.format("%n  %-24s %9.3f ms .. %s", interval.holder(), millis(interval.from() - origin),
					interval.isOpen() ? "(open)" : String.format("%9.3f ms", millis(interval.to() - origin))));
		}
		if (!this.anomalies.isEmpty()) {
			text.append(String.format("%n  anomalies: %s", this.anomalies));
		}
		return text.toString();
	}

	private static double millis(long nanos) {
		return nanos / 1_000_000.0;
	}

	/**
	 * One term of one holder, from its grant to its end, both as {@link System#nanoTime()};
	 * {@code to} is {@link Long#MAX_VALUE} while it is open.
	 */
	public record Interval(String holder, long from, long to) {

		public boolean isOpen() {
			return this.to == Long.MAX_VALUE;
		}

		/** Whether the two terms share an instant. */
		public boolean overlaps(Interval other) {
			return this.from < other.to && other.from < this.to;
		}

	}

	/** Two terms of different holders that share an instant. */
	public record Overlap(Interval first, Interval second) {

		/** How long both held; until the end of time if both are open. */
		public Duration length() {
			long end = Math.min(this.first.to, this.second.to);
			long start = Math.max(this.first.from, this.second.from);
			return (end == Long.MAX_VALUE) ? Duration.ofNanos(Long.MAX_VALUE) : Duration.ofNanos(end - start);
		}

	}

}
