package io.leaderelection.autoconfigure.permissions;

import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionLifecycle;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.LeaderElectionProperties.PermissionCheck;
import io.leaderelection.autoconfigure.LeaderElectionProperties.Routing;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.kubernetes.ElectorFeature;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import io.leaderelection.kubernetes.Permission;
import io.leaderelection.kubernetes.PermissionReview;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.StringUtils;

/**
 * Asks the API server, once at start and before anything of the elector's starts, whether the
 * elector may do what its configured features need ({@code leader.election.permission-check}):
 * {@code fail} fails the start naming each missing permission, {@code warn} logs each one and
 * keeps them for the health contributor, {@code off} asks nothing. A missing optional permission
 * is logged either way. A review that gets no verdict (an unreachable server, a refused review, a
 * server without the API) fails nothing: it is logged once, and the elector's own health tells
 * whether the server can be reached.
 */
public class LeaderElectionPermissions implements SmartLifecycle {

	/** Before the routes ({@code LeaderElectionLifecycle.PHASE - 1}), which label the Pod and read the Service. */
	static final int PHASE = LeaderElectionLifecycle.PHASE - 2;

	private static final Logger logger = LoggerFactory.getLogger(LeaderElectionPermissions.class);

	private final KubernetesLeaseStores stores;

	private final List<Permission> needed;

	private final PermissionCheck mode;

	private final Duration timeout;

	/** The permissions denied at start. */
	private volatile List<Permission> missing = List.of();

	private volatile boolean running;

	/** Whether the check has run; guarded by this. */
	private boolean checked;

	/**
	 * @param needed what the configured features need
	 * @param timeout how long each review may take
	 */
	LeaderElectionPermissions(KubernetesLeaseStores stores, List<Permission> needed, PermissionCheck mode,
			Duration timeout) {
		this.stores = stores;
		this.needed = List.copyOf(needed);
		this.mode = mode;
		this.timeout = timeout;
	}

	/**
	 * The features each namespace's elections use: those their settings give, Kubernetes Events
	 * when recorded, and routing when routes are kept, by each election's own routing block or
	 * else the top-level one, as the routing properties read, and exit takeover in the namespace
	 * of the replica's Pod.
	 * @param events whether Events are recorded
	 * @param routes whether the routes to the leaders are kept
	 * @param exitTakeoverNamespace the namespace of the replica's Pod, where exit takeover reads
	 * Pods; {@code null} when it is off
	 */
	static Map<String, Set<ElectorFeature>> features(LeaderElectionSettings settings,
			LeaderElectionProperties properties, boolean events, boolean routes, String exitTakeoverNamespace) {
		Map<String, Set<ElectorFeature>> features = new LinkedHashMap<>();
		if (exitTakeoverNamespace != null && settings.elections().stream().anyMatch((election) -> election.forLife() == null)) {
			features.put(exitTakeoverNamespace, EnumSet.of(ElectorFeature.EXIT_TAKEOVER));
		}
		for (ElectionSettings election : settings.elections()) {
			Set<ElectorFeature> used = features.computeIfAbsent(election.namespace(),
					(namespace) -> EnumSet.noneOf(ElectorFeature.class));
			used.addAll(ElectorFeature.of(election));
			if (events) {
				used.add(ElectorFeature.EVENTS);
			}
			if (routes) {
				Routing top = properties.getRouting();
				String configured = (election.shard() != null) ? election.shard().election() : election.name();
				LeaderElectionProperties.Election named = properties.getElections().get(configured);
				Routing own = (LeaderElector.DEFAULT_ELECTION.equals(configured) || named == null) ? top
						: named.getRouting();
				boolean service = StringUtils.hasText(own.getService());
				Boolean podLabel = (own.getPodLabel() != null) ? own.getPodLabel() : top.getPodLabel();
				if (service) {
					used.add(ElectorFeature.ROUTING_SERVICE);
				}
				if ((podLabel != null) ? podLabel : service) {
					used.add(ElectorFeature.ROUTING_POD_LABEL);
				}
			}
		}
		return features;
	}

	@Override
	public synchronized void start() {
		if (!this.checked) {
			this.checked = true;
			if (this.mode != PermissionCheck.OFF) {
				check();
			}
		}
		this.running = true;
	}

	private void check() {
		PermissionReview.Result result;
		try {
			result = this.stores.reviewPermissions(this.needed, this.timeout)
				.get(this.timeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Leader election could not check its permissions at start ({}); it starts without that check",
					ex.toString());
			return;
		}
		if (!result.unanswered().isEmpty()) {
			logger.warn("Leader election could not check {} of its {} permissions at start ({}); it starts without "
					+ "knowing them", result.unanswered().size(), result.asked(),
					result.unanswered().values().iterator().next());
		}
		List<Permission> required = result.missing().stream().filter((permission) -> !permission.optional()).toList();
		if (!required.isEmpty() && this.mode == PermissionCheck.FAIL) {
			throw new MissingLeaderElectionPermissionsException(required);
		}
		for (Permission permission : result.missing()) {
			String consequence = permission.optional() ? permission.withoutIt()
					: "it runs without it, its health DOWN (" + LeaderElectionProperties.PREFIX + ".permission-check=warn)";
			logger.warn("Leader election may not {}: {}; grant it with the {} rule {}", permission.describe(),
					consequence, (permission.namespace() != null) ? "Role" : "ClusterRole",
					permission.rule().yamlLine());
		}
		this.missing = result.missing();
	}

	/** The permissions the API server denied at start, optional ones included; empty until checked. */
	public List<Permission> missing() {
		return this.missing;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
