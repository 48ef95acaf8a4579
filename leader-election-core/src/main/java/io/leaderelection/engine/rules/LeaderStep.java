package io.leaderelection.engine.rules;

import io.leaderelection.RevocationCause;

/**
 * What a lease-mode leader does after an answer to its renewal, as {@link LeaseRules} decide it:
 * a value, which the engine's lease mode carries out.
 */
public sealed interface LeaderStep {

	/** Writes the Lease again after this long. */
	record WriteAgainIn(long delayNanos) implements LeaderStep {
	}

	/** The version held went stale: reads the Lease, then renews on it if it is still ours. */
	record ReadThenRenew() implements LeaderStep {
	}

	/** The term is lost, for this cause. */
	record Lose(RevocationCause cause) implements LeaderStep {
	}

}
