package io.leaderelection;

/**
 * A {@link LeaderOnly} call was made on a replica that does not lead the election.
 */
public class NotLeaderException extends RuntimeException {

	private final String election;

	private final String holderIdentity;

	public NotLeaderException(String election, String holderIdentity) {
		super("Not the leader of election '" + election + "'; current holder: "
				+ ((holderIdentity != null) ? holderIdentity : "none"));
		this.election = election;
		this.holderIdentity = holderIdentity;
	}

	public String getElection() {
		return this.election;
	}

	/** The holder this replica last saw in the election's Lease, {@code null} when none. */
	public String getHolderIdentity() {
		return this.holderIdentity;
	}

}
