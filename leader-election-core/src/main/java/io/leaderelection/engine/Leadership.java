package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.leaderelection.RevocationCause;
import io.leaderelection.StepDown;
import io.leaderelection.engine.rules.ElectionCore;
import io.leaderelection.engine.rules.ReleaseRules;
import io.leaderelection.engine.rules.ReleaseStep;
import io.leaderelection.engine.rules.Term;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the term the core holds is granted, kept and ended: the gate and its deadline, the fencing token, the leader work
 * ({@link GatedWork}) started on a grant and drained before a release of our own accord, the
 * release ({@link Release}), and the once-per-window runs started under the term.
 * <p>
 * A term ends in one order: gate closed, gated work told, then the listeners. Of our own accord
 * (a step-down, a shutdown, a preferred holder), the Lease is then renewed while the calls under
 * way drain, and released only once they ended: never if the drain runs out (the Lease is left to
 * expire, or a lock kept until its work ends), never after the gate's deadline, and never over a
 * version this term did not write, so that a release cannot free a newer term.
 */
final class Leadership {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private final ElectionLoop loop;

	private final ElectionMode mode;

	private final String election;

	private final LeaseStore store;

	private final long gateDeadlineNanos;

	private final long drainTimeoutNanos;

	private final GatedWork work;

	private final ElectionListener listener;

	private final Executor listenerLane;

	/** Holds the term, read lock-free by the gate. */
	private final ElectionCore<Release> core;

	/** The last release of our own accord; {@code null} before the first. */
	private volatile Release lastRelease;

	/** Complete once the last release of our own accord was answered, failed or given up. */
	private CompletableFuture<Void> pendingRelease = CompletableFuture.completedFuture(null);

	/** The once-per-window jobs, as observed while following and as written while leading. */
	final Windows windows;

	Leadership(ElectionLoop loop, ElectionMode mode, LeaseStore store, LeaderWork work, Executor workLane,
			ElectionListener listener, Executor listenerLane, Duration drainTimeout) {
		this.loop = loop;
		this.core = loop.core;
		this.mode = mode;
		this.election = loop.settings().name();
		this.store = store;
		this.gateDeadlineNanos = mode.gateDeadlineNanos();
		this.drainTimeoutNanos = drainTimeout.toNanos();
		this.work = new GatedWork(this.election, work, workLane);
		this.listener = listener;
		this.listenerLane = listenerLane;
		this.windows = new Windows(loop, this, mode);
	}

	/** The term held, also one being finished; {@code null} when none. Lock-free. */
	Term term() {
		return this.core.term();
	}

	/** Whether a term is held and its gate open at the given moment. Lock-free. */
	boolean isLeader(long now) {
		Term held = this.core.term();
		return held != null && held.gateOpenAt(now, this.gateDeadlineNanos);
	}

	/** Whether a term is held whose gate was not closed to finish it (its deadline may have passed). */
	boolean holdsOpenTerm() {
		Term held = this.core.term();
		return held != null && held.gateOpen();
	}

	/** When the gate of the term held closes; the term must be held. */
	long gateClosesAt() {
		return this.core.term().gateClosesAt(this.gateDeadlineNanos);
	}

	/** How long past its deadline the gate of the term held is, 0 when not past or none held. Lock-free. */
	long pastDeadline(long now) {
		Term held = this.core.term();
		return (held != null) ? Math.max(0, now - held.gateClosesAt(this.gateDeadlineNanos)) : 0;
	}

	// ---- beginning and keeping a term

	/** A term won by a write sent at the given moment, not yet granted. */
	Term begin(LeaseRecord acquired, long sentAtNanos) {
		return this.core.begin(acquired, sentAtNanos);
	}

	/**
	 * Opens the gate of a term won: starts the gated work on the work lane, apart from the
	 * listeners, and tells them.
	 */
	void grant(Term won, long now) {
		this.core.hold(won);
		this.work.start(won, this::holdsOpenGateOf);
		this.listener.granted(this.election, won.fencingToken(), now);
	}

	/** The term's write sent at the given moment succeeded: its gate stays open a deadline from then. */
	void renewedAt(long sentAtNanos) {
		this.core.hold(this.core.term().renewedAt(sentAtNanos));
	}

	/** Tells the listeners how a renewal went. */
	void renewalEnded(boolean success, long nanos) {
		this.listener.renewed(this.election, success, nanos);
	}

	/** No term is held any more: renewals stop, and, once stopped, every watch. */
	void drop() {
		this.core.hold(null);
		this.windows.termEnded();
		this.loop.termDropped();
	}

	/**
	 * Closes the gate of the term held and tells the leader work, then the listeners. The term
	 * itself stays held until it is released, expires or is lost.
	 * @return completes when the gated work was stopped
	 */
	CompletableFuture<Void> closeGate(RevocationCause cause, long now) {
		Term held = this.core.term();
		this.core.hold(held.closed());
		long deadline = held.gateClosesAt(this.gateDeadlineNanos);
		long gateClosedAt = (now - deadline < 0) ? now : deadline;
		CompletableFuture<Void> stopped = this.work.gateClosed();
		this.listener.revoked(this.election, cause, gateClosedAt);
		return stopped;
	}

	// ---- ending a term of our own accord

	/**
	 * Ends the term held of our own accord: closes the gate, stops the gated work, waits for the
	 * calls under way (renewing meanwhile), then has the mode release the Lease; or, with
	 * {@code write} false or if the calls outlast the drain timeout, stops renewing and leaves the
	 * Lease to expire.
	 */
	Release finish(RevocationCause cause, boolean write) {
		CompletableFuture<Void> workStopped = closeGate(cause, this.loop.now());
		Release release = new Release(cause, write, this.election, this.work);
		release.termNumber = this.core.term().number();
		track(release);
		releaseOnceDrained(release, CompletableFuture.allOf(workStopped, this.work.callsEnded()));
		return release;
	}

	/**
	 * Releases (or, not to be written, leaves to expire) the term once the drain completes, or
	 * leaves it to expire if the drain timeout runs out first.
	 */
	private void releaseOnceDrained(Release release, CompletableFuture<Void> drain) {
		release.drain = drain;
		ElectionScheduler scheduler = this.loop.steps.scheduler();
		ElectionScheduler.Cancellable timer = scheduler.schedule(() -> drainRanOut(release), this.drainTimeoutNanos);
		release.drain.whenComplete((ignored, failure) -> this.loop.steps.later(() -> drained(release, timer)));
	}

	/** The release of a claim on its way, written if the claim succeeds. */
	Release giveBackClaim(RevocationCause cause, boolean write) {
		Release release = new Release(cause, write, this.election, this.work);
		release.detail = "a claim was on its way: it is released if it succeeded";
		track(release);
		return release;
	}

	/**
	 * A claim given back succeeded: gives the term it won back without opening its gate,
	 * released once the leader-only calls still under way (of a term lost before) have ended, as
	 * every release of our own accord waits for them; or left to expire when the stop did not
	 * release. The Lease is renewed meanwhile, as while a term is finished.
	 */
	void giveBack(Release release, Term won) {
		this.core.hold(won.closed());
		release.termNumber = won.number();
		ReleaseStep leftToExpire = ReleaseRules.claimWonWhileStopping(release.write);
		if (leftToExpire != null) {
			carryOut(release, leftToExpire);
			return;
		}
		long renewPeriod = this.loop.settings().renewPeriod().toNanos();
		this.loop.scheduleAttempt(won.lastRenewStartNanos() + renewPeriod - this.loop.now());
		releaseOnceDrained(release, this.work.callsEnded());
	}

	private void track(Release release) {
		this.lastRelease = release;
		this.pendingRelease = release.done();
	}

	private void drained(Release release, ElectionScheduler.Cancellable timer) {
		timer.cancel();
		if (release.settled) {
			return;
		}
		release.settled = true;
		carryOut(release, ReleaseRules.drained(holds(release), release.write, this.mode.guardsClaims(),
				this.mode.notReleasedBecause()));
	}

	private void drainRanOut(Release release) {
		synchronized (this.loop) {
			if (release.settled || release.drain.isDone()) {
				// the drain ended as the time ran out: its own step releases
				return;
			}
			List<String> calls = this.work.callsUnderWay();
			String stillRunning = calls.size() + " leader-only call(s) still running after the drain timeout of "
					+ Duration.ofNanos(this.drainTimeoutNanos).toMillis() + " ms; ";
			ReleaseStep.Ended next = ReleaseRules.drainRanOut(holds(release), this.mode.keepsTermUntilWorkEnds(),
					stillRunning);
			if (next == null) {
				release.detail = stillRunning + "the lock is deleted once they end";
				logger.warn("{} keeps {} of election '{}' until its leader work ends: {}: {}", this.loop.identity(),
						this.store.describe(), this.election, release.detail, calls);
				return;
			}
			release.settled = true;
			logger.warn("{} does not release {} of election '{}': {}: {}", this.loop.identity(), this.store.describe(),
					this.election, next.detail(), calls);
			carryOut(release, next);
		}
	}

	/** Carries out a step of the release, as {@link ReleaseRules} decided it. */
	void carryOut(Release release, ReleaseStep step) {
		if (step instanceof ReleaseStep.Ended ended) {
			if (ended.dropsTerm()) {
				drop();
			}
			ended(release, ended.outcome(), ended.detail());
		}
		else if (step instanceof ReleaseStep.GiveUpGuarded) {
			giveUpGuarded(release);
		}
		else if (step instanceof ReleaseStep.Write write) {
			writeRelease(release, write.rereadOnConflict());
		}
		else if (step instanceof ReleaseStep.Reread) {
			rereadBeforeRelease(release);
		}
		else {
			throw new IllegalStateException("Not a step to carry out here: " + step);
		}
	}

	/** Gives up what guards the claim once drained (old replicas may take it at once), then releases. */
	private void giveUpGuarded(Release release) {
		long timeout = Math.max(1, this.mode.releaseTimeLeft(this.loop.now()));
		CompletableFuture<Void> givenUp = this.mode.giveUpGuarded(Duration.ofNanos(timeout));
		Runnable writeIfHeld = () -> carryOut(release, ReleaseRules.guardGivenUp(holds(release)));
		if (givenUp.isDone() && !givenUp.isCompletedExceptionally()) {
			writeIfHeld.run();
		}
		else {
			givenUp.whenComplete((ignored, failure) -> this.loop.steps.later(writeIfHeld));
		}
	}

	/**
	 * Writes the release as client-go does: no holder and a lease duration of one second, so
	 * followers take over at once; renewals stop first, so that the two never race.
	 */
	private void writeRelease(Release release, boolean rereadOnConflict) {
		Steps steps = this.loop.steps;
		steps.abandonAttempts();
		long remaining = this.mode.releaseTimeLeft(this.loop.now());
		ReleaseStep.Ended tooLate = ReleaseRules.beforeWrite(holds(release), remaining);
		if (tooLate != null) {
			carryOut(release, tooLate);
			return;
		}
		LeaseRecord seen = this.core.observation().lastSeen();
		Instant wallNow = this.loop.wallNow();
		LeaseRecord released = seen.rewrite("", 1, wallNow, wallNow, seen.leaseTransitions())
			.withWindows(this.core.windows().toWrite(this.loop.now()));
		steps.call("update", () -> this.store.update(released, Duration.ofNanos(remaining)), remaining, Steps.ALWAYS,
				(stored, failure) -> {
					ReleaseStep next = ReleaseRules.written(holds(release), failure, rereadOnConflict);
					if (next instanceof ReleaseStep.Released) {
						this.loop.observe(stored, this.loop.now());
						drop();
						logger.info("{} released {} of election '{}'", this.loop.identity(), this.store.describe(),
								this.election);
						this.mode.released(release, stored, remaining);
						return;
					}
					if (next instanceof ReleaseStep.Ended) {
						this.loop.failed(failure);
					}
					carryOut(release, next);
				}, (ex) -> releaseFailed(release, ex));
	}

	/**
	 * A renewal answered late may have moved the version: release the current one only if it
	 * still holds the term being released, never a newer term, and drop only that term.
	 */
	private void rereadBeforeRelease(Release release) {
		long remaining = Math.max(1, this.mode.releaseTimeLeft(this.loop.now()));
		this.loop.steps.call("get", () -> this.store.get(Duration.ofNanos(remaining)), remaining, Steps.ALWAYS,
				(stored, failure) -> {
					// the term may have been lost meanwhile (a for-life leader's watch), and another won
					boolean held = holds(release);
					boolean ofTheTerm = failure == null && stored != null && held
							&& this.core.ofTheTerm(stored, this.core.term());
					if (stored != null) {
						this.loop.observe(stored, this.loop.now());
					}
					carryOut(release, ReleaseRules.reread(held, ofTheTerm));
				}, (ex) -> releaseFailed(release, ex));
	}

	private void releaseFailed(Release release, RuntimeException ex) {
		logger.error("Releasing {} of election '{}' failed", this.store.describe(), this.election, ex);
		this.loop.failed(ex);
		carryOut(release, ReleaseRules.threw(holds(release), ex));
	}

	/** Whether the given release is of the term held now. */
	boolean holds(Release release) {
		Term held = this.core.term();
		return held != null && held.number() == release.termNumber;
	}

	/**
	 * The release is over, written or not: after a step-down, stay out from now for the mode's
	 * stay-out; campaign again.
	 */
	private void ended(Release release, StepDown.Release outcome, String detail) {
		if (release.cause == RevocationCause.STEPPED_DOWN) {
			this.core.stayOut().restartIfActive(this.loop.now(), this.mode.stayOutAfterRelease());
		}
		release.end(outcome, detail);
		this.loop.releaseEnded();
	}

	/** What became of the last release of our own accord; {@code null} before any. Lock-free. */
	StepDown lastStepDown() {
		Release release = this.lastRelease;
		return (release != null) ? release.describe() : null;
	}

	/** Completes when the last release of our own accord was written or given up. */
	CompletableFuture<Void> pendingRelease() {
		return this.pendingRelease;
	}

	/** Why gated work failed to start at the last grant; {@code null} when it started. Lock-free. */
	String gatedWorkFailure() {
		return this.work.startFailure();
	}

	/**
	 * Completes once the listener calls and the starts and stops of gated work queued so far
	 * have run.
	 */
	CompletableFuture<Void> callbacksRun() {
		CompletableFuture<Void> listeners = new CompletableFuture<>();
		this.listenerLane.execute(() -> listeners.complete(null));
		return CompletableFuture.allOf(listeners, this.work.queuedRun());
	}

	/** Whether the given term is still held with its gate open now; asked on the work lane. */
	private boolean holdsOpenGateOf(Term won) {
		Term held = this.core.term();
		return held != null && held.number() == won.number() && isLeader(this.loop.now());
	}

}
