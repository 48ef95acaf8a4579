package io.leaderelection.migration;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.RevocationCause;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;

/**
 * One replica of an application on this starter, in migration mode from spring-cloud-kubernetes'
 * ConfigMap leader ({@code leader.election.config-map-migration.enabled=true}): a Spring context
 * of its own holding {@link LeaderElectionAutoConfiguration}, as an {@code ApplicationContextRunner}
 * builds one (the configuration registered on an {@link AnnotationConfigApplicationContext} with
 * what the replica's Deployment sets first in its environment, then the application's own
 * configuration), but kept running until the test stops or kills it. Its {@link KubernetesClient} bean is a client of its own on the
 * {@link MigrationApiServer}, and {@code POD_NAME} names its Pod, which the test creates and whose
 * readiness it flips.
 * <p>
 * Its leadership, of the default election (the one migrating), is what an {@link ElectionListener}
 * bean is told: a term from
 * {@code granted(..., gateOpenedAt)} to {@code revoked(..., gateClosedAt)}, on the engine's
 * monotonic clock ({@link System#nanoTime()} in production, as the {@link LeadershipIntervals}
 * the old replicas report to), recorded under its Pod's name.
 */
public final class NewProtocolReplica implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(NewProtocolReplica.class);

	/** The election a migration is configured for here: the default one. */
	public static final String ELECTION = LeaderElector.DEFAULT_ELECTION;

	/** How long stopping waits for the engine's stop (gate closed, drained, key removed, released). */
	private static final Duration STOP_WAIT = Duration.ofSeconds(10);

	private final Settings settings;

	private final LeadershipIntervals intervals;

	private final KubernetesClient client;

	private final List<RevocationCause> revocations = new CopyOnWriteArrayList<>();

	private final AtomicInteger grants = new AtomicInteger();

	private volatile long lastGateOpenedAt;

	private volatile long lastGateClosedAt;

	private volatile AnnotationConfigApplicationContext context;

	private volatile ElectionEngine engine;

	private volatile boolean ended;

	private NewProtocolReplica(Settings settings, KubernetesClient client, LeadershipIntervals intervals) {
		this.settings = settings;
		this.client = client;
		this.intervals = intervals;
	}

	/**
	 * Starts a replica in its Pod (which must exist: a replica whose Pod is not found takes no
	 * leadership), on its own client from the server; it campaigns as its context starts.
	 */
	public static NewProtocolReplica start(MigrationApiServer server, Settings settings,
			LeadershipIntervals intervals) {
		KubernetesClient client = server.newClient(settings.namespace(), null, settings.podName());
		NewProtocolReplica replica = new NewProtocolReplica(settings, client, intervals);
		replica.startContext();
		return replica;
	}

	private void startContext() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.setId(name());
		MutablePropertySources sources = context.getEnvironment().getPropertySources();
		sources.addFirst(new MapPropertySource("replica-" + name(), this.settings.properties()));
		String above = "replica-" + name();
		for (PropertySource<?> source : this.settings.application()) {
			sources.addAfter(above, source);
			above = source.getName();
		}
		context.registerBean("kubernetesClient", KubernetesClient.class, () -> this.client);
		context.registerBean("gateRecorder", ElectionListener.class, () -> new GateRecorder());
		context.register(LeaderElectionAutoConfiguration.class);
		context.refresh();
		this.context = context;
		this.engine = context.getBean(ElectionEngine.class);
	}

	/**
	 * Stops it as the application's shutdown does: the context closes, and with it the
	 * lifecycle stops the engine, which closes the gate, drains, removes the key if it still
	 * names this replica's Pod, and releases the Lease.
	 */
	public void stop() {
		if (this.ended) {
			return;
		}
		this.ended = true;
		this.context.close();
		this.intervals.ended(name());
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * Ends it as a crash of its process would, as far as the API server sees it: its engine
	 * stops without releasing (the gate closes, and neither the key nor the Lease is written
	 * again: the key keeps naming its Pod and the Lease expires), then its context closes.
	 */
	public void kill() {
		if (this.ended) {
			return;
		}
		this.ended = true;
		try {
			this.engine.stop(false).get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
			this.engine.awaitLeadership(ELECTION, false, STOP_WAIT);
		}
		catch (Exception ex) {
			logger.warn("{}: its engine did not stop in time", name(), ex);
		}
		this.context.close();
		this.intervals.ended(name());
	}

	/** Whether its gate is open, as its engine tells; never once it was killed or stopped. */
	public boolean isLeader() {
		return !this.ended && this.engine.isLeader(ELECTION);
	}

	public Settings settings() {
		return this.settings;
	}

	/** Its Pod's name: its {@code POD_NAME}, what it writes into the key, its holder name. */
	public String name() {
		return this.settings.podName();
	}

	public ElectionEngine engine() {
		return this.engine;
	}

	/** Why its terms ended, in order. */
	public List<RevocationCause> revocations() {
		return List.copyOf(this.revocations);
	}

	/** How many terms it began. */
	public int grants() {
		return this.grants.get();
	}

	/** When its gate last opened, on {@link System#nanoTime()}; 0 if it never did. */
	public long lastGateOpenedAt() {
		return this.lastGateOpenedAt;
	}

	/** When its gate last closed, on {@link System#nanoTime()}; 0 if it never did. */
	public long lastGateClosedAt() {
		return this.lastGateClosedAt;
	}

	public boolean hasEnded() {
		return this.ended;
	}

	@Override
	public String toString() {
		return name() + (this.ended ? " (ended)" : isLeader() ? " (leader)" : "");
	}

	/** Tells the recorder of every replica's terms what this replica's gate does. */
	private final class GateRecorder implements ElectionListener {

		@Override
		public void granted(String election, long fencingToken, long gateOpenedAt) {
			if (!ELECTION.equals(election)) {
				return;
			}
			NewProtocolReplica.this.lastGateOpenedAt = gateOpenedAt;
			NewProtocolReplica.this.grants.incrementAndGet();
			NewProtocolReplica.this.intervals.granted(name(), gateOpenedAt);
			logger.info("{}: gate opened (fencing token {})", name(), fencingToken);
		}

		@Override
		public void revoked(String election, RevocationCause cause, long gateClosedAt) {
			if (!ELECTION.equals(election)) {
				return;
			}
			// the term first: a test that saw the revocation finds the term closed
			NewProtocolReplica.this.intervals.revoked(name(), gateClosedAt);
			NewProtocolReplica.this.lastGateClosedAt = gateClosedAt;
			NewProtocolReplica.this.revocations.add(cause);
			logger.info("{}: gate closed ({})", name(), cause);
		}

	}

	/**
	 * What a replica is configured with.
	 * @param namespace its Pod's, the Lease's and the ConfigMap's namespace
	 * @param podName its Pod's name ({@code POD_NAME})
	 * @param application the application's own configuration, in order of precedence, below what
	 * its Deployment sets: the namespace, the identity, {@code POD_NAME} and the timings
	 * @param leaseDuration {@code leader.election.lease-duration}
	 * @param renewDeadline {@code leader.election.renew-deadline}
	 * @param retryPeriod {@code leader.election.retry-period}
	 */
	public record Settings(String namespace, String podName, List<PropertySource<?>> application,
			Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {

		/**
		 * An application of the default election alone, migrating under the old replicas' role
		 * ({@code leader.election.config-map-migration.role}).
		 */
		public static Settings of(String namespace, String podName, String role) {
			return of(namespace, podName,
					List.of(new MapPropertySource("application",
							Map.of("spring.application.name", "rollout", "leader.election.config-map-migration.enabled",
									"true", "leader.election.config-map-migration.role", role))));
		}

		/** An application with the given configuration; timings scaled down from 15 s / 10 s / 2 s. */
		public static Settings of(String namespace, String podName, List<PropertySource<?>> application) {
			return new Settings(namespace, podName, application, Duration.ofMillis(1500), Duration.ofMillis(1000),
					Duration.ofMillis(100));
		}

		public Settings withTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
			return new Settings(this.namespace, this.podName, this.application, leaseDuration, renewDeadline,
					retryPeriod);
		}

		Map<String, Object> properties() {
			Map<String, Object> properties = new LinkedHashMap<>();
			properties.put("leader.election.campaign-when-ready", "false");
			properties.put("leader.election.namespace", this.namespace);
			properties.put("leader.election.identity", this.podName + "-identity");
			properties.put("leader.election.lease-duration", this.leaseDuration.toMillis() + "ms");
			properties.put("leader.election.renew-deadline", this.renewDeadline.toMillis() + "ms");
			properties.put("leader.election.retry-period", this.retryPeriod.toMillis() + "ms");
			properties.put("POD_NAME", this.podName);
			return properties;
		}

	}

}
