package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.leaderelection.autoconfigure.LeaderWorkDrain;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.RevocationCause;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.Lifecycle;
import org.springframework.context.Phased;

/**
 * The leader work of every election: the {@code @LeaderOnly} calls running now and the gated
 * lifecycle beans. Starts and stops those beans as leadership comes and goes, tells running
 * calls when it is revoked, and drains everything before the Leases are released on shutdown.
 */
public class LeaderOnlyRegistry implements ElectionListener, LeaderWorkDrain {

	private static final Logger logger = LoggerFactory.getLogger(LeaderOnlyRegistry.class);

	/** The innermost call under way on each thread; calls nest when gated code calls gated code. */
	private static final ThreadLocal<Call> CURRENT = new ThreadLocal<>();

	private final LeaderOnlyInvocations invocations;

	private final Map<String, Set<Call>> running = new ConcurrentHashMap<>();

	private final Map<String, List<GatedLifecycle>> lifecycles = new ConcurrentHashMap<>();

	private volatile CompletableFuture<Void> idle = new CompletableFuture<>();

	private volatile boolean draining;

	public LeaderOnlyRegistry(LeaderOnlyInvocations invocations) {
		this.invocations = invocations;
	}

	/**
	 * Registers a call about to run; {@code null} when leader work is being drained, in which
	 * case the call must not run.
	 */
	Call enter(String election, boolean interruptOnRevoke) {
		Set<Call> calls = this.running.computeIfAbsent(election, (name) -> new HashSet<>());
		synchronized (calls) {
			if (this.draining) {
				return null;
			}
			Call call = new Call(calls, Thread.currentThread(), interruptOnRevoke, CURRENT.get());
			calls.add(call);
			CURRENT.set(call);
			return call;
		}
	}

	void exit(Call call) {
		Set<Call> calls = call.runningCalls;
		synchronized (calls) {
			calls.remove(call);
			if (call.interrupted) {
				// Our interrupt must not leak into whatever the pooled thread runs next, but an
				// enclosing call that was interrupted too must still see it. Checked after the
				// clearing: a revocation marks a call before it interrupts the thread.
				Thread.interrupted();
				if (call.enclosedByInterruptedCall()) {
					Thread.currentThread().interrupt();
				}
			}
		}
		if (call.enclosing != null) {
			CURRENT.set(call.enclosing);
		}
		else {
			CURRENT.remove();
		}
		if (this.draining && nothingRunning()) {
			this.idle.complete(null);
		}
	}

	boolean isDraining() {
		return this.draining;
	}

	/** Registers a lifecycle bean to start on grant and stop on revoke of the election. */
	void register(String election, Lifecycle bean, String beanName) {
		this.lifecycles.computeIfAbsent(election, (name) -> new CopyOnWriteArrayList<>())
			.add(new GatedLifecycle(bean, beanName));
	}

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		List<GatedLifecycle> beans = new ArrayList<>(this.lifecycles.getOrDefault(election, List.of()));
		beans.sort(Comparator.comparingInt(GatedLifecycle::phase));
		for (GatedLifecycle bean : beans) {
			if (!this.draining) {
				logger.info("Starting leader-only bean '{}' of election '{}'", bean.name, election);
				try {
					bean.lifecycle.start();
				}
				catch (RuntimeException ex) {
					logger.error("Failed to start leader-only bean '{}' of election '{}'", bean.name, election, ex);
				}
			}
		}
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		stopLifecycles(election);
		Set<Call> calls = this.running.getOrDefault(election, Set.of());
		int runningNow;
		synchronized (calls) {
			runningNow = calls.size();
			for (Call call : calls) {
				if (call.interruptOnRevoke) {
					call.interrupted = true;
					call.thread.interrupt();
				}
			}
		}
		if (runningNow > 0) {
			this.invocations.recordRunningAtRevoke(election, runningNow);
			logger.warn("Leadership of election '{}' ended ({}) while {} leader-only call(s) were running", election,
					cause, runningNow);
		}
	}

	@Override
	public CompletableFuture<Void> drain(Duration timeout) {
		this.draining = true;
		this.lifecycles.keySet().forEach(this::stopLifecycles);
		if (nothingRunning()) {
			this.idle.complete(null);
		}
		return this.idle.copy().completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void resume() {
		if (this.draining) {
			this.idle = new CompletableFuture<>();
			this.draining = false;
		}
	}

	private void stopLifecycles(String election) {
		List<GatedLifecycle> beans = new ArrayList<>(this.lifecycles.getOrDefault(election, List.of()));
		beans.sort(Comparator.comparingInt(GatedLifecycle::phase).reversed());
		for (GatedLifecycle bean : beans) {
			try {
				if (bean.lifecycle.isRunning()) {
					logger.info("Stopping leader-only bean '{}' of election '{}'", bean.name, election);
					bean.lifecycle.stop();
				}
			}
			catch (RuntimeException ex) {
				// The others must still stop, running calls still be told, the Lease still released.
				logger.error("Failed to stop leader-only bean '{}' of election '{}'", bean.name, election, ex);
			}
		}
	}

	private boolean nothingRunning() {
		for (Set<Call> calls : this.running.values()) {
			synchronized (calls) {
				if (!calls.isEmpty()) {
					return false;
				}
			}
		}
		return true;
	}

	/** A {@code @LeaderOnly} call under way. */
	static final class Call {

		/** The running calls of the election, this one among them until it exits. */
		private final Set<Call> runningCalls;

		private final Thread thread;

		private final boolean interruptOnRevoke;

		/** The call on the same thread this one runs within, {@code null} when none. */
		private final Call enclosing;

		/** Set by a revocation, possibly of another election than that of a nested call. */
		private volatile boolean interrupted;

		Call(Set<Call> runningCalls, Thread thread, boolean interruptOnRevoke, Call enclosing) {
			this.runningCalls = runningCalls;
			this.thread = thread;
			this.interruptOnRevoke = interruptOnRevoke;
			this.enclosing = enclosing;
		}

		private boolean enclosedByInterruptedCall() {
			for (Call outer = this.enclosing; outer != null; outer = outer.enclosing) {
				if (outer.interrupted) {
					return true;
				}
			}
			return false;
		}

	}

	private record GatedLifecycle(Lifecycle lifecycle, String name) {

		int phase() {
			return (this.lifecycle instanceof Phased phased) ? phased.getPhase() : 0;
		}

	}

}
