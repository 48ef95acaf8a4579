package io.leaderelection.autoconfigure.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

import io.leaderelection.autoconfigure.window.HeldRun;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.autoconfigure.window.WindowedStarts.Outcome;
import io.leaderelection.engine.ElectionScheduler;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;

/**
 * ShedLock's locks on leader election: a lock is granted only on the leader of its election, or
 * for a sharded election of the shard its name maps to, and only once its start is recorded in
 * that election's Lease, under the leader's term, by a write at the version the term holds, which
 * a deposed leader's fails. The lock stays taken for {@code lockAtMostFor} after its start, and,
 * once released, until {@code lockAtLeastFor} after its start, across handovers and crashes. A
 * lock held is leader work: a step-down, {@code yield()} or shutdown waits for its release before
 * releasing the Lease, but not beyond its {@code lockAtMostFor}: a lock never released (its job
 * hung, or its thread died) ends there, as ShedLock's own providers let it expire, so that it
 * does not hold up a handover until the drain timeout.
 * <p>
 * ShedLock gives its times as instants on this replica's clock ({@link ClockProvider}); they are
 * turned into durations from now on that clock as the lock is asked for, and counted on the
 * monotonic clocks of whoever reads them, so that no replica compares its clock with another's.
 * On a follower, a lock is refused without asking anything of the API.
 */
public class ElectionLockProvider implements ExtensibleLockProvider {

	private final WindowedStarts starts;

	private final LockElection election;

	private final ElectionLockCounts counts;

	/** Ends the locks whose {@code lockAtMostFor} has passed while they were out. */
	private final ElectionScheduler scheduler;

	/**
	 * The runs of the locks this provider has out, by name, until released: asked for again
	 * before its run's {@code lockAtMostFor}, a lock is refused here, where the elector would
	 * refuse it too, so that threads asking again and again while it is held cost it nothing.
	 */
	private final Map<String, HeldRun> out = new ConcurrentHashMap<>();

	ElectionLockProvider(WindowedStarts starts, LockElection election, ElectionScheduler scheduler) {
		this.starts = starts;
		this.election = election;
		this.scheduler = scheduler;
		this.counts = new ElectionLockCounts(election.elections());
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Instant now = ClockProvider.now();
		String name = configuration.getName();
		String election = this.election.electionOf(name);
		HeldRun held = this.out.get(name);
		if (held != null) {
			if (!held.expired()) {
				this.counts.record(election,
						this.starts.leads(election) ? Outcome.WINDOW_CLOSED : Outcome.NOT_LEADER);
				return Optional.empty();
			}
			// out past its lockAtMostFor, and not yet ended by its expiry
			released(name, held);
		}
		WindowedStarts.Attempt attempt;
		try {
			attempt = this.starts.start(election, name, fromNow(now, configuration.getLockAtLeastUntil()),
					fromNow(now, configuration.getLockAtMostUntil()), false, "ShedLock lock '" + name + "'");
		}
		catch (RuntimeException ex) {
			throw new LockException("Could not take lock '" + name + "' in election '" + election + "'", ex);
		}
		this.counts.record(election, attempt.outcome());
		HeldRun run = attempt.run();
		if (run == null) {
			return Optional.empty();
		}
		// released wherever ShedLock releases it, in whatever order
		run.detach();
		this.out.put(name, run);
		endWhenExpired(name, run, fromNow(now, configuration.getLockAtMostUntil()));
		return Optional.of(new ElectionLock(configuration, run));
	}

	private void released(String name, HeldRun run) {
		run.end();
		this.out.remove(name, run);
	}

	/**
	 * Ends the run once its lockAtMostFor has passed, unless it was released or extended since:
	 * an extension on its way then decides, and schedules this again or ends the run.
	 */
	private void endWhenExpired(String name, HeldRun run, Duration lockAtMostFor) {
		try {
			this.scheduler.schedule(() -> {
				if (run.expired()) {
					released(name, run);
				}
			}, lockAtMostFor.toNanos());
		}
		catch (RejectedExecutionException ex) {
			// the elector's threads have stopped: no drain is left to hold up
		}
	}

	/** The locks asked for, by election and outcome. */
	ElectionLockCounts counts() {
		return this.counts;
	}

	private static Duration fromNow(Instant now, Instant until) {
		Duration left = Duration.between(now, until);
		return left.isNegative() ? Duration.ZERO : left;
	}

	/** A lock taken: the run of the job it names, under way until released. */
	private final class ElectionLock extends AbstractSimpleLock {

		private final HeldRun run;

		ElectionLock(LockConfiguration configuration, HeldRun run) {
			super(configuration);
			this.run = run;
		}

		@Override
		protected void doUnlock() {
			released(this.lockConfiguration.getName(), this.run);
		}

		/**
		 * Extends the lock with a write under the term; refused once the lock is released or its
		 * {@code lockAtMostFor} has passed, or this replica no longer leads. A lock that cannot be
		 * extended cannot be released either, as ShedLock sees it: its run ends here.
		 */
		@Override
		protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
			Instant now = ClockProvider.now();
			Duration lockAtMostFor = fromNow(now, extended.getLockAtMostUntil());
			if (this.run.extend(lockAtMostFor, fromNow(now, extended.getLockAtLeastUntil()))) {
				endWhenExpired(this.lockConfiguration.getName(), this.run, lockAtMostFor);
				return Optional.of(new ElectionLock(extended, this.run));
			}
			released(this.lockConfiguration.getName(), this.run);
			return Optional.empty();
		}

	}

}
