package io.leaderelection.engine.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStoreException;

/**
 * The words the rules' scripts are written in: versions of the Lease named as a reader says them,
 * and steps told as one line, in milliseconds.
 */
final class FollowerSteps {

	static final Instant RENEWED = Instant.parse("2026-11-29T06:00:00Z");

	private FollowerSteps() {
	}

	static long ms(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

	/**
	 * A version of the Lease: {@code "none"} (missing, {@code null}), {@code "free"} (created
	 * without holder), {@code "released"}, {@code "held by X"}, {@code "lock of X"} (for life),
	 * each with leaseTransitions 3 and uid {@code "uid-1"}, or {@code "... in uid-2"} for another
	 * object.
	 */
	static LeaseRecord version(String described) {
		String uid = described.endsWith(" in uid-2") ? "uid-2" : "uid-1";
		String what = described.replace(" in uid-2", "");
		if (what.equals("none")) {
			return null;
		}
		if (what.equals("free")) {
			return record(null, 15, null, uid);
		}
		if (what.equals("released")) {
			return record(null, 15, RENEWED, uid);
		}
		if (what.startsWith("held by ")) {
			return record(what.substring("held by ".length()), 15, RENEWED, uid);
		}
		if (what.startsWith("lock of ")) {
			return record(what.substring("lock of ".length()), LeaseRecord.FOR_LIFE_LEASE_DURATION_SECONDS, RENEWED, uid);
		}
		throw new IllegalArgumentException("No version is described as '" + described + "'");
	}

	private static LeaseRecord record(String holder, int durationSeconds, Instant renewed, String uid) {
		return new LeaseRecord(holder, durationSeconds, renewed, renewed, 3, null, uid, "7", null);
	}

	/** The leader's step as one line of a script. */
	static String told(LeaderStep step) {
		if (step instanceof LeaderStep.WriteAgainIn write) {
			return "write again in " + TimeUnit.NANOSECONDS.toMillis(write.delayNanos());
		}
		if (step instanceof LeaderStep.ReadThenRenew) {
			return "read then renew";
		}
		return "lose " + ((LeaderStep.Lose) step).cause();
	}

	/** The step as one line of a script. */
	static String told(FollowerStep step) {
		if (step instanceof FollowerStep.Wait wait) {
			return (wait.atMostNanos() == Long.MAX_VALUE) ? "wait for the next look"
					: "wait at most " + TimeUnit.NANOSECONDS.toMillis(wait.atMostNanos());
		}
		if (step instanceof FollowerStep.WaitForTurn) {
			return "wait for turn";
		}
		if (step instanceof FollowerStep.CreateWithoutHolder) {
			return "create without holder";
		}
		if (step instanceof FollowerStep.LeadOn lead) {
			return "lead on own claim sent at " + TimeUnit.NANOSECONDS.toMillis(lead.sentAtNanos());
		}
		if (step instanceof FollowerStep.Claim claim) {
			return ((claim.seen() != null) ? "claim " : "create claimed ") + claim.transitions() + " " + claim.reason()
					+ ((claim.detail() != null) ? " (" + claim.detail() + ")" : "");
		}
		if (step instanceof FollowerStep.ClaimIfLet claimIfLet) {
			return told(claimIfLet.claim()) + " if let, else " + told(claimIfLet.otherwise());
		}
		if (step instanceof FollowerStep.CheckOwner check) {
			return "check owner " + check.owner().name() + " of " + check.seen().holderIdentity();
		}
		if (step instanceof FollowerStep.ReplaceLock replace) {
			return "replace lock: " + replace.because();
		}
		throw new IllegalArgumentException(String.valueOf(step));
	}

	/** A store failure: {@code not found}, {@code conflict}, {@code no answer} or {@code refused}. */
	static Throwable failure(String kind) {
		return switch (kind) {
			case "not found" -> new LeaseNotFoundException("update", "Lease a/b", "gone");
			case "conflict" -> new LeaseConflictException("update", "Lease a/b", "changed");
			case "no answer" -> LeaseStoreException.noAnswer("update", "Lease a/b", Duration.ofSeconds(3), null);
			case "refused" -> new LeaseStoreException("update", "Lease a/b", 500, "internal error");
			default -> throw new IllegalArgumentException(kind);
		};
	}

}
