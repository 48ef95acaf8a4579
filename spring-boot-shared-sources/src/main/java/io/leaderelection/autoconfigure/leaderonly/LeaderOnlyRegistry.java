package io.leaderelection.autoconfigure.leaderonly;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.leaderelection.engine.LeaderCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.Lifecycle;
import org.springframework.context.Phased;

/**
 * The leader work of every election: the {@code @LeaderOnly} calls under way and the gated
 * lifecycle beans. The engine starts those beans on a grant and stops them when the gate closes,
 * tells running calls when it closes, and waits for them before it releases a Lease.
 */
public class LeaderOnlyRegistry extends LeaderCalls {

	private static final Logger logger = LoggerFactory.getLogger(LeaderOnlyRegistry.class);

	private final LeaderOnlyInvocations invocations;

	private final Map<String, List<GatedLifecycle>> lifecycles = new ConcurrentHashMap<>();

	private final Map<String, List<GateClosedWork>> gateClosedWork = new ConcurrentHashMap<>();

	public LeaderOnlyRegistry(LeaderOnlyInvocations invocations) {
		this.invocations = invocations;
	}

	/**
	 * Registers a lifecycle to start on grant and stop on revoke of the election, and before a
	 * release of its own accord: a gated bean, or leader work the auto-configuration keeps, such
	 * as the route to the leader. Lifecycles start in the order of their phase, lowest first, and
	 * stop highest first.
	 * @param name the name of the bean, or what the lifecycle is, for the log
	 */
	public void register(String election, Lifecycle lifecycle, String name) {
		this.lifecycles.computeIfAbsent(election, (ignored) -> new CopyOnWriteArrayList<>())
			.add(new GatedLifecycle(lifecycle, name));
	}

	/**
	 * Registers work to start the moment the election's gate closes, before any gated bean
	 * stops: it must only start the work, not wait for it. A release of our own accord waits for
	 * the future it returns, as for a call under way, within the drain timeout.
	 * @param what what the work is, for the log when it outlasts a drain
	 */
	public void whenGateCloses(String election, Supplier<CompletableFuture<?>> work, String what) {
		this.gateClosedWork.computeIfAbsent(election, (ignored) -> new CopyOnWriteArrayList<>())
			.add(new GateClosedWork(work, what));
	}

	/** Counts and interrupts (where asked) the calls still running, then starts the gate-closed work. */
	@Override
	public void gateClosed(String election) {
		int runningNow = interruptCalls(election);
		if (runningNow > 0) {
			this.invocations.recordRunningAtRevoke(election, runningNow);
			logger.warn("The gate of election '{}' closed while {} leader-only call(s) were running", election,
					runningNow);
		}
		for (GateClosedWork work : this.gateClosedWork.getOrDefault(election, List.of())) {
			try {
				underWay(election, work.work.get(), work.what);
			}
			catch (RuntimeException ex) {
				logger.error("Failed to start the {} of election '{}'", work.what, election, ex);
			}
		}
	}

	/**
	 * Starts the election's gated beans, lowest phase first. Every bean is tried; those that
	 * fail are named in the exception, which the election's health shows.
	 */
	@Override
	public void start(String election) {
		List<String> failures = new ArrayList<>();
		for (GatedLifecycle bean : inPhaseOrder(election)) {
			if (isRefusing()) {
				return;
			}
			logger.info("Starting leader-only bean '{}' of election '{}'", bean.name, election);
			try {
				bean.lifecycle.start();
			}
			catch (RuntimeException ex) {
				logger.error("Failed to start leader-only bean '{}' of election '{}'", bean.name, election, ex);
				failures.add("leader-only bean '" + bean.name + "' failed to start: " + ex);
			}
		}
		if (!failures.isEmpty()) {
			throw new IllegalStateException(String.join("; ", failures));
		}
	}

	/** Stops the election's gated beans, highest phase first; one that fails does not keep the others running. */
	@Override
	public void stop(String election) {
		List<GatedLifecycle> beans = inPhaseOrder(election);
		for (int i = beans.size() - 1; i >= 0; i--) {
			GatedLifecycle bean = beans.get(i);
			try {
				if (bean.lifecycle.isRunning()) {
					logger.info("Stopping leader-only bean '{}' of election '{}'", bean.name, election);
					bean.lifecycle.stop();
				}
			}
			catch (RuntimeException ex) {
				logger.error("Failed to stop leader-only bean '{}' of election '{}'", bean.name, election, ex);
			}
		}
	}

	private List<GatedLifecycle> inPhaseOrder(String election) {
		List<GatedLifecycle> beans = new ArrayList<>(this.lifecycles.getOrDefault(election, List.of()));
		beans.sort(Comparator.comparingInt(GatedLifecycle::phase));
		return beans;
	}

	private record GateClosedWork(Supplier<CompletableFuture<?>> work, String what) {

	}

	private record GatedLifecycle(Lifecycle lifecycle, String name) {

		int phase() {
			return (this.lifecycle instanceof Phased phased) ? phased.getPhase() : 0;
		}

	}

}
