package io.leaderelection.store;

import java.time.Instant;

/**
 * What one version of a Lease records of a once-per-window job. Every duration is relative to
 * the write that stored the version, in milliseconds, as the writer measured it on its own
 * monotonic clock: a reader counts from when it observed the version, which is after that write,
 * so it never reads another replica's wall clock and only ever errs on the side of waiting longer.
 *
 * @param closedForMillis how long after the write no run may start; zero or less once runs may
 * @param startedMillisAgo how long before the write the last run started
 * @param endedMillisAgo how long before the write that run ended; {@code null} while it may run
 * @param startedBy the identity of the replica that started it
 * @param fencingToken the fencing token of the term it started under
 * @param startedAt the starting replica's wall-clock time of the start: shown to people, and, with
 * {@code startedBy} and {@code fencingToken}, what tells one run from another; never compared with
 * another clock
 */
public record WindowRecord(long closedForMillis, long startedMillisAgo, Long endedMillisAgo, String startedBy,
		long fencingToken, Instant startedAt) {

}
