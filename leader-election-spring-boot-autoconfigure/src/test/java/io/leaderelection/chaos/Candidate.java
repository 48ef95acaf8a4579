package io.leaderelection.chaos;

/** One process of a replica, campaigning in every election of a chaos run. */
interface Candidate {

	String identity();

	/** Whether this process may run leader-only work of the election now. */
	boolean isLeader(String election);

	/** Stops as on a rolling update: leadership is handed over the way the elector does it. */
	void stopGracefully();

	/**
	 * Dies without a word, as on {@code kill -9} or a node failure: leadership ends now and
	 * nothing more is sent.
	 */
	void kill();

}
