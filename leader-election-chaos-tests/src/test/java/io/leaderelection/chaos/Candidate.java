package io.leaderelection.chaos;

import java.util.List;

/** One process of a replica, campaigning in every election of a chaos run. */
interface Candidate {

	String identity();

	/**
	 * Registers a leader-only call about to read the gate, as the {@code @LeaderOnly}
	 * interceptor does, so that a release of this process's own accord waits for it.
	 * @param what names the call in the elector's log
	 * @return the registration to end once the call has ended; {@code null} while the process
	 * refuses leader-only calls (it is stopping), in which case the call must not run
	 */
	Call enter(String election, String what);

	/** Whether this process may run leader-only work of the election now. */
	boolean isLeader(String election);

	/**
	 * The fencing token of this process's term in the election while its gate is open;
	 * {@code null} when it is closed, or the elector has no fencing tokens.
	 */
	default Long fencingToken(String election) {
		return null;
	}

	/**
	 * The holder of the election's Lease as this process last saw it; {@code null} when it saw
	 * none (the Lease missing, or without holder), or does not tell ({@link #tellsHolderSeen()}).
	 */
	default String holderSeen(String election) {
		return null;
	}

	/** Whether {@link #holderSeen} tells what this process saw. */
	default boolean tellsHolderSeen() {
		return false;
	}

	/**
	 * What this process makes of the election now, for the log of a run that found it without a
	 * leader; {@code null} for an elector that does not tell.
	 */
	default String describe(String election) {
		return null;
	}

	/**
	 * Gives up the election if this process leads it, the way the elector does it; leader-only
	 * calls under way go on.
	 * @param fromListener step down from a listener thread, as Spring Integration's
	 * {@code Context.yield()} is called, rather than from the caller's
	 */
	void stepDown(String election, boolean fromListener);

	/**
	 * The elections in which this process reports that another process writes under its
	 * identity; none for an elector that does not tell.
	 */
	List<String> identityConflicts();

	/** Stops as on a rolling update: leadership is handed over the way the elector does it. */
	void stopGracefully();

	/**
	 * Dies without a word, as on {@code kill -9} or a node failure: leadership ends now and
	 * nothing more is sent.
	 */
	void kill();

	/** A leader-only call registered with {@link #enter}. */
	interface Call {

		/** The call has ended. */
		void exit();

	}

}
