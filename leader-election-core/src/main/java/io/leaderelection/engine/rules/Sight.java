package io.leaderelection.engine.rules;

import io.leaderelection.store.LeaseRecord;

/**
 * What a follower has seen of the Lease, at the moment it decides: read off the election's state
 * by the mode, so that its rules read no clock.
 *
 * @param seen the last version seen; {@code null} while the Lease is missing
 * @param stayOutLeftNanos how long this replica still stays out after giving a term up; 0 or
 * less when it does not
 * @param writerConflict whether another process was seen writing under this replica's identity
 * @param releasedForUs whether the holder released the Lease, so that this replica may take it
 * at once
 * @param untilExpiryNanos how long until the version seen has been unchanged for its expiry; 0
 * or less when it has, and while the Lease is missing
 */
public record Sight(LeaseRecord seen, long stayOutLeftNanos, boolean writerConflict,
		boolean releasedForUs, long untilExpiryNanos) {

	/**
	 * What the given observation and stay-out show at the given moment.
	 * @param writerConflict whether another process was seen writing under this replica's identity
	 */
	public static Sight of(Observation observation, StayOut stayOut, boolean writerConflict, String identity,
			long now) {
		LeaseRecord seen = observation.lastSeen();
		return new Sight(seen, stayOut.leftAt(now), writerConflict, observation.releasedFor(identity),
				(seen != null) ? observation.untilExpiry(now) : 0);
	}

	/**
	 * The version a follower judges: the last seen, unless it stays out or another process writes
	 * under our identity; {@code null} when none.
	 */
	public LeaseRecord judged() {
		return (this.seen != null && !stayingOut() && !this.writerConflict) ? this.seen : null;
	}

	/** Whether this replica stays out of the election for now. */
	public boolean stayingOut() {
		return this.stayOutLeftNanos > 0;
	}

}
