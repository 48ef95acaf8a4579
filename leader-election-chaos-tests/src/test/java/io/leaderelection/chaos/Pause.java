package io.leaderelection.chaos;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.leaderelection.engine.ElectionScheduler;

/**
 * A replica's process stopped and resumed, as by a long garbage collection, a stopped container
 * ({@code docker pause}, {@code SIGSTOP}) or a suspended VM: while it lasts, none of the
 * replica's elector tasks and none of its leader-only work start. Work already running finishes
 * the step it is in; the next task waits for the pause to end.
 * <p>
 * For this project's engine that freezes everything it does: it runs every attempt, every
 * timeout, every answer of the API server and every watch event as a task of its scheduler (a
 * store call's answer and a watch event are handed to the scheduler on the HTTP client's thread),
 * its listener calls on its callback executor and the opening of its watches on its executor for
 * blocking calls, all three of them paused here. An answer or a watch event that arrives while
 * the process is frozen is acted on once it resumes, as the bytes a stopped process receives
 * wait in its socket; its monotonic clock goes on meanwhile, as a real one does.
 */
public final class Pause {

	private static final int NOT_ARMED = 0;

	private static final int ARMED = 1;

	private static final int LAST_TASK_RUNNING = 2;

	private volatile long resumeAtNanos = System.nanoTime();

	/** Whether the process is frozen until {@link #thaw()}, whatever {@link #resumeAtNanos} says. */
	private volatile boolean frozen;

	/** The threads waiting for the pause to end, woken when it ends early. */
	private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();

	/** Whether the replica is to be frozen once the next task it begins has run ({@link #freezeAfterNextTask()}). */
	private final AtomicInteger afterNextTask = new AtomicInteger(NOT_ARMED);

	/** Pauses the replica from now on for the given time. */
	void pauseFor(Duration duration) {
		this.resumeAtNanos = System.nanoTime() + duration.toNanos();
	}

	/** Pauses the replica from now on until {@link #thaw()}. */
	public void freeze() {
		this.frozen = true;
	}

	/**
	 * Freezes the replica once the next task it begins has run, until {@link #thaw()}: armed as
	 * an answer comes, the replica is frozen right after it has acted on that answer (the engine
	 * acts on an answer in a task of its own), before it does anything else. Another task begun
	 * meanwhile waits, frozen. For fabric8's elector, which acts on an answer in the round of its
	 * loop that sent the request, the replica is frozen at the next {@link #checkpoint()}.
	 */
	void freezeAfterNextTask() {
		this.afterNextTask.set(ARMED);
	}

	/** Ends the pause now, a frozen one or one of a given time. */
	public void thaw() {
		this.afterNextTask.set(NOT_ARMED);
		this.frozen = false;
		this.resumeAtNanos = System.nanoTime();
		this.waiting.forEach(LockSupport::unpark);
	}

	/** Whether the replica is paused now. */
	boolean paused() {
		return this.frozen || this.resumeAtNanos - System.nanoTime() > 0;
	}

	/** Returns once the replica is not paused, or at once if the thread is interrupted. */
	void awaitResumed() {
		Thread thread = Thread.currentThread();
		this.waiting.add(thread);
		try {
			while (!thread.isInterrupted()) {
				long left = this.resumeAtNanos - System.nanoTime();
				if (this.frozen) {
					LockSupport.park(this);
				}
				else if (left > 0) {
					LockSupport.parkNanos(this, left);
				}
				else {
					return;
				}
			}
		}
		finally {
			this.waiting.remove(thread);
		}
	}

	/**
	 * A point in the replica's work where a paused process stops: returns once it is not paused,
	 * and freezes it first if {@link #freezeAfterNextTask()} is armed.
	 */
	void checkpoint() {
		if (this.afterNextTask.compareAndSet(ARMED, NOT_ARMED)) {
			freeze();
		}
		awaitResumed();
	}

	/** The executor whose tasks wait for the pause to end before they run. */
	public Executor pausing(Executor executor) {
		return (task) -> executor.execute(() -> run(task));
	}

	/** The scheduler whose tasks wait for the pause to end before they run. */
	public ElectionScheduler pausing(ElectionScheduler scheduler) {
		return (task, delayNanos) -> scheduler.schedule(() -> run(task), delayNanos);
	}

	private void run(Runnable task) {
		awaitResumed();
		if (this.afterNextTask.compareAndSet(ARMED, LAST_TASK_RUNNING)) {
			try {
				task.run();
			}
			finally {
				// unless thawed meanwhile
				if (this.afterNextTask.compareAndSet(LAST_TASK_RUNNING, NOT_ARMED)) {
					freeze();
				}
			}
			return;
		}
		if (this.afterNextTask.get() == LAST_TASK_RUNNING) {
			freeze();
			awaitResumed();
		}
		task.run();
	}

}
