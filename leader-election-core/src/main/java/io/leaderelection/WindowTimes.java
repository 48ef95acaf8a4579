package io.leaderelection;

import java.time.Duration;

/**
 * Where a once-per-window job stands, as this replica knows it, on its monotonic clock.
 *
 * @param sinceLastStart how long ago its last run started, by whichever replica
 * @param untilOpen how long until a run may start again; zero when it may now
 */
public record WindowTimes(Duration sinceLastStart, Duration untilOpen) {

}
