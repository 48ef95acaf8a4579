package io.leaderelection.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.RevocationCause;
import io.leaderelection.StepDown;

/**
 * A release of our own accord: the term being finished and how far its release got. Its fields
 * are {@link Leadership}'s to set, under the election's lock, but for what is read lock-free.
 */
final class Release {

	final RevocationCause cause;

	private final String election;

	private final GatedWork work;

	/** Whether the release is to be written, rather than the Lease left to expire. */
	boolean write;

	long termNumber;

	/** Completes once the gated work stopped and the calls under way ended. */
	CompletableFuture<Void> drain = CompletableFuture.completedFuture(null);

	/** Whether the drain ended, or ran out. */
	boolean settled;

	volatile StepDown.Release outcome = StepDown.Release.WAITING_FOR_CALLS;

	volatile String detail;

	private final CompletableFuture<Void> done = new CompletableFuture<>();

	Release(RevocationCause cause, boolean write, String election, GatedWork work) {
		this.cause = cause;
		this.write = write;
		this.election = election;
		this.work = work;
	}

	/** Completes once the release was written or given up. */
	CompletableFuture<Void> done() {
		return this.done;
	}

	/** A claim given back after a stop without release is released after all, on a step-down. */
	void alsoWrite() {
		this.write = true;
	}

	/** The release is over, written or not. */
	void end(StepDown.Release outcome, String detail) {
		this.outcome = outcome;
		this.detail = detail;
		this.done.complete(null);
	}

	StepDown describe() {
		StepDown.Release now = this.outcome;
		boolean unreleased = now == StepDown.Release.WAITING_FOR_CALLS || now == StepDown.Release.NOT_WRITTEN;
		List<String> calls = unreleased ? this.work.callsUnderWay() : List.of();
		return new StepDown(this.election, now, calls, this.detail);
	}

}
