package io.leaderelection;

import java.time.Instant;

/**
 * A job that runs at most once per window across the replicas of an election (a ShedLock lock,
 * or {@code @LeaderOnly(atMostEvery)}), as this replica sees it. Its runs are recorded in the
 * election's Lease, each start under the term that made it, with times relative to the write
 * that stored them; the instants here are on this replica's own clock.
 *
 * @param election the election the job runs in; for a sharded election, the shard
 * @param job the job's name: a ShedLock lock's name, or the bean and method of a
 * {@code @LeaderOnly(atMostEvery)} method
 * @param startedBy the identity of the replica that started the last run
 * @param fencingToken the fencing token of the term the last run started under
 * @param lastStart when the last run started
 * @param ended when the last run ended; {@code null} while it may still run
 * @param nextStartAllowed the earliest moment at which another run may start
 */
public record WindowStatus(String election, String job, String startedBy, long fencingToken, Instant lastStart,
		Instant ended, Instant nextStartAllowed) {

}
