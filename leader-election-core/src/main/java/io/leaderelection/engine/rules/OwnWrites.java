package io.leaderelection.engine.rules;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStoreException;

/**
 * The renewTimes this process sent naming itself: a version naming our identity is ours only if
 * it carries one of them, whether or not its write was answered. Two processes would have to
 * write the same microsecond for one to take the other's version for its own.
 * <p>
 * A version of ours written since the last term ended (a claim whose answer was lost) is
 * claimed again at once; one written in a term that has ended is not: the calls of that term
 * may still run, so it waits to expire like anybody's.
 */
public final class OwnWrites {

	/** Far more than a term can send unanswered before its gate closes. */
	private static final int MOST_UNANSWERED = 1024;

	private final String identity;

	/** The last write known to be stored: every write sent before it can no longer be. */
	private Sent answered;

	/** The writes sent since, whose answer is not known: any of them may be stored. */
	private final Deque<Sent> unanswered = new ArrayDeque<>();

	/** Counts the terms ended. */
	private long termsEnded;

	public OwnWrites(String identity) {
		this.identity = identity;
	}

	public Sent sent(LeaseRecord record, long sentAtNanos) {
		if (this.unanswered.size() == MOST_UNANSWERED) {
			this.unanswered.removeFirst();
		}
		Sent write = new Sent(record.renewTime(), sentAtNanos, this.termsEnded);
		this.unanswered.addLast(write);
		return write;
	}

	/**
	 * The write was refused for sure (a 4xx answer: a conflict, a missing Lease, a denial), so no
	 * version carries it: a version with its renewTime is another writer's, one that wrote the
	 * same microsecond under our identity.
	 */
	public void refusedIf(Sent write, Throwable failure) {
		if (failure instanceof LeaseStoreException refusal && refusal.getStatusCode() >= 400
				&& refusal.getStatusCode() < 500) {
			this.unanswered.removeIf((unanswered) -> unanswered == write);
		}
	}

	/** The write that stored this version was answered: the ones sent before it were not applied. */
	public void answered(LeaseRecord stored) {
		Sent write = find(stored);
		if (write != null) {
			this.answered = write;
			this.unanswered.clear();
		}
	}

	public void termEnded() {
		this.termsEnded++;
	}

	public boolean wrote(LeaseRecord version) {
		return find(version) != null;
	}

	/**
	 * The write of ours, sent since the last term ended, that stored this version: a claim whose
	 * answer never came, or came too late to lead on (a term's own writes end with it); {@code null}
	 * when none.
	 */
	public Sent sinceLastTerm(LeaseRecord version) {
		Sent write = find(version);
		return (write != null && write.termsEndedBefore == this.termsEnded) ? write : null;
	}

	private Sent find(LeaseRecord version) {
		if (!version.isHeldBy(this.identity)) {
			return null;
		}
		if (this.answered != null && this.answered.wrote(version)) {
			return this.answered;
		}
		for (Sent write : this.unanswered) {
			if (write.wrote(version)) {
				return write;
			}
		}
		return null;
	}

	/** One write sent: the renewTime it carries, when it was sent, and in which run of terms. */
	public record Sent(Instant renewTime, long sentAtNanos, long termsEndedBefore) {

		public boolean wrote(LeaseRecord version) {
			return LeaseRecord.sameInstant(this.renewTime, version.renewTime());
		}

	}

}
