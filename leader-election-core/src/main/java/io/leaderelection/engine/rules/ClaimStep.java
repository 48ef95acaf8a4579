package io.leaderelection.engine.rules;

/**
 * What a claim's answer leads to, as {@link Claiming#answered} decides.
 * @param <R> the release that gives back a term won after a stop or a step-down
 */
public sealed interface ClaimStep<R> {

	/**
	 * The claim stored this replica as holder: its term is granted ({@link Claiming#grants}), or,
	 * when a release was made for it, given back without opening the gate.
	 * @param giveBack the release that gives the term back; {@code null} when it is granted
	 */
	record Won<R>(R giveBack) implements ClaimStep<R> {
	}

	/**
	 * The claim was refused, or got no answer: the release made for it, if any, ends unwritten,
	 * and the replica looks at the Lease again.
	 * @param refusal what the refusal tells, and when to look again ({@link Refusal#ofClaim})
	 * @param giveBack the release made for the claim; {@code null} when none
	 */
	record Refused<R>(Refusal refusal, R giveBack) implements ClaimStep<R> {
	}

}
