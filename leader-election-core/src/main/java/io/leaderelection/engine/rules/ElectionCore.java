package io.leaderelection.engine.rules;

import java.time.Duration;
import java.util.function.Function;

import io.leaderelection.RevocationCause;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.PodReference;

/**
 * One election's core: the state it decides on, and the events that change it or ask for a
 * decision. It has no store, no scheduler, no clock and no lock. The driver calls it under the
 * election's lock, passes the moment in, and carries out the step it returns. The rules it
 * applies are functions of their arguments: {@link LeaseRules} and {@link ForLifeRules} (one per
 * mode), {@link ElectionRules}, {@link ReleaseRules}, and {@link Claiming} for the claims.
 * @param <R> the driver's release, which gives back a term won after a stop or a step-down
 */
public final class ElectionCore<R> {

	private final String identity;

	/** The versions seen, and since when. */
	private final Observation observation;

	/** The versions this process's writes stored. */
	private final OwnWrites ownWrites;

	/** Whether another process writes the Lease under our identity. */
	private final OneWriter oneWriter;

	/** Staying out after giving a term up. */
	private final StayOut stayOut = new StayOut();

	/** The claim on its way, and the claims read back too late. */
	private final Claiming<R> claiming = new Claiming<>();

	/** The once-per-window jobs, as observed while following and as written while leading. */
	private final JobWindows windows;

	/** The term held, also one being finished; {@code null} when none. Read lock-free by the gate. */
	private volatile Term term;

	/** How many terms were begun, which numbers them. */
	private long termsBegun;

	/**
	 * @param lease the Lease, as descriptions name it
	 * @param told told of another process writing under our identity, to log it
	 * @param leaseDuration the lease duration claims write
	 * @param longestUnseenWrite how long a leader may write unseen by this follower: its longest
	 * delay between reads and a renew deadline
	 */
	public ElectionCore(String election, String identity, String lease, OneWriter.Told told, Duration leaseDuration,
			Duration longestUnseenWrite) {
		this.identity = identity;
		this.oneWriter = new OneWriter(identity, lease, told);
		this.windows = new JobWindows(election, identity);
		this.observation = new Observation(leaseDuration, longestUnseenWrite);
		this.ownWrites = new OwnWrites(identity);
	}

	/** What was observed; the driver reads it to build its requests and report its status. */
	public Observation observation() {
		return this.observation;
	}

	/** This process's writes; the driver records each it sends and each answer. */
	public OwnWrites ownWrites() {
		return this.ownWrites;
	}

	/** Whether another process writes the Lease under our identity. */
	public OneWriter oneWriter() {
		return this.oneWriter;
	}

	/** Staying out after a step-down. */
	public StayOut stayOut() {
		return this.stayOut;
	}

	public Claiming<R> claiming() {
		return this.claiming;
	}

	/** The once-per-window jobs; the driver writes them into every write and hands runs out. */
	public JobWindows windows() {
		return this.windows;
	}

	/** The term held, also one being finished; {@code null} when none. Lock-free. */
	public Term term() {
		return this.term;
	}

	/** A term won by a write sent at the given moment, not yet held. */
	public Term begin(LeaseRecord acquired, long sentAtNanos) {
		return Term.begun(++this.termsBegun, acquired, sentAtNanos);
	}

	/** Holds the given term, as granted, renewed, closed or given back; {@code null} when none is held any more. */
	public void hold(Term term) {
		this.term = term;
	}

	// ---- events that change what was observed

	/**
	 * A version was read, written or told at the given moment.
	 * @return whether it is news: no newer version was seen already
	 */
	public boolean observe(LeaseRecord record, long at) {
		if (!this.observation.observe(record, at)) {
			return false;
		}
		this.oneWriter.notice(record, this.ownWrites);
		this.stayOut.noticeTakeover(record, this.identity);
		return true;
	}

	/** The Lease was found missing at the given moment, however that was learned. */
	public void observeAbsent(long at) {
		this.observation.observeAbsent(at);
		this.oneWriter.leaseMissing();
	}

	/** Whether another process was seen writing under this replica's identity. */
	public boolean writerConflict() {
		return this.oneWriter.conflict() != null;
	}

	// ---- decisions

	/** What a follower has seen at the given moment. */
	private Sight sight(long now) {
		return Sight.of(this.observation, this.stayOut, writerConflict(), this.identity, now);
	}

	/**
	 * The version a follower judges at the given moment ({@link Sight#judged}). The driver learns
	 * what it can of its holder (whether its process ended) before {@link #followLease}.
	 */
	public LeaseRecord judged(long now) {
		return sight(now).judged();
	}

	/**
	 * A lease-mode follower's next step at the given moment ({@link LeaseRules#follow}).
	 * @param campaigning whether the election campaigns, rather than only following: one that
	 * only follows leads on nothing, not even a claim of an earlier campaign
	 * @param holderExited why the holder of the version {@link #judged} has ended, as the kubelet
	 * reported; {@code null} when nothing proves it
	 */
	public FollowerStep followLease(LeaseRules rules, long now, boolean campaigning, String holderExited) {
		Sight sight = sight(now);
		OwnWrites.Sent ownClaim = (sight.judged() != null && campaigning) ? this.ownWrites.sinceLastTerm(sight.seen())
				: null;
		return rules.follow(sight, now, (ownClaim != null) ? ownClaim.sentAtNanos() : null,
				this.claiming.claimedAgainTooLate(), holderExited);
	}

	/**
	 * A for-life follower's next step at the given moment ({@link ForLifeRules#follow}).
	 * @param ownPod the Pod this process runs in
	 * @param ownerOf the Pod owning a version of the lock; {@code null} when none
	 * @param leaseDurationNanos how long a lock must have been missing, after a gap, to be created
	 */
	public FollowerStep followLock(long now, PodReference ownPod, Function<LeaseRecord, PodReference> ownerOf,
			long leaseDurationNanos) {
		Sight sight = sight(now);
		LeaseRecord heldBeforeMissing = this.observation.heldBeforeMissing();
		ForLifeRules.LockSight lock = new ForLifeRules.LockSight(ownPod,
				(sight.seen() != null) ? ownerOf.apply(sight.seen()) : null, heldBeforeMissing,
				(heldBeforeMissing != null) ? ownerOf.apply(heldBeforeMissing) : null,
				this.observation.missingWithoutGap() ? 0 : this.observation.untilMissingFor(leaseDurationNanos, now),
				this.observation.nextTransitions());
		return ForLifeRules.follow(sight, lock);
	}

	/**
	 * A version read or told while leading the term ({@code null}: the Lease is missing): why the
	 * term is lost, or {@code null} when it goes on ({@link ElectionRules#lostWhileLeading}).
	 */
	public RevocationCause lostWhileLeading(LeaseRecord seen, Term term) {
		RevocationCause lost = ElectionRules.lostWhileLeading(seen, term.acquired(),
				seen != null && this.ownWrites.wrote(seen), this.identity);
		if (lost == RevocationCause.IDENTITY_CONFLICT) {
			this.oneWriter.conflictSeen(seen);
		}
		return lost;
	}

	/** Whether a release of the term may be written over a version ({@link ElectionRules#ofTheTerm}). */
	public boolean ofTheTerm(LeaseRecord version, Term term) {
		return ElectionRules.ofTheTerm(version, term.acquired(), this.ownWrites.wrote(version));
	}

}
