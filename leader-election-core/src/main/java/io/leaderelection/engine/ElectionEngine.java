package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.RevocationCause;
import io.leaderelection.Shard;
import io.leaderelection.StepDown;
import io.leaderelection.UnknownElectionException;
import io.leaderelection.WindowStatus;
import io.leaderelection.WindowTimes;
import io.leaderelection.store.LeaseStoreFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every election of one application instance on a shared scheduler. Each election has two
 * lanes on the runtime's callback executor: one starts and stops its gated work, the other calls
 * the listeners. User code never runs on, or delays, the renewing thread, and a listener that
 * blocks holds up neither the gated work nor other elections.
 */
public final class ElectionEngine implements LeaderElector {

	private static final Logger logger = LoggerFactory.getLogger(ElectionEngine.class);

	private final String identity;

	private final LeaderWork work;

	private final Duration drainTimeout;

	private final Map<String, Election> elections = new LinkedHashMap<>();

	/** The shards of each sharded election, in order of their index. */
	private final Map<String, List<Election>> shards = new LinkedHashMap<>();

	private final List<Balancer> balancers = new ArrayList<>();

	/**
	 * How long a release of our own accord waits for the leader work by default: Spring's default
	 * shutdown phase (30 s) less client-go's default renew deadline (10 s), kept for the release.
	 */
	public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(20);

	/** An engine whose elections gate no work of their own. */
	public ElectionEngine(String identity, Collection<ElectionSettings> elections, LeaseStoreFactory stores,
			ElectionRuntime runtime, List<ElectionListener> listeners) {
		this(identity, elections, stores, runtime, listeners, LeaderWork.NONE, DEFAULT_DRAIN_TIMEOUT);
	}

	/**
	 * @param work the leader work the elections start, stop and drain
	 * @param drainTimeout how long a release of our own accord (step-down, shutdown) waits for
	 * the leader work to end before it leaves the Lease to expire instead
	 */
	public ElectionEngine(String identity, Collection<ElectionSettings> elections, LeaseStoreFactory stores,
			ElectionRuntime runtime, List<ElectionListener> listeners, LeaderWork work, Duration drainTimeout) {
		this.identity = identity;
		this.work = work;
		this.drainTimeout = drainTimeout;
		List<ElectionListener> all = List.copyOf(listeners);
		for (ElectionSettings settings : elections) {
			String name = settings.name();
			Executor workLane = new SerialExecutor(runtime.callbackExecutor(), "the work lane of election '" + name + "'");
			Executor eventLane = new SerialExecutor(runtime.callbackExecutor(),
					"the listener lane of election '" + name + "'");
			String holder = (settings.forLife() != null) ? settings.forLife().podName() : identity;
			MigrationKey migrationKey = (settings.migration() != null) ? new MigrationKey(stores.leaderKey(settings),
					settings.migration().podName(), settings, runtime) : null;
			Election election = new Election(settings, holder, stores.create(settings), migrationKey, runtime,
					new DispatchingListener(all, eventLane), eventLane, work, workLane, drainTimeout);
			if (this.elections.putIfAbsent(name, election) != null) {
				throw new IllegalArgumentException("Election '" + name + "' is configured twice");
			}
			Shard shard = settings.shard();
			if (shard != null) {
				this.shards.computeIfAbsent(shard.election(), (ignored) -> new ArrayList<>()).add(election);
			}
		}
		this.shards.forEach(this::checkShards);
		Map<String, List<Election>> groups = new LinkedHashMap<>();
		this.elections.values()
			.stream()
			.filter((election) -> election.settings().balanceGroup() != null)
			.forEach((election) -> groups.computeIfAbsent(election.settings().balanceGroup(), (ignored) -> new ArrayList<>())
				.add(election));
		groups.forEach((group, members) -> this.balancers.add(new Balancer(group, identity, members,
				stores.membership(members.get(0).settings().namespace()), runtime)));
	}

	private void checkShards(String election, List<Election> shards) {
		if (this.elections.containsKey(election)) {
			throw new IllegalArgumentException("Election '" + election + "' is configured both whole and sharded");
		}
		for (int index = 0; index < shards.size(); index++) {
			Shard shard = shards.get(index).settings().shard();
			if (shard.index() != index || shard.count() != shards.size()) {
				throw new IllegalArgumentException("The shards of election '" + election + "' must be given in order, "
						+ "each once: found " + shard.name() + " at position " + index);
			}
		}
	}

	/**
	 * Accepts leader work and starts campaigning in every election. Elections that run for-life
	 * first read the Pod this process runs in, blocking for up to their renew deadline.
	 * @throws ForLifePodException when that Pod is not found or cannot be read; nothing started
	 */
	public void start() {
		this.elections.values().forEach(Election::prepare);
		this.work.acceptCalls();
		this.balancers.forEach(Balancer::start);
		this.elections.values().forEach(Election::start);
	}

	/**
	 * Follows the Lease of every election that claims nothing else first (neither for life, nor
	 * balanced, nor guarded by a migration key) without campaigning yet: reads and watches it, and
	 * creates it without holder if it is missing. A brand-new Lease's wait of a lease duration
	 * then runs while the application starts, and {@link #start()} claims it at once if the wait
	 * is over. Never claims anything, opens no gate, and accepts no leader work.
	 */
	public void follow() {
		this.elections.values()
			.stream()
			.filter(Election::mayFollowBeforeCampaigning)
			.forEach(Election::follow);
	}

	/**
	 * Stops the elections that only follow their Lease (see {@link #follow()}), as when the
	 * application fails to start or closes before it campaigned; those that campaign are left to
	 * {@link #stop(boolean)}.
	 */
	public void stopFollowing() {
		this.elections.values().forEach(Election::stopFollowing);
	}

	/**
	 * Refuses new leader work and stops campaigning in every election: each gate closes, the
	 * leader work drains and then, with {@code release}, each held Lease is released; the future
	 * completes when every release, and every leave of a balanced group, was answered, failed or
	 * given up.
	 */
	public CompletableFuture<Void> stop(boolean release) {
		return stop(release, RevocationCause.SHUTDOWN);
	}

	/**
	 * Stops as {@link #stop(boolean)} does, telling the given cause of the revocations:
	 * {@link RevocationCause#NOT_READY} when the application stopped accepting traffic.
	 * {@link #start()} campaigns again; its first attempt in an election waits for that election's
	 * release.
	 */
	public CompletableFuture<Void> stop(boolean release, RevocationCause cause) {
		this.work.refuseCalls();
		// the others learn that this replica left as its elections stop, and balance without it
		List<CompletableFuture<Void>> releases = new ArrayList<>();
		this.balancers.forEach((balancer) -> releases.add(balancer.stop()));
		for (Election election : this.elections.values()) {
			releases.add(election.stop(release, cause));
		}
		return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
	}

	/** How long a release of our own accord waits for the leader work to end. */
	public Duration drainTimeout() {
		return this.drainTimeout;
	}

	/** The settings of the given election. */
	public ElectionSettings settings(String election) {
		return election(election).settings();
	}

	/** How well the given election is running. */
	public ElectionHealth health(String election) {
		return election(election).health();
	}

	/**
	 * Waits until this instance leads the given election, or no longer does, and the listener
	 * calls and gated work of that change have run.
	 * @param leading whether to wait for leading or for not leading
	 * @return whether that happened within the timeout
	 */
	public boolean awaitLeadership(String election, boolean leading, Duration timeout) throws InterruptedException {
		Election waitedFor = election(election);
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!waitedFor.leadershipSettled(leading)) {
			if (System.nanoTime() - deadline >= 0) {
				return false;
			}
			// a tenth of a millisecond: a change in memory takes a few hand-overs between threads
			LockSupport.parkNanos(100_000);
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
		}
		try {
			waitedFor.callbacksRun().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (ExecutionException | TimeoutException ex) {
			return false;
		}
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
	public boolean owns(String election, String key) {
		Election shard = shardOfKey(election, key);
		return (shard != null) ? shard.isLeader() : LeaderElector.super.owns(election, key);
	}

	@Override
	public int shardOf(String election, String key) {
		List<Election> sharded = this.shards.get(election);
		return (sharded != null) ? Shard.of(key, sharded.size()) : LeaderElector.super.shardOf(election, key);
	}

	@Override
	public Set<Integer> ownedShards(String election) {
		List<Election> sharded = this.shards.get(election);
		if (sharded == null) {
			return LeaderElector.super.ownedShards(election);
		}
		Set<Integer> owned = new TreeSet<>();
		for (int index = 0; index < sharded.size(); index++) {
			if (sharded.get(index).isLeader()) {
				owned.add(index);
			}
		}
		return owned;
	}

	@Override
	public LeaderStatus status(String election, String key) {
		Election shard = shardOfKey(election, key);
		return (shard != null) ? shard.status() : LeaderElector.super.status(election, key);
	}

	/** The shard of the sharded election that the key belongs to; {@code null} when the election is not sharded. */
	private Election shardOfKey(String election, String key) {
		List<Election> sharded = this.shards.get(election);
		return (sharded != null) ? sharded.get(Shard.of(key, sharded.size())) : null;
	}

	/** The names of the shards of the given sharded election, in order; empty when it is not sharded. */
	public List<String> shardNames(String election) {
		return this.shards.getOrDefault(election, List.of())
			.stream()
			.map((shard) -> shard.settings().name())
			.toList();
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

	/**
	 * Starts a run of a job that runs at most once per window across the replicas, on the leader
	 * of the election (for a sharded election, of the shard the key belongs to): unless the job's
	 * last run started less than {@code atLeast} ago, or may still be running (it started less
	 * than {@code atMost} ago and has not ended), the start is written into the Lease under the
	 * current term, by a write at the version the term holds, which a deposed leader's fails. The
	 * run is handed out once that write succeeded with the gate still open; a start written but
	 * not handed out (the gate closed meanwhile, or the process died) counts as a run. Whoever
	 * runs the job registers it as leader work until {@link WindowedRun#end()}, so that no release
	 * comes before; a renewed Lease is needed, so an election running for life hands out none.
	 * @param key for a sharded election, the key whose shard's leader runs the job; ignored otherwise
	 * @return completes with the run, or with empty when this instance does not lead, or the
	 * job's window is closed
	 * @throws UnknownElectionException if no election of that name is configured
	 */
	public CompletableFuture<Optional<WindowedRun>> startInWindow(String election, String key, String job,
			Duration atLeast, Duration atMost) {
		Election shard = shardOfKey(election, key);
		return ((shard != null) ? shard : election(election)).windows().startInWindow(job, atLeast, atMost);
	}

	/**
	 * Where a once-per-window job of the election, or of one of its shards by the shard's name,
	 * stands on this replica's monotonic clock; empty when no run of it is known here.
	 * @throws UnknownElectionException if no election or shard of that name is configured
	 */
	public Optional<WindowTimes> windowTimes(String election, String job) {
		return election(election).windows().times(job);
	}

	@Override
	public List<WindowStatus> windows(String election) {
		List<Election> sharded = this.shards.get(election);
		List<Election> elections = (sharded != null) ? sharded : List.of(election(election));
		List<WindowStatus> windows = new ArrayList<>();
		elections.forEach((each) -> windows.addAll(each.windows().statuses()));
		return windows;
	}

	@Override
	public void stepDown(String election) {
		election(election).stepDown();
	}

	@Override
	public StepDown stepDown(String name, Duration wait) {
		Election election = election(name);
		StepDown started = election.stepDown();
		if (started.release() != StepDown.Release.WAITING_FOR_CALLS) {
			return started;
		}
		try {
			election.pendingRelease().get(wait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// still waiting: tell how far it got
		}
		return election.lastStepDown();
	}

	/** The election of that name; package-private for the deterministic simulation's gate probe. */
	Election election(String name) {
		Election election = this.elections.get(name);
		if (election == null && this.shards.containsKey(name)) {
			throw UnknownElectionException.sharded(name, shardNames(name), this.elections.keySet());
		}
		if (election == null) {
			throw new UnknownElectionException(name, this.elections.keySet());
		}
		return election;
	}

}
