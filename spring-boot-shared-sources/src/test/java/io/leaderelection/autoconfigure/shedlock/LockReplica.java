package io.leaderelection.autoconfigure.shedlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.autoconfigure.window.WindowedStarts.Outcome;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionRuntime;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

import static org.awaitility.Awaitility.await;

/**
 * One replica of an application taking ShedLock's locks: its own engine, threads and client on
 * the CRUD mock server, its leader work, and the provider under test on that engine. Its wall
 * clock may be shifted; ShedLock's clock is the JVM's, which a test shifts with
 * {@link ClockProvider#setClock} while it acts as this replica.
 */
final class LockReplica implements AutoCloseable {

	static final Duration WAIT = Duration.ofSeconds(15);

	final String identity;

	final ElectionEngine engine;

	final ElectionLockProvider provider;

	private final LeaderElectionThreads threads;

	private final KubernetesClient client;

	private final KubernetesLeaseStores stores;

	private final LeaderOnlyRegistry registry;

	private final String lockElection;

	/** The proxy between its client and the server, for a replica that can be cut off; else {@code null}. */
	private final TcpCrusher proxy;

	private final NioReactor reactor;

	private boolean killed;

	private LockReplica(String identity, CrudKubernetesServer server, List<ElectionSettings> elections,
			String lockElection, Duration wallClockOffset, boolean proxied) {
		this.identity = identity;
		this.threads = new LeaderElectionThreads();
		if (proxied) {
			this.reactor = newReactor();
			this.proxy = TcpCrusherBuilder.builder()
				.withReactor(this.reactor)
				.withBindAddress("127.0.0.1", freePort())
				.withConnectAddress("127.0.0.1", server.port())
				.buildAndOpen();
			this.client = server.newClientThrough(this.proxy.getBindAddress().getPort());
		}
		else {
			this.reactor = null;
			this.proxy = null;
			this.client = server.newClient();
		}
		this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
		ElectionRuntime system = this.threads.runtime();
		ElectionRuntime runtime = new ElectionRuntime(system.scheduler(), system.monotonicClock(),
				Clock.offset(system.wallClock(), wallClockOffset), system.callbackExecutor(), system.random());
		this.registry = new LeaderOnlyRegistry(new LeaderOnlyInvocations());
		// short drains: a test that leaves a lock held on purpose does not hold up the next one
		this.engine = new ElectionEngine(identity, elections, this.stores, runtime, List.of(), this.registry,
				Duration.ofSeconds(3));
		this.lockElection = lockElection;
		this.provider = newProvider();
		this.engine.start();
	}

	/** Another provider on this replica's elector and leader work, as a context started anew makes it. */
	ElectionLockProvider newProvider() {
		return new ElectionLockProvider(new WindowedStarts(this.engine, this.registry),
				LockElection.of(this.engine, this.lockElection), this.threads.runtime().scheduler());
	}

	/** A replica campaigning in the given elections, taking locks in the first. */
	static LockReplica start(String identity, CrudKubernetesServer server, List<ElectionSettings> elections) {
		return start(identity, server, elections, Duration.ZERO);
	}

	/** A replica whose wall clock is off by the given offset. */
	static LockReplica start(String identity, CrudKubernetesServer server, List<ElectionSettings> elections,
			Duration wallClockOffset) {
		return new LockReplica(identity, server, elections, lockElection(elections), wallClockOffset, false);
	}

	/** A replica whose traffic to the server goes through a proxy that can be frozen. */
	static LockReplica proxied(String identity, CrudKubernetesServer server, List<ElectionSettings> elections) {
		return new LockReplica(identity, server, elections, lockElection(elections), Duration.ZERO, true);
	}

	private static String lockElection(List<ElectionSettings> elections) {
		return (elections.get(0).shard() != null) ? elections.get(0).shard().election() : elections.get(0).name();
	}

	/** From now on its requests and the server's answers stay in the proxy, connections open. */
	void blackHole() {
		this.proxy.freeze();
	}

	void restoreNetwork() {
		this.proxy.unfreeze();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static NioReactor newReactor() {
		try {
			return new NioReactor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	LeaderElector elector() {
		return this.engine;
	}

	boolean leads(String election) {
		return this.engine.isLeader(election);
	}

	LockReplica awaitLeading(String election) {
		await().atMost(WAIT).until(() -> leads(election));
		return this;
	}

	/** Asks for the lock as ShedLock does, with its times from ShedLock's clock now. */
	Optional<SimpleLock> lock(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return this.provider.lock(new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor));
	}

	/** Takes the lock, which must be granted; if not, says what this replica saw. */
	SimpleLock take(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return take(new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor));
	}

	/** Takes the lock, which must be granted; if not, says what this replica saw. */
	SimpleLock take(LockConfiguration configuration) {
		return this.provider.lock(configuration)
			.orElseThrow(() -> new AssertionError("Lock '" + configuration.getName() + "' refused on "
					+ this.identity + ": " + outcomes() + ", " + this.engine.statuses().values()));
	}

	/** How many locks this replica's provider granted and refused, per election and outcome. */
	Map<String, Map<Outcome, Long>> outcomes() {
		Map<String, Map<Outcome, Long>> outcomes = new LinkedHashMap<>();
		for (String election : this.provider.counts().elections()) {
			Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
			for (Outcome outcome : Outcome.values()) {
				counts.put(outcome, this.provider.counts().count(election, outcome));
			}
			outcomes.put(election, counts);
		}
		return outcomes;
	}

	long fencingToken(String election) {
		return this.engine.status(election).fencingToken();
	}

	/** Stops as a crashed process does: nothing more is written, nothing released. */
	void kill() throws InterruptedException {
		this.killed = true;
		this.threads.close();
		this.stores.close();
	}

	@Override
	public void close() throws Exception {
		if (!this.killed) {
			// no release: the locks a test left held must not hold up its end
			this.engine.stop(false);
			kill();
		}
		this.client.close();
		if (this.proxy != null) {
			this.proxy.close();
			this.reactor.close();
		}
	}

}
