package io.leaderelection.engine.rules;

/**
 * This replica's claims of the Lease: the one on its way, and how many in a row were read back
 * too late to lead on. A claim's answer, not a watch event, decides what comes next
 * ({@link #answered}): a term won, granted unless its gate closed already, or given back when
 * the election stopped or stepped down meanwhile; or another look at the Lease. Guarded by the
 * election's lock, but for what is read lock-free.
 * @param <R> the release that gives back a term won after a stop or a step-down
 */
public final class Claiming<R> {

	/** The claim on its way; read lock-free by the balancer and the status. */
	private volatile Sent<R> onItsWay;

	/** How many claims in a row were read back too late to lead on, and made again. */
	private int tooLateInARow;

	/** A claim writing these leaseTransitions is sent; {@code creates} when it creates the Lease. */
	public Sent<R> send(int transitions, boolean creates) {
		Sent<R> sent = new Sent<>(transitions, creates);
		this.onItsWay = sent;
		return sent;
	}

	/** Whether a claim is on its way. Lock-free. */
	public boolean onItsWay() {
		return this.onItsWay != null;
	}

	/** The leaseTransitions the claim on its way writes; a claim must be on its way. */
	public int transitionsOnItsWay() {
		return this.onItsWay.transitions;
	}

	/**
	 * The release that gives back the term the claim on its way may win; {@code null} while the
	 * election neither stopped nor stepped down since it was sent. A claim must be on its way.
	 */
	public R givenBackBy() {
		return this.onItsWay.giveBack;
	}

	/**
	 * The election stops or steps down while the claim is on its way: the term it may win is to
	 * be given back by the given release. A claim must be on its way.
	 */
	public void giveBack(R release) {
		this.onItsWay.giveBack = release;
	}

	/**
	 * The claim was answered, or failed: what that leads to, whatever happened meanwhile.
	 * @param failure {@code null} when it was stored
	 * @param leaseSeenMissing whether this replica last saw the Lease missing
	 */
	public ClaimStep<R> answered(Sent<R> sent, Throwable failure, boolean leaseSeenMissing) {
		this.onItsWay = null;
		if (failure == null) {
			return new ClaimStep.Won<>(sent.giveBack);
		}
		return new ClaimStep.Refused<>(Refusal.ofClaim(failure, sent.creates && leaseSeenMissing), sent.giveBack);
	}

	/**
	 * Whether the gate of a term won opens: not when the write took longer than the gate's
	 * deadline (the Lease is ours then, and the next look reads it and decides).
	 */
	public boolean grants(Term won, long now, long gateDeadlineNanos) {
		if (!won.gateOpenAt(now, gateDeadlineNanos)) {
			return false;
		}
		this.tooLateInARow = 0;
		return true;
	}

	/**
	 * A version of ours, stored by a claim whose term's gate had closed already when it was read
	 * back (the claim's answer was lost, or came too late), is claimed again.
	 */
	public void tooLate() {
		this.tooLateInARow++;
	}

	/**
	 * Whether a claim made again because the one before was read back too late was itself read
	 * back too late: a link slower than the renew deadline, whose claims, made again and again,
	 * would keep the Lease changing so that no follower ever sees it expire. Its version then
	 * waits to expire like anybody's.
	 */
	public boolean claimedAgainTooLate() {
		return this.tooLateInARow > 0;
	}

	/** A claim on its way, and the release that gives its term back if it wins after a stop or a step-down. */
	public static final class Sent<R> {

		private final int transitions;

		private final boolean creates;

		private R giveBack;

		private Sent(int transitions, boolean creates) {
			this.transitions = transitions;
			this.creates = creates;
		}

	}

}
