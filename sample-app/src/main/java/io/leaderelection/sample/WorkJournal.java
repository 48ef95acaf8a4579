package io.leaderelection.sample;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * What the leader-only work of this replica did, with the fencing token it did it under. A real
 * service would send the token with each write so that the downstream system rejects writes
 * from a deposed leader; here the work is logged and kept for {@code GET /work}.
 */
@Component
class WorkJournal {

	private static final Logger logger = LoggerFactory.getLogger(WorkJournal.class);

	private static final int KEPT = 50;

	private final Deque<Entry> entries = new ArrayDeque<>();

	void record(String election, long fencingToken, String what) {
		Entry entry = new Entry(Instant.now(), election, fencingToken, what);
		logger.info("[{} fencing token {}] {}", election, fencingToken, what);
		synchronized (this.entries) {
			this.entries.addFirst(entry);
			if (this.entries.size() > KEPT) {
				this.entries.removeLast();
			}
		}
	}

	/** The latest entries, newest first. */
	List<Entry> entries() {
		synchronized (this.entries) {
			return List.copyOf(this.entries);
		}
	}

	/**
	 * One piece of leader-only work.
	 *
	 * @param at when it was done
	 * @param election the election whose leader did it
	 * @param fencingToken the fencing token it was done under
	 * @param what what was done
	 */
	record Entry(Instant at, String election, long fencingToken, String what) {
	}

}
