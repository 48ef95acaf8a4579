package io.leaderelection.autoconfigure.window;

import java.time.Duration;

import io.leaderelection.engine.LeaderCalls;
import io.leaderelection.engine.WindowedRun;

/**
 * A run of a once-per-window job under way on this replica: recorded in the Lease under a term of
 * its election, and leader work until it ends.
 */
public final class HeldRun {

	private final WindowedRun run;

	private final LeaderCalls.Call call;

	/** How long to wait for a write of the term. */
	private final Duration wait;

	/**
	 * On the monotonic clock, when the run's longest window ends: from then on, as the other
	 * replicas count, it no longer holds the job's window. Taken from before the start was
	 * asked for, so never later than the engine's.
	 */
	private volatile long expiresAt;

	/** Whether the leader-only call left the thread that started it; guarded by this. */
	private boolean detached;

	private volatile boolean ended;

	/** Whether an extension is on its way: until its answer, the run has not expired. */
	private volatile boolean extending;

	/** The run the thread that started this one was running; see {@link CurrentRun}. */
	HeldRun enclosing;

	/** Whether this run is no longer the current one of the thread that started it. */
	volatile boolean leftThread;

	HeldRun(WindowedRun run, LeaderCalls.Call call, long expiresAt, Duration wait) {
		this.run = run;
		this.call = call;
		this.expiresAt = expiresAt;
		this.wait = wait;
	}

	/** The election the run was recorded in; for a sharded election, the shard. */
	public String election() {
		return this.run.election();
	}

	/** The fencing token of the term the run's start was recorded under. */
	public long fencingToken() {
		return this.run.fencingToken();
	}

	/**
	 * Whether the run still holds its job's window closed, as this replica knows: it has not
	 * ended, and its longest window has not passed.
	 */
	public boolean holdsWindow() {
		return !this.ended && System.nanoTime() - this.expiresAt < 0;
	}

	/**
	 * Whether the run's longest window has passed with no extension on its way: the run is
	 * abandoned, as ShedLock counts a lock past its {@code lockAtMostFor}.
	 */
	public boolean expired() {
		return !this.extending && !holdsWindow();
	}

	/**
	 * The run goes on beyond the call that started it, to end on whatever thread: it stays leader
	 * work, but is no longer the leader-only call of that thread, which is neither interrupted on a
	 * revocation for it nor takes it as the call that encloses its next ones.
	 */
	public synchronized void detach() {
		if (!this.detached && !this.ended) {
			this.detached = true;
			this.call.returned();
		}
	}

	/**
	 * The call that started the run has returned, but the run goes on (it returned a future not
	 * yet completed): as {@link #detach()}, and the run is no longer the thread's current one.
	 */
	public void returned() {
		detach();
		CurrentRun.left(this);
	}

	/**
	 * The run has ended: the job's window opens at the later of now and its shortest window
	 * after the start, which the next write of the term records; then the leader work ends, so
	 * that a release waiting for it carries the end. Ends once; on the thread that started the
	 * run unless it was detached.
	 */
	public synchronized void end() {
		if (this.ended) {
			return;
		}
		this.ended = true;
		this.run.end();
		if (this.detached) {
			this.call.ended();
		}
		else {
			this.call.exit();
		}
		CurrentRun.left(this);
	}

	/**
	 * Keeps the job's window closed for the given longest window from now, and for at least the
	 * shortest one from now once the run ends: a write under the term, waited for at most the
	 * election's renew deadline.
	 * @return whether it was recorded: never once the run has ended or its longest window has
	 * passed, or this replica no longer leads the election
	 */
	public boolean extend(Duration atMost, Duration atLeast) {
		long askedAt = System.nanoTime();
		this.extending = true;
		try {
			if (!holdsWindow()) {
				return false;
			}
			boolean recorded = WindowedStarts.await(this.run.extend(atMost, atLeast), this.wait, false, (late) -> {
			});
			if (recorded) {
				this.expiresAt = askedAt + atMost.toNanos();
			}
			return recorded;
		}
		finally {
			this.extending = false;
		}
	}

}
