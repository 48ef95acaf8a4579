package io.leaderelection.engine.rules;

/**
 * One unbroken run of observations that all show the same state (a Lease missing, the key of an
 * older election free), and since when, on the monotonic clock. Consecutive observations may be
 * at most a given spacing apart, unless something followed the state throughout between them (a
 * watch that stayed open). A failed call, a watch that ended or a pause of this process ends the
 * run ({@link #end()}), and the next observation starts a new one: what was seen before such a
 * gap says nothing about the time after it, as the state may have changed and changed back
 * unseen meanwhile.
 */
public final class UnbrokenRun {

	private static final long NONE = Long.MIN_VALUE;

	private final long maxSpacingNanos;

	private long sinceNanos = NONE;

	private long lastSeenNanos = NONE;

	/**
	 * @param maxSpacingNanos how far apart two consecutive observations may complete and still
	 * belong to one run: the longest wait between two reads plus a read's timeout
	 */
	public UnbrokenRun(long maxSpacingNanos) {
		this.maxSpacingNanos = maxSpacingNanos;
	}

	/**
	 * Another observation of the state, completed at the given moment.
	 * @param followedSinceLast whether the state was followed without a break since the previous
	 * observation of the run, so that however long ago that was, nothing went unseen
	 * @return whether this observation began a new run
	 */
	public boolean seen(long at, boolean followedSinceLast) {
		boolean begins = this.sinceNanos == NONE
				|| (!followedSinceLast && at - this.lastSeenNanos > this.maxSpacingNanos);
		if (begins) {
			this.sinceNanos = at;
		}
		if (this.lastSeenNanos == NONE || at - this.lastSeenNanos > 0) {
			this.lastSeenNanos = at;
		}
		return begins;
	}

	/** Another state was seen, or a gap came: the run is over. */
	public void end() {
		this.sinceNanos = NONE;
		this.lastSeenNanos = NONE;
	}

	/** Whether a run is going on. */
	public boolean running() {
		return this.sinceNanos != NONE;
	}

	/** When the last observation of the run completed; meaningful only while it runs. */
	public long lastSeenNanos() {
		return this.lastSeenNanos;
	}

	/** How long the run has lasted at the given moment; 0 when none is going on. */
	public long lastedAt(long now) {
		return running() ? Math.max(0, now - this.sinceNanos) : 0;
	}

	/** How long until the run will have lasted the given time, if unbroken; 0 when it has. */
	public long untilLasted(long duration, long now) {
		return running() ? Math.max(0, this.sinceNanos + duration - now) : duration;
	}

}
