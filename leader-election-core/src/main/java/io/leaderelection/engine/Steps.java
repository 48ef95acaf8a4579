package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import io.leaderelection.store.LeaseStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of one election's loop on the shared scheduler: the next attempt, and store calls
 * with a timeout on the engine's clock whose continuations run under the election's lock unless
 * the loop moved on meanwhile. Every attempt scheduled or call answered makes the continuations
 * of the attempts before it stale, so that one chain of steps runs at a time.
 */
final class Steps {

	/** Logs as the election does, under the one category users set levels for. */
	private static final Logger logger = LoggerFactory.getLogger(Election.class);

	/** The sequence of a continuation that runs whatever the loop did meanwhile. */
	static final long ALWAYS = -1;

	private final ElectionLoop election;

	private final ElectionScheduler scheduler;

	private final MonotonicClock clock;

	private final String lease;

	private final LongConsumer attempt;

	// guarded by the election

	private long attemptSequence;

	private ElectionScheduler.Cancellable nextAttempt;

	/** When {@link #nextAttempt} is due. */
	private long nextAttemptAtNanos;

	/** The attempt sequence a look at the Lease on its way was sent in; {@link ElectionLoop#NEVER} when none is. */
	private long lookSequence = ElectionLoop.NEVER;

	/**
	 * @param scheduler the shared scheduler, telling of steps that run late
	 * @param attempt the election's attempt, given its sequence
	 */
	Steps(ElectionLoop election, ElectionScheduler scheduler, MonotonicClock clock, String lease, LongConsumer attempt) {
		this.election = election;
		this.scheduler = scheduler;
		this.clock = clock;
		this.lease = lease;
		this.attempt = attempt;
	}

	ElectionScheduler scheduler() {
		return this.scheduler;
	}

	/** The sequence of the current attempt: a continuation sent in it runs only while it is current. */
	long attemptSequence() {
		return this.attemptSequence;
	}

	/** A look at the Lease is on its way in the current attempt: its answer may change any decision. */
	void lookOnItsWay() {
		this.lookSequence = this.attemptSequence;
	}

	void lookAnswered() {
		this.lookSequence = ElectionLoop.NEVER;
	}

	/** Whether a look sent in the current attempt has not been answered. */
	boolean lookPending() {
		return this.lookSequence == this.attemptSequence;
	}

	/** Schedules the next attempt after the delay, replacing the one scheduled, if any. */
	void scheduleAttempt(long delayNanos) {
		cancelNextAttempt();
		long sequence = ++this.attemptSequence;
		this.nextAttemptAtNanos = this.clock.nanoTime() + Math.max(0, delayNanos);
		this.nextAttempt = this.scheduler.schedule(() -> this.attempt.accept(sequence), Math.max(0, delayNanos));
	}

	/** When the next attempt is due; {@link ElectionLoop#NEVER} when none is scheduled. */
	long nextAttemptDueAt() {
		return (this.nextAttempt != null) ? this.nextAttemptAtNanos : ElectionLoop.NEVER;
	}

	/** Nothing scheduled runs, and the answers of calls on their way are dropped. */
	void abandonAttempts() {
		cancelNextAttempt();
		this.attemptSequence++;
	}

	private void cancelNextAttempt() {
		if (this.nextAttempt != null) {
			this.nextAttempt.cancel();
			this.nextAttempt = null;
		}
	}

	/**
	 * Sends a store call with a timeout measured on the engine's clock and continues on the
	 * scheduler with its result, unless the loop moved on meanwhile ({@link #ALWAYS} always
	 * continues). A continuation that throws is logged and the loop retries.
	 */
	<T> void call(String verb, Supplier<CompletableFuture<T>> request, long timeoutNanos, long sequence,
			BiConsumer<T, Throwable> then) {
		call(verb, request, timeoutNanos, sequence, then, this.election::stepFailed);
	}

	/** As above, with what to do when the continuation throws. */
	<T> void call(String verb, Supplier<CompletableFuture<T>> request, long timeoutNanos, long sequence,
			BiConsumer<T, Throwable> then, Consumer<RuntimeException> recover) {
		CompletableFuture<T> future;
		try {
			future = request.get();
		}
		catch (RuntimeException ex) {
			future = CompletableFuture.failedFuture(ex);
		}
		AtomicBoolean settled = new AtomicBoolean();
		CompletableFuture<T> pending = future;
		ElectionScheduler.Cancellable timer = this.scheduler.schedule(() -> {
			if (settled.compareAndSet(false, true)) {
				pending.cancel(true);
				continueWith(sequence, () -> then.accept(null,
						LeaseStoreException.noAnswer(verb, this.lease, Duration.ofNanos(timeoutNanos), null)), recover);
			}
		}, timeoutNanos);
		future.whenComplete((value, failure) -> {
			if (settled.compareAndSet(false, true)) {
				timer.cancel();
				Throwable cause = unwrap(verb, failure);
				this.scheduler.execute(() -> continueWith(sequence, () -> then.accept(value, cause), recover));
			}
		});
	}

	/** Runs the step under the election's lock on the scheduler, after the current one. */
	void later(Runnable step) {
		this.scheduler.execute(() -> {
			synchronized (this.election) {
				step.run();
			}
		});
	}

	private void continueWith(long sequence, Runnable step, Consumer<RuntimeException> recover) {
		synchronized (this.election) {
			if (sequence != ALWAYS && (sequence != this.attemptSequence || !this.election.runningOrHolding())) {
				return;
			}
			try {
				step.run();
			}
			catch (RuntimeException ex) {
				logger.error("Election '{}' step failed", this.election.settings().name(), ex);
				recover.accept(ex);
			}
		}
	}

	private Throwable unwrap(String verb, Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		if (cause == null || cause instanceof LeaseStoreException) {
			return cause;
		}
		return new LeaseStoreException(verb, this.lease, 0, String.valueOf(cause), cause);
	}

}
