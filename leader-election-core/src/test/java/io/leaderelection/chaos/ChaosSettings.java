package io.leaderelection.chaos;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.leaderelection.engine.ElectionSettings;

/**
 * The shape of a chaos run. Timings are client-go's defaults (lease 15 s, renew deadline 10 s,
 * retry 2 s) divided by {@value #TIME_SCALE}, so that a run sees many transitions in little time.
 *
 * @param seed seeds the choice of every fault, its target and its duration
 * @param replicas how many replicas campaign
 * @param elections how many elections (each its own Lease) every replica campaigns in
 * @param transitions the run ends once this many leadership transitions happened and every kind
 * of fault of its mix was injected...
 * @param timeLimit ...or once it has run this long
 */
record ChaosSettings(long seed, int replicas, int elections, int transitions, Duration timeLimit) {

	static final String NAMESPACE = "chaos";

	/** How much faster than client-go's defaults the run's clocks tick. */
	static final int TIME_SCALE = 15;

	static final Duration LEASE_DURATION = Duration.ofSeconds(15).dividedBy(TIME_SCALE);

	static final Duration RENEW_DEADLINE = Duration.ofSeconds(10).dividedBy(TIME_SCALE);

	static final Duration RETRY_PERIOD = Duration.ofSeconds(2).dividedBy(TIME_SCALE);

	/**
	 * How long a release of our own accord waits for the leader work to end before it leaves
	 * the Lease to expire instead: shorter than the longest leader-only job, so that some drains
	 * run out.
	 */
	static final Duration DRAIN_TIMEOUT = Duration.ofMillis(400);

	/** How long the run waits, after a fault is healed, for every election to have a leader. */
	static final Duration RECOVERY_TIMEOUT = LEASE_DURATION.multipliedBy(10);

	/** The election names: {@code e0}, {@code e1}, ... */
	List<String> electionNames() {
		return IntStream.range(0, this.elections).mapToObj((index) -> "e" + index).toList();
	}

	String leaseName(String election) {
		return "chaos-" + election;
	}

	List<ElectionSettings> electionSettings() {
		return electionNames().stream()
			.map((election) -> new ElectionSettings(election, NAMESPACE, leaseName(election), LEASE_DURATION,
					RENEW_DEADLINE, RETRY_PERIOD))
			.toList();
	}

	/** A client default scaled like the election timings, e.g. fabric8's 10 s request timeout. */
	static Duration scaled(Duration clientDefault) {
		return clientDefault.dividedBy(TIME_SCALE);
	}

}
