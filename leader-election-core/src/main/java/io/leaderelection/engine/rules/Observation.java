package io.leaderelection.engine.rules;

import java.time.Duration;

import io.leaderelection.store.LeaseRecord;

/**
 * What one replica has observed of a Lease: the last version seen and since when, on the
 * monotonic clock; whether the Lease is missing, and the unbroken run of observations that shows
 * it; whether a watch has followed it since; and what earlier versions leave behind (the highest
 * leaseTransitions, whether the Lease went missing since a holder was seen, the version last seen
 * held before it went missing). The claim rules of each mode decide on it; nothing here decides.
 * <p>
 * Absence is observed as a run: reads that all find the Lease missing, completing no further
 * apart than the longest wait between two reads plus a read's timeout, or a watch that stayed
 * open throughout. A failed call, a watch that ended or a pause of the loop ({@link #gap()})
 * ends the run: the Lease may have been created, held and deleted unseen meanwhile.
 */
public final class Observation {

	private final long ourLeaseDurationNanos;

	/** The last version seen; {@code null} before the first read and while the Lease is missing. */
	private volatile LeaseRecord lastSeen;

	/** When the version in {@link #lastSeen} was first seen. */
	private volatile long observedAtNanos;

	private final UnbrokenRun absence;

	/** Whether the Lease was seen missing, then a gap came, and it has not been seen since. */
	private boolean gapWhileMissing;

	/** Whether anything has been observed yet: a version or the Lease missing. */
	private boolean anythingSeen;

	/** Whether a gap came since the last observation, so that it may no longer hold. */
	private boolean stale;

	/** When the watch open now was accepted by the server; {@link Long#MIN_VALUE} when none is. */
	private long watchOpenSinceNanos = Long.MIN_VALUE;

	/**
	 * The lease duration of the last version seen with a holder: that holder may lead that long
	 * after its last renewal, on a Lease since deleted or released by another.
	 */
	private long lastHoldersLeaseDurationNanos;

	/** The uid of the last Lease object seen, {@code null} before one was seen. */
	private String lastUidSeen;

	/**
	 * Whether the Lease went missing, or was deleted and created again, since a version with a
	 * holder was last seen: a Lease found free since then was not released by its holder.
	 */
	private boolean goneSinceLastHeld;

	/** The version last seen held before the Lease went missing; {@code null} when none. */
	private LeaseRecord heldBeforeMissing;

	private int highestTransitionsSeen = -1;

	/**
	 * @param ourLeaseDuration this replica's lease duration
	 * @param maxReadSpacing how far apart two reads of a follower may complete: its longest wait
	 * between reads plus a read's timeout
	 */
	public Observation(Duration ourLeaseDuration, Duration maxReadSpacing) {
		this.ourLeaseDurationNanos = ourLeaseDuration.toNanos();
		this.lastHoldersLeaseDurationNanos = this.ourLeaseDurationNanos;
		this.absence = new UnbrokenRun(maxReadSpacing.toNanos());
	}

	/** The last version seen; {@code null} before the first read and while the Lease is missing. Lock-free. */
	public LeaseRecord lastSeen() {
		return this.lastSeen;
	}

	/** When the last version seen was first seen. Lock-free. */
	public long observedAtNanos() {
		return this.observedAtNanos;
	}

	/**
	 * Takes note of a version read, written or told by a watch, unless a newer one was seen.
	 * @param at when the read completed, or the write that stored it was sent
	 * @return whether the version was taken note of
	 */
	public boolean observe(LeaseRecord record, long at) {
		if (record.isOlderThan(this.lastSeen)) {
			return false;
		}
		if (!record.sameVersionAs(this.lastSeen)) {
			this.lastSeen = record;
			this.observedAtNanos = at;
		}
		if (record.uid() != null) {
			this.goneSinceLastHeld |= this.lastUidSeen != null && !record.uid().equals(this.lastUidSeen);
			this.lastUidSeen = record.uid();
		}
		if (record.hasHolder()) {
			this.goneSinceLastHeld = false;
		}
		this.anythingSeen = true;
		this.stale = false;
		this.absence.end();
		this.gapWhileMissing = false;
		this.heldBeforeMissing = null;
		if (record.hasHolder()) {
			// Waiting out a holder's lease duration once its Lease is gone protects a gate that closes
			// by then; a for-life holder's never does, and its lock goes only with its Pod or a release.
			this.lastHoldersLeaseDurationNanos = record.isForLifeLock() ? this.ourLeaseDurationNanos
					: leaseDurationNanos(record);
		}
		this.highestTransitionsSeen = Math.max(this.highestTransitionsSeen, record.transitions());
		return true;
	}

	/** Takes note that the Lease is missing, however that was learned, at the given moment. */
	public void observeAbsent(long at) {
		LeaseRecord last = this.lastSeen;
		if (last != null) {
			this.heldBeforeMissing = last.hasHolder() ? last : null;
		}
		boolean followed = this.watchOpenSinceNanos != Long.MIN_VALUE && this.absence.running()
				&& this.watchOpenSinceNanos - this.absence.lastSeenNanos() <= 0;
		this.absence.seen(at, followed);
		this.anythingSeen = true;
		this.stale = false;
		this.goneSinceLastHeld = true;
		this.lastSeen = null;
	}

	/**
	 * A create was refused because the Lease exists: it was there, unseen, so any run of absence
	 * is over, and what this replica knows of its holders has a gap.
	 */
	public void existedUnseen() {
		this.absence.end();
		this.gapWhileMissing = this.lastSeen == null;
	}

	/**
	 * A failed call, a watch that ended, or a pause of the loop: an absence seen before it says
	 * nothing about the time after it.
	 */
	public void gap() {
		if (this.lastSeen == null && this.anythingSeen) {
			this.gapWhileMissing = true;
		}
		this.stale = true;
		this.absence.end();
	}

	/** The server accepted a watch of the Lease at the given moment: from now on every change is told. */
	public void watchOpened(long at) {
		this.watchOpenSinceNanos = at;
	}

	/** The watch ended on its own: what it followed has a gap. */
	public void watchEnded() {
		this.watchOpenSinceNanos = Long.MIN_VALUE;
		gap();
	}

	/** The watch was closed by this replica: reads alone carry what is observed from now on. */
	public void watchClosed() {
		this.watchOpenSinceNanos = Long.MIN_VALUE;
	}

	/** Whether a watch accepted by the server follows the Lease now. */
	public boolean watched() {
		return this.watchOpenSinceNanos != Long.MIN_VALUE;
	}

	/** Whether no gap came since the last observation: what it showed may be decided on without reading again. */
	public boolean current() {
		return !this.stale;
	}

	/** Whether anything has been observed: a version, or the Lease missing. A Lease never read is not known to be missing. */
	public boolean anythingSeen() {
		return this.anythingSeen;
	}

	/** Whether the Lease is missing, as last observed. */
	public boolean missing() {
		return this.lastSeen == null && this.anythingSeen;
	}

	/**
	 * Whether the Lease has been seen missing without a gap since it was last seen present (or
	 * since the first observation), so that no holder can have come and gone unseen.
	 */
	public boolean missingWithoutGap() {
		return missing() && this.absence.running() && !this.gapWhileMissing;
	}

	/** How long until the unbroken run of absence will have lasted the given time; 0 when it has. */
	public long untilMissingFor(long duration, long now) {
		return this.absence.untilLasted(duration, now);
	}

	/** The version last seen held before the Lease went missing; {@code null} when none. */
	public LeaseRecord heldBeforeMissing() {
		return this.heldBeforeMissing;
	}

	/**
	 * How long the given version must stay unchanged before it may be claimed: the holder's own
	 * lease duration; for a Lease without holder, at least ours and that of the last holder seen,
	 * so that a holder of a Lease deleted before has lost its gate, or a preferred holder had its
	 * turn.
	 */
	public long expiryNanos(LeaseRecord seen) {
		long holders = leaseDurationNanos(seen);
		return seen.hasHolder() ? holders : Math.max(holders, missingHoldersLeaseDurationNanos());
	}

	/** How long until the last version seen has been unchanged for its expiry; may be negative. */
	public long untilExpiry(long now) {
		LeaseRecord seen = this.lastSeen;
		return this.observedAtNanos + expiryNanos(seen) - now;
	}

	/**
	 * The holder of the last version seen, unless the Lease was released, is missing, or has gone
	 * unchanged for its expiry by the given moment; {@code null} then. Lock-free.
	 */
	public String liveHolderAt(long now) {
		LeaseRecord seen = this.lastSeen;
		long observedAt = this.observedAtNanos;
		if (seen == null || !seen.hasHolder() || seen.looksReleased()
				|| now - (observedAt + expiryNanos(seen)) >= 0) {
			return null;
		}
		return seen.holderIdentity();
	}

	/**
	 * The longer of ours and the last holder's lease duration: how long the holder of a Lease
	 * that went missing, or was found without holder, may still lead.
	 */
	public long missingHoldersLeaseDurationNanos() {
		return Math.max(this.ourLeaseDurationNanos, this.lastHoldersLeaseDurationNanos);
	}

	/**
	 * Whether a holder released the Lease, so that the given candidate may take it at once: no
	 * holder, the shape of a release, the same Lease object that was last seen held, and no other
	 * candidate preferred. A Lease created without a holder (by hand, by a tool that deletes and
	 * applies it again, or by a replica that found it missing) may have a holder whose gate is still
	 * open on a Lease deleted before.
	 */
	public boolean releasedFor(String identity) {
		LeaseRecord seen = this.lastSeen;
		return seen != null && seen.looksReleased() && !this.goneSinceLastHeld && !seen.prefersOtherThan(identity);
	}

	/** The leaseTransitions of a Lease created now: one more than any seen, or 0. */
	public int nextTransitions() {
		return (this.highestTransitionsSeen >= 0) ? this.highestTransitionsSeen + 1 : 0;
	}

	/** The highest leaseTransitions seen; -1 when none. */
	public int highestTransitionsSeen() {
		return this.highestTransitionsSeen;
	}

	/** The holder's own lease duration; ours when the record's is missing or not positive. */
	private long leaseDurationNanos(LeaseRecord record) {
		Integer seconds = record.leaseDurationSeconds();
		return (seconds != null && seconds > 0) ? Duration.ofSeconds(seconds).toNanos() : this.ourLeaseDurationNanos;
	}

}
