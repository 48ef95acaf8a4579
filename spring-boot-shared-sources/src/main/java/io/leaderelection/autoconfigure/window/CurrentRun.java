package io.leaderelection.autoconfigure.window;

import java.util.OptionalLong;

/**
 * The once-per-window run the current thread runs: within a {@code @LeaderOnly(atMostEvery)}
 * method, or while a ShedLock lock taken on this thread is held. Its fencing token is that of the
 * term its start was recorded under, which the job hands to the systems it writes to, so that
 * they refuse what a deposed leader writes later: unlike the token of the election's status, it
 * stays the run's when leadership is lost meanwhile, and won again in a newer term.
 */
public final class CurrentRun {

	/** The innermost run started on each thread; runs nest when a job starts another. */
	private static final ThreadLocal<HeldRun> INNERMOST = new ThreadLocal<>();

	private CurrentRun() {
	}

	/**
	 * The fencing token of the innermost run under way on this thread; empty when there is none.
	 */
	public static OptionalLong fencingToken() {
		HeldRun run = live(INNERMOST.get());
		return (run != null) ? OptionalLong.of(run.fencingToken()) : OptionalLong.empty();
	}

	static void entered(HeldRun run) {
		run.enclosing = live(INNERMOST.get());
		INNERMOST.set(run);
	}

	/**
	 * The run is no longer current on the thread that started it. Locks may be released in any
	 * order and on any thread: a run left elsewhere is passed over when this thread next looks.
	 */
	static void left(HeldRun run) {
		run.leftThread = true;
		if (INNERMOST.get() == run) {
			HeldRun enclosing = live(run.enclosing);
			if (enclosing != null) {
				INNERMOST.set(enclosing);
			}
			else {
				INNERMOST.remove();
			}
		}
	}

	private static HeldRun live(HeldRun run) {
		HeldRun live = run;
		while (live != null && live.leftThread) {
			live = live.enclosing;
		}
		return live;
	}

}
