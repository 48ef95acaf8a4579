package io.leaderelection.autoconfigure.leaderonly;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

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

	/** Counts and interrupts (where asked) the calls still running. */
	@Override
	public void gateClosed(String election) {
		int runningNow = interruptCalls(election);
		if (runningNow > 0) {
			this.invocations.recordRunningAtRevoke(election, runningNow);
			logger.warn("The gate of election '{}' closed while {} leader-only call(s) were running", election,
					runningNow);
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

	private record GatedLifecycle(Lifecycle lifecycle, String name) {

		int phase() {
			return (this.lifecycle instanceof Phased phased) ? phased.getPhase() : 0;
		}

	}

}
