package io.leaderelection.test;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.leaderelection.LeaderElector;
import io.leaderelection.StepDown;
import io.leaderelection.autoconfigure.LeaderElectionLifecycle;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.memory.InMemoryLeaseStores;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;

import org.springframework.context.SmartLifecycle;

/**
 * Hands leadership to and from the application under test, in a context of
 * {@link AutoConfigureTestLeaderElection}. Every change goes through the application's own
 * engine as in production — another replica ({@link #OTHER_REPLICA}) releases the Lease, or takes
 * it over, or the application steps down — and each method returns once the change has had its
 * effects: the gate opened or closed, the events published, the gated beans started or stopped.
 * <p>
 * Inject it into the test: {@code @Autowired LeaderElectionControl leadership}.
 */
public class LeaderElectionControl implements SmartLifecycle {

	/** The name of this bean. */
	public static final String BEAN_NAME = "leaderElectionControl";

	/** The identity of the replica that holds the elections this application does not lead. */
	public static final String OTHER_REPLICA = "other-replica";

	/** How long a change may take before it counts as failed: far beyond what one takes. */
	private static final Duration PATIENCE = Duration.ofSeconds(10);

	/** The other replica's lease duration: while it holds a Lease, the application never takes it by expiry. */
	private static final int HELD_FOR_A_DAY = 86_400;

	private final ElectionEngine engine;

	private final InMemoryLeaseStores leases;

	private final List<String> leaderOf;

	private volatile boolean running;

	LeaderElectionControl(ElectionEngine engine, InMemoryLeaseStores leases, List<String> leaderOf) {
		this.engine = engine;
		this.leases = leases;
		this.leaderOf = led(leaderOf, engine.statuses().keySet());
		for (String election : this.leaderOf) {
			// one that is not configured fails the context here, named
			engine.settings(election);
		}
	}

	/**
	 * Creates the Leases before the elector exists, which follows them from its creation: released
	 * where the application is to lead, held by the other replica elsewhere.
	 */
	static InMemoryLeaseStores seeded(InMemoryLeaseStores leases, List<ElectionSettings> elections,
			List<String> leaderOf) {
		List<String> led = led(leaderOf, elections.stream().map(ElectionSettings::name).toList());
		for (ElectionSettings election : elections) {
			Instant now = Instant.now();
			LeaseRecord initial = led.contains(election.name()) ? LeaseRecord.of("", 1, now, now, 0)
					: LeaseRecord.of(OTHER_REPLICA, HELD_FOR_A_DAY, now, now, 0);
			answer(leases.create(election).create(initial, PATIENCE));
		}
		return leases;
	}

	private static List<String> led(List<String> leaderOf, Collection<String> configured) {
		return leaderOf.contains(AutoConfigureTestLeaderElection.ALL) ? List.copyOf(configured)
				: List.copyOf(leaderOf);
	}

	/** Grants the default election: the other replica releases it and the application takes it. */
	public void grant() {
		grant(LeaderElector.DEFAULT_ELECTION);
	}

	/** Grants the election: the other replica releases it and the application takes it. */
	public void grant(String election) {
		if (this.engine.isLeader(election)) {
			return;
		}
		LeaseStore store = store(election);
		LeaseRecord current = answer(store.get(PATIENCE));
		if (current == null || !current.isHeldBy(OTHER_REPLICA)) {
			throw new IllegalStateException("Election '" + election + "' cannot be granted: its " + store.describe()
					+ " is " + ((current != null) ? "held by '" + current.holderIdentity() + "'" : "missing")
					+ ", not by '" + OTHER_REPLICA + "'");
		}
		Instant now = Instant.now();
		answer(store.update(current.rewrite("", 1, now, now, current.leaseTransitions()), PATIENCE));
		await(election, true, "granted");
	}

	/** Revokes the default election: the other replica takes the Lease over. */
	public void revoke() {
		revoke(LeaderElector.DEFAULT_ELECTION);
	}

	/**
	 * Revokes the election: the other replica takes the Lease over, and the application loses it
	 * at its next renewal, as a leader does whose Lease another replica took.
	 */
	public void revoke(String election) {
		if (!this.engine.isLeader(election)) {
			return;
		}
		takeOver(election);
		await(election, false, "revoked");
	}

	/** Steps the application down from the default election, as {@link #stepDown(String)}. */
	public StepDown stepDown() {
		return stepDown(LeaderElector.DEFAULT_ELECTION);
	}

	/**
	 * Steps the application down as {@link LeaderElector#stepDown(String, Duration)} does: gate
	 * closed, gated beans stopped, {@code @LeaderOnly} calls drained, Lease released. Then the
	 * other replica takes the Lease, so that the application follows until the test grants it
	 * again.
	 * @return how far the step-down got
	 * @throws IllegalStateException when {@code @LeaderOnly} calls still run after 10 s
	 */
	public StepDown stepDown(String election) {
		StepDown stepDown = this.engine.stepDown(election, PATIENCE);
		if (stepDown.release() == StepDown.Release.WAITING_FOR_CALLS) {
			throw new IllegalStateException("Election '" + election + "' is still waiting, after "
					+ PATIENCE.toSeconds() + " s, for its @LeaderOnly calls to end: " + stepDown.callsUnderWay());
		}
		if (stepDown.release() != StepDown.Release.NOT_LEADER) {
			// released, or left to expire: either way the other replica holds it from now on
			takeOver(election);
		}
		await(election, false, "stepped down");
		return stepDown;
	}

	/** The other replica claims the Lease, on whichever version is stored now. */
	private void takeOver(String election) {
		LeaseStore store = store(election);
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (true) {
			LeaseRecord current = answer(store.get(PATIENCE));
			Instant now = Instant.now();
			try {
				answer(store.update(current.rewrite(OTHER_REPLICA, HELD_FOR_A_DAY, now, now, current.transitions() + 1),
						PATIENCE));
				return;
			}
			catch (LeaseConflictException ex) {
				// the application renewed in between: take the version it wrote
				if (System.nanoTime() - deadline >= 0) {
					throw ex;
				}
			}
		}
	}

	private void await(String election, boolean leading, String change) {
		try {
			if (!this.engine.awaitLeadership(election, leading, PATIENCE)) {
				throw new IllegalStateException(
						"Election '" + election + "' was not " + change + " within " + PATIENCE.toSeconds() + " s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while election '" + election + "' was " + change, ex);
		}
	}

	private LeaseStore store(String election) {
		ElectionSettings settings = this.engine.settings(election);
		return this.leases.create(settings);
	}

	private static <T> T answer(CompletableFuture<T> call) {
		try {
			return call.get(PATIENCE.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : new IllegalStateException(ex);
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("The in-memory Leases gave no answer within " + PATIENCE.toSeconds() + " s",
					ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Waits, as the context starts, until the application leads the elections it is to lead. */
	@Override
	public void start() {
		this.leaderOf.forEach((election) -> await(election, true, "led at start"));
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Right after the elector starts campaigning. */
	@Override
	public int getPhase() {
		return LeaderElectionLifecycle.PHASE + 1;
	}

}
