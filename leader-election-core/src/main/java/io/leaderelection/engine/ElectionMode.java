package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.store.LeaseRecord;

/**
 * The rules of one mode of election: when a follower claims, how a leader keeps its term, and
 * what a release writes. The loop ({@link Election}) calls them under its lock and sends the
 * calls they ask for; each mode keeps to its own rules and fields.
 */
interface ElectionMode {

	/** How long after its last successful write a term's gate stays open. */
	long gateDeadlineNanos();

	/** Before campaigning, blocking: what the mode must know first. */
	default void prepare() {
	}

	/** Campaigning starts: follow what the mode follows besides the Lease, telling the loop of changes. */
	default void start() {
	}

	/** Campaigning stops. */
	default void stop() {
	}

	/** What the mode follows besides the Lease may have changed. */
	default void followedChanged(long now) {
	}

	/** What a follower does with what it has observed: claim, wait, or read more. */
	void decide(long now);

	/**
	 * Whether a follower whose watch is open decides without reading first when its next attempt
	 * comes: the watch tells of every change, and what the mode polls is something else.
	 */
	boolean decidesOnWatchAlone();

	/**
	 * Whether a follower may decide again, without reading, on what it saw: the mode has nothing
	 * on its way that could change that decision.
	 */
	boolean mayDecideAgain();

	/** A leader's periodic step, in the attempt of the given sequence. */
	void lead(long now, long sequence);

	/** A version of the Lease a watch told while leading; only a mode that watches while leading gets any. */
	default void leaderSaw(LeaseRecord record, long now) {
	}

	/** Whether a leader keeps the watch it had as a follower. */
	boolean watchesWhileLeading();

	/** Whether the leader may record once-per-window runs, each with a write of its term. */
	default boolean writesWindows() {
		return false;
	}

	/** A once-per-window run or extension waits to be stored: write the Lease soon, under the term. */
	default void writeSoon() {
	}

	/** The lease duration a claim writes. */
	int claimedLeaseDurationSeconds();

	/** Creates the Lease held by this candidate, from a claim of a missing Lease. */
	CompletableFuture<LeaseRecord> create(LeaseRecord claimed, Duration timeout);

	/** Whether the mode gives up what guards its claims (an older election's key) before a release. */
	boolean guardsClaims();

	/** Gives up what guards the claims, if this replica holds it; only a mode that {@link #guardsClaims()}. */
	default CompletableFuture<Void> giveUpGuarded(Duration timeout) {
		throw new UnsupportedOperationException("Nothing guards this mode's claims");
	}

	/** Why a drained term whose release-on-shutdown is off is not released. */
	String notReleasedBecause();

	/**
	 * The release is written and stored: what else ends the term.
	 * @param timeoutNanos what is left of the time a release may take
	 */
	void released(Release release, LeaseRecord stored, long timeoutNanos);

	/** How long a release may take from now. */
	long releaseTimeLeft(long now);

	/**
	 * Whether a term whose leader work outlasts the drain timeout is kept until that work ends,
	 * rather than left to expire.
	 */
	boolean keepsTermUntilWorkEnds();

	/** How long a replica that stepped down stays out after its release. */
	long stayOutAfterRelease();

	/** The Pod owning the given version of the lock; {@code null} when none or not a lock. */
	default String lockOwner(LeaseRecord seen) {
		return null;
	}

	/** Why this replica cannot lead, beyond failed calls; {@code null} when nothing. */
	default String problem() {
		return null;
	}

}
