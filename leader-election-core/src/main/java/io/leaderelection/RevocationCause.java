package io.leaderelection;

/** Why leadership of an election ended. */
public enum RevocationCause {

	/** The Lease was not renewed within the renew deadline. */
	RENEW_DEADLINE_PASSED(true),

	/** Another candidate holds the Lease now. */
	LEASE_TAKEN(true),

	/** The Lease was deleted while this instance held it. */
	LEASE_DELETED(true),

	/**
	 * Another process wrote the Lease under this instance's identity: two replicas were given
	 * one identity, and this one keeps out.
	 */
	IDENTITY_CONFLICT(true),

	/**
	 * In a migration from an older leader election, that election's key stopped naming this
	 * replica's Pod (an old replica took it), or that Pod is not Ready, for which the old replicas
	 * take it.
	 */
	MIGRATION_KEY_LOST(true),

	/** The Lease's spec.preferredHolder names another candidate, so this term was finished. */
	PREFERRED_HOLDER(false),

	/** Leadership was given up on request ({@code stepDown} or the Context's {@code yield()}). */
	STEPPED_DOWN(false),

	/**
	 * Given up so that a replica holding fewer of the group's Leases takes it over: the Leases of
	 * a sharded or balanced group are spread over its members.
	 */
	HANDED_OVER(false),

	/**
	 * The application stopped accepting traffic (its readiness turned to refusing), so it stopped
	 * campaigning until it is ready again.
	 */
	NOT_READY(false),

	/** The application is shutting down. */
	SHUTDOWN(false);

	private final boolean lost;

	RevocationCause(boolean lost) {
		this.lost = lost;
	}

	/** Whether leadership was lost rather than given up; {@code on-lost} acts only on these. */
	public boolean isLost() {
		return this.lost;
	}

}
