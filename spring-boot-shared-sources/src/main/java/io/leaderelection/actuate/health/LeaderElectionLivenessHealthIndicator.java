package io.leaderelection.actuate.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.leaderelection.LeaderElector;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionHealth;

/**
 * A watchdog for the liveness group, like client-go's leader election healthz check: DOWN only
 * while this replica still holds leadership more than one retry period past its renew
 * deadline. The gate is already closed then, so no leader work runs, but an election loop that
 * neither renewed nor stepped down is wedged, and restarting the pod is the way out. Followers
 * and failing API calls never fail it: a restart would not fix the API server.
 * <p>
 * Opt in by adding {@code leaderElectionLiveness} to
 * {@code management.endpoint.health.group.liveness.include}.
 */
public class LeaderElectionLivenessHealthIndicator extends BootHealthIndicator {

	private final LeaderElector elector;

	private final Function<String, ElectionHealth> electionHealth;

	/**
	 * @param elector the elector whose elections are watched
	 * @param electionHealth how well each election runs, by name ({@link ElectionEngine#health})
	 */
	public LeaderElectionLivenessHealthIndicator(LeaderElector elector,
			Function<String, ElectionHealth> electionHealth) {
		super("Leader election liveness check failed");
		this.elector = elector;
		this.electionHealth = electionHealth;
	}

	@Override
	protected HealthVerdict check() {
		List<String> stuck = new ArrayList<>();
		for (String election : this.elector.statuses().keySet()) {
			ElectionHealth health = this.electionHealth.apply(election);
			// The loop closes leadership at the deadline itself; a retry period later it is late.
			if (health.pastDeadlineFor().compareTo(health.retryPeriod()) > 0) {
				stuck.add("election '" + election + "': still leading " + ElectionDetails.format(health.pastDeadlineFor())
						+ " past its renew deadline without renewing or stepping down");
			}
		}
		return HealthVerdict.of(stuck, Map.of());
	}

}
