package io.leaderelection.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.UnknownElectionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every election of one application instance on a shared scheduler. Listener calls go to
 * the runtime's callback executor, so user code never runs on, or delays, the renewing thread.
 */
public final class ElectionEngine implements LeaderElector {

	private static final Logger logger = LoggerFactory.getLogger(ElectionEngine.class);

	private final String identity;

	private final Map<String, Election> elections = new LinkedHashMap<>();

	public ElectionEngine(String identity, Collection<ElectionSettings> elections, LeaseStoreFactory stores,
			ElectionRuntime runtime, List<ElectionListener> listeners) {
		this.identity = identity;
		ElectionListener dispatching = new DispatchingListener(List.copyOf(listeners), runtime);
		for (ElectionSettings settings : elections) {
			Election election = new Election(settings, identity, stores.create(settings), runtime, dispatching);
			if (this.elections.putIfAbsent(settings.name(), election) != null) {
				throw new IllegalArgumentException("Election '" + settings.name() + "' is configured twice");
			}
		}
	}

	/** Starts campaigning in every election. */
	public void start() {
		this.elections.values().forEach(Election::start);
	}

	/**
	 * Stops campaigning in every election. With {@code release}, each held Lease is released
	 * (its gate closed first); the future completes when every release was answered or timed out.
	 */
	public CompletableFuture<Void> stop(boolean release) {
		List<CompletableFuture<Void>> releases = new ArrayList<>();
		for (Election election : this.elections.values()) {
			releases.add(election.stop(release));
		}
		return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
	}

	/** The settings of the given election. */
	public ElectionSettings settings(String election) {
		return election(election).settings();
	}

	/** How well the given election is running. */
	public ElectionHealth health(String election) {
		return election(election).health();
	}

	@Override
	public String identity() {
		return this.identity;
	}

	@Override
	public boolean isLeader(String election) {
		return election(election).isLeader();
	}

	@Override
	public LeaderStatus status(String election) {
		return election(election).status();
	}

	@Override
	public Map<String, LeaderStatus> statuses() {
		Map<String, LeaderStatus> statuses = new LinkedHashMap<>();
		this.elections.forEach((name, election) -> statuses.put(name, election.status()));
		return statuses;
	}

	@Override
	public void stepDown(String election) {
		election(election).stepDown();
	}

	private Election election(String name) {
		Election election = this.elections.get(name);
		if (election == null) {
			throw new UnknownElectionException(name, this.elections.keySet());
		}
		return election;
	}

	/**
	 * Hands listener calls to the callback executor, in order; a failing listener neither stops
	 * the engine nor the listeners after it.
	 */
	private record DispatchingListener(List<ElectionListener> listeners,
			ElectionRuntime runtime) implements ElectionListener {

		@Override
		public void granted(String election, long fencingToken, long gateOpenedAt) {
			dispatch((listener) -> listener.granted(election, fencingToken, gateOpenedAt));
		}

		@Override
		public void revoked(String election, RevocationCause cause, long gateClosedAt) {
			dispatch((listener) -> listener.revoked(election, cause, gateClosedAt));
		}

		@Override
		public void renewed(String election, boolean success, long nanos) {
			dispatch((listener) -> listener.renewed(election, success, nanos));
		}

		private void dispatch(Consumer<ElectionListener> call) {
			this.runtime.callbackExecutor().execute(() -> {
				for (ElectionListener listener : this.listeners) {
					try {
						call.accept(listener);
					}
					catch (RuntimeException ex) {
						logger.error("Leader election listener {} failed", listener, ex);
					}
				}
			});
		}

	}

}
