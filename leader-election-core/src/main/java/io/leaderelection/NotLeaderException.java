package io.leaderelection;

/**
 * A {@link LeaderOnly} call was made on a replica that does not lead the election.
 */
public class NotLeaderException extends RuntimeException {

	private final String election;

	private final String holderIdentity;

	public NotLeaderException(String election, String holderIdentity) {
		this(election, holderIdentity, "Not the leader of election '" + election + "'; current holder: "
				+ ((holderIdentity != null) ? holderIdentity : "none"));
	}

	private NotLeaderException(String election, String holderIdentity, String message) {
		super(message);
		this.election = election;
		this.holderIdentity = holderIdentity;
	}

	/**
	 * The call was refused because the application is shutting down and draining its leader
	 * work before it releases the election's Lease.
	 */
	public static NotLeaderException shuttingDown(String election, String holderIdentity) {
		return new NotLeaderException(election, holderIdentity, "Leader-only work of election '" + election
				+ "' is refused: this replica is shutting down and about to release the Lease");
	}

	public String getElection() {
		return this.election;
	}

	/** The holder this replica last saw in the election's Lease, {@code null} when none. */
	public String getHolderIdentity() {
		return this.holderIdentity;
	}

}
