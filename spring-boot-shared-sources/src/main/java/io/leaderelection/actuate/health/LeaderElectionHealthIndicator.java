package io.leaderelection.actuate.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.StepDown;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionHealth;
import io.leaderelection.kubernetes.Permission;

/**
 * Health of the elector, for leaders and followers alike: following is healthy, so a replica
 * that does not lead stays ready for traffic. DOWN when an election could not read or write its
 * Lease for longer than its lease duration (a 403, a missing namespace, an unreachable API
 * server), when its loop has stopped running, or when another process writes its Lease under
 * this replica's identity; DOWN as well when the API server denied, at start, a permission the
 * configured features cannot do without ({@code leader.election.permission-check=warn}), until the
 * application restarts. Details show every election (each shard of a sharded election as one,
 * with its {@code shard} and balanced {@code group}), the shards led of each sharded election, and
 * gated work that failed to start.
 * <p>
 * Only the library's own {@link ElectionEngine} tells how long calls have failed; for another
 * {@link LeaderElector} the indicator shows the elections and stays UP.
 */
public class LeaderElectionHealthIndicator extends BootHealthIndicator {

	private final LeaderElector elector;

	private final Function<String, ElectionHealth> electionHealth;

	private final String mode;

	private final Supplier<String> eventsProblem;

	private final Supplier<List<Permission>> missingPermissions;

	/**
	 * @param elector the elector whose elections are shown
	 * @param electionHealth how well each election runs, by name ({@link ElectionEngine#health});
	 * {@code null} when the elector does not tell
	 * @param mode how the elector leads, shown as is ({@code lease}, {@code standalone});
	 * {@code null} when not known
	 * @param eventsProblem why Kubernetes Events cannot be recorded, shown without turning health
	 * DOWN; answers {@code null} while they can
	 * @param missingPermissions the permissions the API server denied at start, shown, turning
	 * health DOWN unless optional
	 */
	public LeaderElectionHealthIndicator(LeaderElector elector, Function<String, ElectionHealth> electionHealth,
			String mode, Supplier<String> eventsProblem, Supplier<List<Permission>> missingPermissions) {
		super("Leader election health check failed");
		this.elector = elector;
		this.electionHealth = electionHealth;
		this.mode = mode;
		this.eventsProblem = eventsProblem;
		this.missingPermissions = missingPermissions;
	}

	@Override
	protected HealthVerdict check() {
		Map<String, Object> elections = new LinkedHashMap<>();
		List<String> problems = new ArrayList<>();
		Map<String, LeaderStatus> statuses = this.elector.statuses();
		for (LeaderStatus status : statuses.values()) {
			Map<String, Object> details = ElectionDetails.of(status);
			if (this.electionHealth != null) {
				ElectionHealth health = this.electionHealth.apply(status.election());
				if (!health.failingFor().isZero()) {
					details.put("failingFor", ElectionDetails.format(health.failingFor()));
				}
				if (health.gatedWorkFailure() != null) {
					details.put("gatedWorkFailure", health.gatedWorkFailure());
				}
				StepDown release = health.lastRelease();
				if (release != null && (release.release() == StepDown.Release.WAITING_FOR_CALLS
						|| release.release() == StepDown.Release.NOT_WRITTEN)) {
					details.put("lastRelease", describe(release));
				}
				problems.addAll(problems(health));
			}
			elections.put(status.election(), details);
		}
		Map<String, Object> details = new LinkedHashMap<>();
		if (this.mode != null) {
			details.put("mode", this.mode);
		}
		details.put("identity", this.elector.identity());
		details.put("elections", elections);
		Map<String, Object> shards = ElectionDetails.shards(statuses);
		if (!shards.isEmpty()) {
			details.put("shards", shards);
		}
		String eventsProblem = this.eventsProblem.get();
		if (eventsProblem != null) {
			details.put("events", eventsProblem);
		}
		List<String> missingPermissions = new ArrayList<>();
		for (Permission permission : this.missingPermissions.get()) {
			if (permission.optional()) {
				missingPermissions.add(permission.describe() + " (optional: " + permission.withoutIt() + ")");
			}
			else {
				missingPermissions.add(permission.describe());
				problems.add("missing permission: " + permission.describe());
			}
		}
		if (!missingPermissions.isEmpty()) {
			details.put("missingPermissions", missingPermissions);
		}
		return HealthVerdict.of(problems, details);
	}

	/** A release not written, or not yet: why, and the calls it waits for. */
	private static String describe(StepDown release) {
		StringBuilder description = new StringBuilder(release.release().name());
		if (release.detail() != null) {
			description.append(": ").append(release.detail());
		}
		if (!release.callsUnderWay().isEmpty()) {
			description.append("; calls under way: ").append(String.join(", ", release.callsUnderWay()));
		}
		return description.toString();
	}

	private static List<String> problems(ElectionHealth health) {
		List<String> problems = new ArrayList<>();
		if (health.failingFor().compareTo(health.leaseDuration()) > 0) {
			problems.add("election '" + health.election() + "': " + health.lastError() + " (failing for "
					+ ElectionDetails.format(health.failingFor()) + ", longer than the lease duration of "
					+ ElectionDetails.format(health.leaseDuration()) + ")");
		}
		if (health.loopStalled()) {
			problems.add("election '" + health.election() + "': its loop has not run for "
					+ ElectionDetails.format(health.sinceLastAttempt()));
		}
		if (health.identityConflict() != null) {
			problems.add("election '" + health.election() + "': " + health.identityConflict());
		}
		return problems;
	}

}
