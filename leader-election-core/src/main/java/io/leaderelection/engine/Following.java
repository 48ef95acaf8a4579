package io.leaderelection.engine;

import java.time.Duration;

import io.leaderelection.engine.rules.Term;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;

/**
 * What a follower learns of its Lease, and when it decides on it: its reads, and the watch that
 * tells of changes between them, each answer observed and handed to the mode's rules. Runs under
 * the election's lock, as steps of its loop.
 */
final class Following implements LeaseWatching.Events {

	private final ElectionLoop loop;

	private final LeaseStore store;

	private final long readTimeoutNanos;

	private final LeaseWatching watching;

	Following(ElectionLoop loop, LeaseStore store, ElectionScheduler scheduler, long readTimeoutNanos,
			long retryPeriodNanos) {
		this.loop = loop;
		this.store = store;
		this.readTimeoutNanos = readTimeoutNanos;
		this.watching = new LeaseWatching(this, loop, loop::now, store, scheduler, loop.settings().name(),
				retryPeriodNanos);
	}

	/** Reads the Lease, observes the answer, watches it from now on, and decides. */
	void read() {
		long timeout = this.readTimeoutNanos;
		Steps steps = this.loop.steps;
		steps.lookOnItsWay();
		steps.call("get", () -> this.store.get(Duration.ofNanos(timeout)), timeout, steps.attemptSequence(),
				(stored, failure) -> {
					steps.lookAnswered();
					if (failure != null) {
						this.loop.failed(failure);
						// The watch may be as dead as the reads are: poll until a read succeeds again.
						stopWatching();
						this.loop.scheduleAttempt(this.loop.followerDelay());
						return;
					}
					this.loop.readSucceeded();
					long now = this.loop.now();
					this.loop.observeVersion(stored, now);
					this.watching.start(now);
					this.loop.mode().decide(now);
				});
	}

	/** Watches the Lease from now, unless a watch is on or backing off. */
	void watchFrom(long now) {
		this.watching.start(now);
	}

	/** Whether a watch was started and neither ended nor closed. */
	boolean watchStarted() {
		return this.watching.started();
	}

	/** Decides now on what was last seen; a read that was due sooner stays due. */
	void decideAgain(long now) {
		Steps steps = this.loop.steps;
		long dueAt = steps.nextAttemptDueAt();
		steps.abandonAttempts();
		this.loop.mode().decide(now);
		// deciding again must not put off a read that was due sooner
		long dueNow = steps.nextAttemptDueAt();
		if (!this.loop.claims.onItsWay() && dueNow != ElectionLoop.NEVER && dueAt != ElectionLoop.NEVER
				&& dueNow - dueAt > 0) {
			this.loop.scheduleAttempt(dueAt - now);
		}
	}

	/**
	 * Whether a follower may decide again now on what it last saw, without reading: only on what
	 * a read or a watch told (a Lease never seen is not yet known to be missing), not while a look
	 * is on its way, since its answer may show the Lease changed, and only where the mode allows.
	 */
	boolean mayDecideAgain(long now) {
		return follows() && this.loop.mode().mayDecideAgain() && this.loop.core.observation().anythingSeen()
				&& !this.loop.steps.lookPending() && this.loop.core.stayOut().leftAt(now) == 0;
	}

	void stopWatching() {
		this.watching.stop();
		this.loop.core.observation().watchClosed();
	}

	/** Whether the loop follows as a follower: it runs, holds no term, and has no claim on its way. */
	private boolean follows() {
		return this.loop.running() && this.loop.leadership.term() == null && !this.loop.claims.onItsWay();
	}

	/** The server accepted the watch: read once more, for what changed while it was opening. */
	@Override
	public void watchOpened() {
		this.loop.core.observation().watchOpened(this.loop.now());
		if (follows()) {
			this.loop.scheduleAttempt(0);
		}
	}

	@Override
	public void watched(LeaseRecord record) {
		long now = this.loop.now();
		ElectionMode mode = this.loop.mode();
		if (this.loop.leadership.term() != null && mode.watchesWhileLeading()) {
			this.loop.acted(now);
			mode.leaderSaw(record, now);
			return;
		}
		if (!this.loop.running() || this.loop.leadership.term() != null) {
			return;
		}
		// Acting on an event is the loop at work: while a leader renews, a watching follower
		// never reaches its own next attempt, and must not look stalled.
		this.loop.acted(now);
		this.loop.observeVersion(record, now);
		this.loop.tellBalancer();
		if (!this.loop.claims.onItsWay()) {
			this.loop.steps.abandonAttempts();
			mode.decide(now);
		}
	}

	/**
	 * A deletion told by the watch, of the object last seen or of an older one: a follower that
	 * read the Lease created again, or a for-life leader that replaced a lock, may hear of the
	 * deletion of the object before only then, and that one is not the Lease there is now.
	 */
	@Override
	public void watchedDeletion(LeaseRecord lastVersion) {
		Term held = this.loop.leadership.term();
		LeaseRecord seen = this.loop.core.observation().lastSeen();
		LeaseRecord known = (seen != null) ? seen : (held != null) ? held.acquired() : null;
		if (lastVersion == null || !lastVersion.isOtherObjectThan(known)) {
			watched(null);
		}
	}

	/**
	 * The watch ended on its own: what it followed has a gap; read, and watch again, at once if the
	 * watch may be started again now, else poll until it may.
	 */
	@Override
	public void watchEnded() {
		this.loop.core.observation().watchEnded();
		if (follows()) {
			long now = this.loop.now();
			this.loop.scheduleAttempt((this.watching.untilRestart(now) == 0) ? 0 : this.loop.followerDelay());
		}
	}

}
