package io.leaderelection.engine;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs listener and leader-work calls on one thread, and adds a thread for as long as a call
 * has kept one busy longer than the patience while others wait: user code that blocks (a
 * listener waiting a minute, a container slow to stop) delays the calls of other elections by
 * the patience at most, and a thousand elections still run on one thread when nothing blocks.
 */
public final class ElasticExecutor implements Executor {

	/** How long the extra threads outlive the blocked calls they stood in for. */
	private static final Duration KEEP_ALIVE = Duration.ofSeconds(10);

	private final ThreadPoolExecutor pool;

	private final ScheduledExecutorService watchdog;

	private final long patienceNanos;

	/** When each busy thread began its current task. */
	private final Map<Thread, Long> busySince = new ConcurrentHashMap<>();

	private final AtomicBoolean checkScheduled = new AtomicBoolean();

	/** Guards {@link #unfinished}, and is notified when it reaches 0. */
	private final Object unfinishedLock = new Object();

	/** Tasks taken and not yet ended. */
	private int unfinished;

	/**
	 * @param threads makes the threads
	 * @param watchdog where the check for blocked threads runs; it never blocks
	 * @param patience how long a task may keep a thread before another thread is added
	 */
	public ElasticExecutor(ThreadFactory threads, ScheduledExecutorService watchdog, Duration patience) {
		this.pool = new ThreadPoolExecutor(1, Integer.MAX_VALUE, KEEP_ALIVE.toMillis(), TimeUnit.MILLISECONDS,
				new LinkedBlockingQueue<>(), threads);
		this.watchdog = watchdog;
		this.patienceNanos = patience.toNanos();
	}

	@Override
	public void execute(Runnable task) {
		synchronized (this.unfinishedLock) {
			this.unfinished++;
		}
		try {
			this.pool.execute(() -> {
				Thread thread = Thread.currentThread();
				this.busySince.put(thread, System.nanoTime());
				try {
					task.run();
				}
				finally {
					this.busySince.remove(thread);
					ended();
				}
			});
		}
		catch (RuntimeException | Error ex) {
			// not taken (a rejection, or no thread could be started): it will never end
			ended();
			throw ex;
		}
		scheduleCheck();
	}

	private void ended() {
		synchronized (this.unfinishedLock) {
			if (--this.unfinished == 0) {
				this.unfinishedLock.notifyAll();
			}
		}
	}

	/** How many threads run tasks now, busy or idle. */
	public int threads() {
		return this.pool.getPoolSize();
	}

	/**
	 * Waits, up to the timeout, for the tasks taken to end, then stops taking tasks. Until then it
	 * takes those they hand on: a lane runs its next task as a task of its own, and a listener call
	 * or the stop of leader work queued behind one still running must not be dropped. It adds
	 * threads for blocked tasks itself meanwhile, as the watchdog may be shut down already.
	 */
	public void shutdown(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		try {
			while (true) {
				synchronized (this.unfinishedLock) {
					long left = deadline - System.nanoTime();
					if (this.unfinished == 0 || left <= 0) {
						break;
					}
					TimeUnit.NANOSECONDS.timedWait(this.unfinishedLock, Math.min(left, this.patienceNanos));
				}
				keepAThreadFreePerBlockedTask();
			}
		}
		finally {
			this.pool.shutdown();
		}
		this.pool.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	private void scheduleCheck() {
		if (this.checkScheduled.compareAndSet(false, true)) {
			try {
				this.watchdog.schedule(this::check, this.patienceNanos, TimeUnit.NANOSECONDS);
			}
			catch (RuntimeException ex) {
				// the watchdog is shut down: so is the application
				this.checkScheduled.set(false);
			}
		}
	}

	private void check() {
		this.checkScheduled.set(false);
		keepAThreadFreePerBlockedTask();
		if (!this.busySince.isEmpty() || !this.pool.getQueue().isEmpty()) {
			scheduleCheck();
		}
	}

	/**
	 * Keeps one thread free for every thread held by a task beyond the patience; threads added
	 * before end once idle for the keep-alive.
	 */
	private void keepAThreadFreePerBlockedTask() {
		long now = System.nanoTime();
		int blocked = (int) this.busySince.values().stream().filter((since) -> now - since > this.patienceNanos).count();
		int wanted = 1 + blocked;
		if (wanted != this.pool.getCorePoolSize()) {
			// A larger core size starts threads for the tasks already queued.
			this.pool.setCorePoolSize(wanted);
		}
	}

}
