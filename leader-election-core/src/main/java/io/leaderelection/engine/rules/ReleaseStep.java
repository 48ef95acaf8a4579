package io.leaderelection.engine.rules;

import io.leaderelection.StepDown;

/**
 * What a release of our own accord does next, as {@link ReleaseRules} decide: a value, which the
 * leadership carries out on the store.
 */
public sealed interface ReleaseStep {

	static Ended ended(boolean dropsTerm, StepDown.Release outcome, String detail) {
		return new Ended(dropsTerm, outcome, detail);
	}

	/** Give up what guards the claim, then decide again ({@link ReleaseRules#guardGivenUp}). */
	record GiveUpGuarded() implements ReleaseStep {
	}

	/**
	 * Write the release over the version of the term last seen: no holder and a lease duration of
	 * one second, as client-go does, so that followers take over at once.
	 * @param rereadOnConflict whether a conflict is read again, rather than ending the release
	 */
	record Write(boolean rereadOnConflict) implements ReleaseStep {
	}

	/** Read the Lease again, and decide ({@link ReleaseRules#reread}). */
	record Reread() implements ReleaseStep {
	}

	/** The release was written: the term is let go, and the mode finishes (a lock is deleted). */
	record Released() implements ReleaseStep {
	}

	/**
	 * The release is over.
	 * @param dropsTerm whether the term released is let go now (it is still held, and renewals stop)
	 * @param outcome written or not
	 * @param detail why, for the step-down's report; {@code null} when nothing is to say
	 */
	record Ended(boolean dropsTerm, StepDown.Release outcome, String detail) implements ReleaseStep {
	}

}
