package io.leaderelection.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.UnknownElectionException;

/**
 * A {@link LeaderElector} a user could supply instead of the library's engine: by default it
 * leads the default election and follows {@code billing}, whose Lease {@code other} holds; it
 * only records step-downs. A test may subclass it to report more.
 */
public class StaticLeaderElector implements LeaderElector {

	public static final Instant ACQUIRED = Instant.parse("2026-11-21T12:00:00Z");

	/** The Pod owning billing's lock: billing runs for-life. */
	public static final String OTHER_POD = "other (uid 5f0c2a1e-3f7b-4c55-9d4e-1b2a3c4d5e6f)";

	private final Map<String, LeaderStatus> statuses = new LinkedHashMap<>();

	private final List<String> steppedDown = new ArrayList<>();

	public StaticLeaderElector() {
		this(List.of(
				new LeaderStatus("default", "team-a", "orders-leader", true, "me", ACQUIRED, ACQUIRED.plusSeconds(30),
						3, 3L, LeaderStatus.LEASE_TRANSITIONS, null, LeaderStatus.LEASE_MODE, null, null, null),
				new LeaderStatus("billing", "team-a", "orders-billing-leader", false, "other", ACQUIRED,
						ACQUIRED.plusSeconds(30), 7, null, null, null, LeaderStatus.FOR_LIFE_MODE, OTHER_POD, null,
						null)));
	}

	/** Reports the given statuses, each under its election's name, and nothing else. */
	public StaticLeaderElector(Collection<LeaderStatus> statuses) {
		statuses.forEach((status) -> this.statuses.put(status.election(), status));
	}

	@Override
	public String identity() {
		return "me";
	}

	@Override
	public boolean isLeader(String election) {
		return status(election).leader();
	}

	@Override
	public LeaderStatus status(String election) {
		LeaderStatus status = this.statuses.get(election);
		if (status == null) {
			throw new UnknownElectionException(election, this.statuses.keySet());
		}
		return status;
	}

	@Override
	public Map<String, LeaderStatus> statuses() {
		return new LinkedHashMap<>(this.statuses);
	}

	@Override
	public void stepDown(String election) {
		status(election);
		this.steppedDown.add(election);
	}

	/** The elections asked to step down, in order. */
	public List<String> steppedDown() {
		return List.copyOf(this.steppedDown);
	}

}
