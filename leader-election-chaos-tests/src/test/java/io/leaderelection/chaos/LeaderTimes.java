package io.leaderelection.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.leaderelection.chaos.ChaosOutcome.LeaderTime;

/**
 * How the time of each election went, from its first grant to the end of the run: with no gate
 * open (no leader), with one, with two or more (two leaders). Each stretch without a leader is
 * told apart twice: by how the term before it ended, and, moment by moment, by what the Lease as
 * the API server stored it showed meanwhile, so that a leader that keeps its Lease with its gate
 * closed (its renewals land, but too late to keep the gate open) shows apart from a Lease
 * missing, one without holder, and one whose holder has stopped writing.
 */
final class LeaderTimes {

	/** While the Lease is missing: deleted, and not created again yet. */
	static final String MISSING = "Lease missing";

	/** While the Lease names no holder: released, or created without one. */
	static final String NO_HOLDER = "Lease without holder";

	/** While the Lease names a holder all of whose processes have ended. */
	static final String HOLDER_ENDED = "held by an ended process";

	/** While the Lease names the next leader, whose gate opens at the end of the stretch. */
	static final String CLAIMED = "claimed, gate not open yet";

	/** While the holder writes the Lease again within the stretch: its writes land, its gate stays closed. */
	static final String RENEWED = "held and written by its holder, gate closed by ";

	/** While the holder does not write it again within the stretch: it waits to expire or be taken. */
	static final String NOT_RENEWED = "held, not written again, gate closed by ";

	/** A stretch at the start of which no term had ended. */
	static final String NO_TERM_BEFORE = "no term before";

	private final Map<String, String> identityOfProcess;

	private final Map<String, Long> processEndedAt;

	private final Set<String> replicas;

	private final long endedAt;

	private long observed;

	private long withoutLeader;

	private long longestGap;

	private int gaps;

	private long twoGatesOpen;

	private final Map<String, Long> withoutLeaderAfter = new TreeMap<>();

	private final Map<String, Long> withoutLeaderWhile = new TreeMap<>();

	/**
	 * @param identityOfProcess the identity each process campaigned with, which the Leases name
	 * @param processEndedAt when each process that ended did
	 * @param replicas the replicas' names: the writers of a Lease that are electors
	 * @param endedAt the end of the run: a term still open then is counted open until then
	 */
	LeaderTimes(Map<String, String> identityOfProcess, Map<String, Long> processEndedAt, Set<String> replicas,
			long endedAt) {
		this.identityOfProcess = identityOfProcess;
		this.processEndedAt = processEndedAt;
		this.replicas = replicas;
		this.endedAt = endedAt;
	}

	/**
	 * Counts one election.
	 * @param terms its terms, in any order
	 * @param versions the holders its Lease named, version after version, in the order stored
	 */
	void count(List<TermSpan> terms, List<HolderVersion> versions) {
		if (terms.isEmpty()) {
			return;
		}
		List<long[]> changes = new ArrayList<>();
		for (TermSpan term : terms) {
			changes.add(new long[] { term.openedAt(), 1 });
			changes.add(new long[] { term.closedAt(), -1 });
		}
		// a gate that closes as another opens leaves no gap and no overlap
		changes.sort(Comparator.<long[]>comparingLong((change) -> change[0]).thenComparingLong((change) -> change[1]));
		long from = changes.get(0)[0];
		this.observed += this.endedAt - from;
		int open = 0;
		long since = from;
		for (long[] change : changes) {
			long at = change[0];
			if (open == 0 && at > since) {
				gap(since, at, terms, versions);
			}
			else if (open >= 2) {
				this.twoGatesOpen += at - since;
			}
			open += (int) change[1];
			since = at;
		}
		if (open == 0 && this.endedAt > since) {
			gap(since, this.endedAt, terms, versions);
		}
	}

	LeaderTime leaderTime() {
		return new LeaderTime(Duration.ofNanos(this.observed), Duration.ofNanos(this.withoutLeader), this.gaps,
				Duration.ofNanos(this.longestGap), Duration.ofNanos(this.twoGatesOpen), durations(this.withoutLeaderAfter),
				durations(this.withoutLeaderWhile));
	}

	private void gap(long from, long to, List<TermSpan> terms, List<HolderVersion> versions) {
		this.gaps++;
		this.withoutLeader += to - from;
		this.longestGap = Math.max(this.longestGap, to - from);
		TermSpan before = lastClosedBy(terms, from, null);
		this.withoutLeaderAfter.merge((before != null) ? before.closedBecause() : NO_TERM_BEFORE, to - from, Long::sum);
		TermSpan next = terms.stream().filter((term) -> term.openedAt() == to).findFirst().orElse(null);
		// what the Lease shows changes with each version stored and as its holder's process ends
		TreeSet<Long> boundaries = new TreeSet<>(List.of(from, to));
		versions.stream().map(HolderVersion::at).filter((at) -> at > from && at < to).forEach(boundaries::add);
		this.processEndedAt.values().stream().filter((at) -> at > from && at < to).forEach(boundaries::add);
		int index = -1;
		Long sliceStart = boundaries.first();
		for (Long sliceEnd = boundaries.higher(sliceStart); sliceEnd != null; sliceEnd = boundaries.higher(sliceStart)) {
			while (index + 1 < versions.size() && versions.get(index + 1).at() <= sliceStart) {
				index++;
			}
			HolderVersion version = (index >= 0) ? versions.get(index) : null;
			String state = state(version, index, versions, sliceStart, sliceEnd == to, to, terms, next);
			this.withoutLeaderWhile.merge(state, sliceEnd - sliceStart, Long::sum);
			sliceStart = sliceEnd;
		}
	}

	/** What the Lease showed from the given moment on, in a stretch without a leader. */
	private String state(HolderVersion version, int index, List<HolderVersion> versions, long at, boolean lastSlice,
			long gapEnd, List<TermSpan> terms, TermSpan next) {
		if (version == null || version.deleted()) {
			return MISSING;
		}
		String holder = version.holder();
		if (holder == null || holder.isEmpty()) {
			return NO_HOLDER;
		}
		List<String> processes = this.identityOfProcess.entrySet()
			.stream()
			.filter((process) -> holder.equals(process.getValue()))
			.map(Map.Entry::getKey)
			.toList();
		if (!processes.isEmpty() && processes.stream().allMatch((process) -> endedBefore(process, at))) {
			return HOLDER_ENDED;
		}
		if (lastSlice && next != null && processes.contains(next.process())) {
			return CLAIMED;
		}
		TermSpan holdersLast = lastClosedBy(terms, at, processes);
		String closedBy = (holdersLast != null) ? holdersLast.closedBecause() : NO_TERM_BEFORE;
		return (writtenAgainBy(holder, index, versions, gapEnd) ? RENEWED : NOT_RENEWED) + closedBy;
	}

	private boolean endedBefore(String process, long at) {
		Long ended = this.processEndedAt.get(process);
		return ended != null && ended <= at;
	}

	/** Whether the next version an elector wrote after the given one, within the stretch, names the same holder. */
	private boolean writtenAgainBy(String holder, int index, List<HolderVersion> versions, long gapEnd) {
		for (int i = index + 1; i < versions.size() && versions.get(i).at() <= gapEnd; i++) {
			HolderVersion later = versions.get(i);
			if (this.replicas.contains(later.writer())) {
				return !later.deleted() && holder.equals(later.holder());
			}
		}
		return false;
	}

	/** Of the terms (of the given processes; all when {@code null}), the last one closed by the moment. */
	private static TermSpan lastClosedBy(List<TermSpan> terms, long at, List<String> processes) {
		TermSpan last = null;
		for (TermSpan term : terms) {
			if (term.closedAt() <= at && (processes == null || processes.contains(term.process()))
					&& (last == null || term.closedAt() > last.closedAt())) {
				last = term;
			}
		}
		return last;
	}

	private static Map<String, Duration> durations(Map<String, Long> nanos) {
		Map<String, Duration> durations = new TreeMap<>();
		nanos.forEach((key, value) -> durations.put(key, Duration.ofNanos(value)));
		return durations;
	}

	/**
	 * A term: from its gate open to its gate close, or to the end of the run while still open.
	 * @param closedBecause why it ended, e.g. {@code RENEW_DEADLINE_PASSED}; {@code null} while open
	 */
	record TermSpan(String process, long openedAt, long closedAt, String closedBecause) {

	}

	/**
	 * A version of a Lease as the API server stored it, or its deletion.
	 * @param writer who wrote it: a replica's name, or a foreign writer's
	 * @param holder the holder it names; {@code null} or empty when none
	 */
	record HolderVersion(long at, String writer, String holder, boolean deleted) {

	}

}
