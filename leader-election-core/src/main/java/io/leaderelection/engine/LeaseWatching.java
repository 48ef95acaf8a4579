package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseWatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watch an election follows its Lease with: started from now (the store tells the current
 * version first), closed on request. A watch that worked for a retry period and then ended (the
 * API server restarted, or ended it at its request timeout, or answered its reconnection with 410
 * Gone) is started again at once; one that could not be opened, or ended sooner, is backed off
 * (the election polls meanwhile). Its events reach the election one at a time and in the order the
 * store told them, each marked with the watch it came from, so that the election drops those of a
 * watch it no longer follows.
 */
final class LeaseWatching {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	private static final long NEVER = Long.MIN_VALUE;

	/** A watch that keeps ending is retried after at most this many retry periods. */
	private static final long MAX_BACKOFF_FACTOR = 32;

	private final Events events;

	/** The election's lock, which every event is told under. */
	private final Object lock;

	private final MonotonicClock clock;

	private final LeaseStore store;

	private final ElectionScheduler scheduler;

	private final String electionName;

	private final long retryPeriodNanos;

	private LeaseWatch watch;

	private Listener listener;

	/** When a watch that ended may be started again; {@link #NEVER} when it may now. */
	private long retryAtNanos = NEVER;

	/** How long the next watch that fails early is backed off. */
	private long backoffNanos;

	LeaseWatching(Events events, Object lock, MonotonicClock clock, LeaseStore store, ElectionScheduler scheduler,
			String electionName, long retryPeriodNanos) {
		this.events = events;
		this.lock = lock;
		this.clock = clock;
		this.store = store;
		this.scheduler = scheduler;
		this.electionName = electionName;
		this.retryPeriodNanos = retryPeriodNanos;
		this.backoffNanos = retryPeriodNanos;
	}

	/** Starts watching, unless a watch is on or backing off. */
	void start(long now) {
		if (this.listener != null || (this.retryAtNanos != NEVER && now - this.retryAtNanos < 0)) {
			return;
		}
		Listener started = new Listener();
		LeaseWatch opened;
		try {
			opened = this.store.watch(started);
		}
		catch (RuntimeException ex) {
			// The watch could not be opened (no watch permission, no such namespace): poll, and
			// try again after a backoff, as when a watch ends. The attempt goes on regardless.
			backOff(now, ex);
			return;
		}
		if (opened != null) {
			this.listener = started;
			this.watch = opened;
		}
	}

	void stop() {
		if (this.watch != null) {
			this.watch.close();
		}
		this.watch = null;
		this.listener = null;
	}

	/** Whether a watch was started and neither ended nor closed. */
	boolean started() {
		return this.listener != null;
	}

	/** How long from now until a watch may be started again; 0 when it may now. */
	long untilRestart(long now) {
		return (this.retryAtNanos == NEVER) ? 0 : Math.max(0, this.retryAtNanos - now);
	}

	/** A watch that worked for a retry period ended: it is started again at once, and backed off only if it keeps failing. */
	private void restartAtOnce() {
		this.retryAtNanos = NEVER;
		this.backoffNanos = this.retryPeriodNanos;
		logger.debug("Watch of {} ended, starting it again", this.store.describe());
	}

	private void backOff(long now, Throwable cause) {
		this.retryAtNanos = now + this.backoffNanos;
		logger.debug("Watch of {} ended or failed, polling for {} ms: {}", this.store.describe(),
				Duration.ofNanos(this.backoffNanos).toMillis(), String.valueOf(cause));
		this.backoffNanos = Math.min(this.backoffNanos * 2, MAX_BACKOFF_FACTOR * this.retryPeriodNanos);
	}

	/**
	 * Hands the store's events to the election under its lock, one at a time and in the order the
	 * store told them: the scheduler has several threads, and a deletion handled after the
	 * creation that followed it would show a Lease missing that exists. One per started watch, so
	 * that the events of a watch no longer followed are dropped.
	 */
	private final class Listener implements LeaseWatch.Listener {

		private final Executor events = new SerialExecutor(LeaseWatching.this.scheduler::execute,
				"the watch of election '" + LeaseWatching.this.electionName + "'");

		/** When the server accepted this watch; {@link #NEVER} before. */
		private long openedAtNanos = NEVER;

		@Override
		public void opened() {
			tell(() -> {
				this.openedAtNanos = LeaseWatching.this.clock.nanoTime();
				LeaseWatching.this.events.watchOpened();
			});
		}

		@Override
		public void changed(LeaseRecord record) {
			tell(() -> LeaseWatching.this.events.watched(record));
		}

		@Override
		public void deleted(LeaseRecord lastVersion) {
			tell(() -> LeaseWatching.this.events.watchedDeletion(lastVersion));
		}

		@Override
		public void ended(Throwable cause) {
			tell(() -> {
				LeaseWatching.this.watch = null;
				LeaseWatching.this.listener = null;
				long now = LeaseWatching.this.clock.nanoTime();
				if (this.openedAtNanos != NEVER && now - this.openedAtNanos >= LeaseWatching.this.retryPeriodNanos) {
					restartAtOnce();
				}
				else {
					backOff(now, cause);
				}
				LeaseWatching.this.events.watchEnded();
			});
		}

		/** An event that comes as the watch closes, once the engine's threads are gone, is of no use. */
		private void tell(Runnable event) {
			try {
				this.events.execute(() -> {
					synchronized (LeaseWatching.this.lock) {
						if (this == LeaseWatching.this.listener) {
							event.run();
						}
					}
				});
			}
			catch (RejectedExecutionException ex) {
				logger.debug("Election '{}' has stopped: a watch event is dropped", LeaseWatching.this.electionName);
			}
		}

	}

	/** What the election does with what its watch tells, under its lock. */
	interface Events {

		/** The server accepted the watch. */
		void watchOpened();

		/** The watch told a version of the Lease, or ({@code null}) its deletion. */
		void watched(LeaseRecord record);

		/** The watch told a deletion of the given version, or of an unknown one ({@code null}). */
		void watchedDeletion(LeaseRecord lastVersion);

		/** The watch ended on its own. */
		void watchEnded();

	}

}
