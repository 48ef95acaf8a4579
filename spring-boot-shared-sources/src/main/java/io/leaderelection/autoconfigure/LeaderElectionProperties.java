package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.leaderelection.engine.ElectionSettings;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of Kubernetes Lease leader election.
 */
@ConfigurationProperties(LeaderElectionProperties.PREFIX)
public class LeaderElectionProperties {

	public static final String PREFIX = "leader.election";

	/**
	 * Whether to take part in leader election through Kubernetes; false is the same as mode=standalone.
	 */
	private boolean enabled = true;

	/**
	 * How this instance leads: 'lease' campaigns through renewed Kubernetes Leases, 'for-life' holds a lock owned by its Pod until the Pod ends, 'standalone' leads every election alone.
	 */
	private Mode mode = Mode.LEASE;

	/**
	 * Name of the default election's Lease. Defaults to '${spring.application.name}-leader'.
	 */
	private String leaseName;

	/**
	 * Namespace of the Leases. Defaults to $POD_NAMESPACE, then the service account's namespace,
	 * then the Kubernetes client's namespace, then 'default'.
	 */
	private String namespace;

	/**
	 * Candidate identity written as the Lease's holderIdentity. Defaults to $POD_NAME, else
	 * $HOSTNAME, else the host name, plus '_' and a random suffix.
	 */
	private String identity;

	/**
	 * How long followers wait, on their own clocks, for a Lease that is not renewed before they take it.
	 */
	private Duration leaseDuration = ElectionSettings.DEFAULT_LEASE_DURATION;

	/**
	 * How long the leader leads without a successful renewal; must be shorter than the lease duration.
	 */
	private Duration renewDeadline = ElectionSettings.DEFAULT_RENEW_DEADLINE;

	/**
	 * Interval between followers' attempts, and between a leader's retries after a failed renewal; must be shorter than the renew deadline.
	 */
	private Duration retryPeriod = ElectionSettings.DEFAULT_RETRY_PERIOD;

	/**
	 * How often the leader renews its Lease; at least the retry period and shorter than the renew deadline. Defaults to half the renew deadline, or the retry period when that is longer.
	 */
	private Duration renewPeriod;

	/**
	 * Whether to campaign only while the application accepts traffic (its readiness state): a leader whose readiness turns to refusing steps down, draining its leader-only work and releasing, and campaigns again once ready.
	 */
	private boolean campaignWhenReady = true;

	/**
	 * Whether to drain leader-only work and release held Leases when the application context closes, or stops accepting traffic with campaign-when-ready.
	 */
	private boolean releaseOnShutdown = true;

	/**
	 * What to do when leadership is lost: rejoin as a candidate, or exit the application with a non-zero code.
	 */
	private OnLost onLost = OnLost.REJOIN;

	/**
	 * Further elections by name, each with its own Lease (or one per shard with 'shards'); unset values inherit the default election's, but for config-map-migration's enabled and role.
	 */
	private Map<String, Election> elections = new LinkedHashMap<>();

	/**
	 * Whether to spread the application's unsharded lease-mode elections, the default one included, over the replicas instead of letting one replica lead them all.
	 */
	private boolean balance;

	/**
	 * What to do when, at start, the API server says the service account may not do something the configured features need: 'fail' the start naming each missing rule, 'warn' (log each, health DOWN, the elector still runs), or 'off' (ask nothing).
	 */
	private PermissionCheck permissionCheck = PermissionCheck.FAIL;

	private final Events events = new Events();

	private final ExitTakeover exitTakeover = new ExitTakeover();

	private final ForLife forLife = new ForLife();

	private final ConfigMapMigration configMapMigration = new ConfigMapMigration();

	private final ShedLock shedlock = new ShedLock();

	// ---- routing: the leader-only Service and Pod label

	private final Routing routing = new Routing();

	public Routing getRouting() {
		return this.routing;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Mode getMode() {
		return this.mode;
	}

	public void setMode(Mode mode) {
		this.mode = mode;
	}

	/** The mode in effect: standalone when switched off, else the configured one. */
	public Mode effectiveMode() {
		return this.enabled ? this.mode : Mode.STANDALONE;
	}

	public String getLeaseName() {
		return this.leaseName;
	}

	public void setLeaseName(String leaseName) {
		this.leaseName = leaseName;
	}

	public String getNamespace() {
		return this.namespace;
	}

	public void setNamespace(String namespace) {
		this.namespace = namespace;
	}

	public String getIdentity() {
		return this.identity;
	}

	public void setIdentity(String identity) {
		this.identity = identity;
	}

	public Duration getLeaseDuration() {
		return this.leaseDuration;
	}

	public void setLeaseDuration(Duration leaseDuration) {
		this.leaseDuration = leaseDuration;
	}

	public Duration getRenewDeadline() {
		return this.renewDeadline;
	}

	public void setRenewDeadline(Duration renewDeadline) {
		this.renewDeadline = renewDeadline;
	}

	public Duration getRetryPeriod() {
		return this.retryPeriod;
	}

	public void setRetryPeriod(Duration retryPeriod) {
		this.retryPeriod = retryPeriod;
	}

	public Duration getRenewPeriod() {
		return this.renewPeriod;
	}

	public void setRenewPeriod(Duration renewPeriod) {
		this.renewPeriod = renewPeriod;
	}

	public boolean isCampaignWhenReady() {
		return this.campaignWhenReady;
	}

	public void setCampaignWhenReady(boolean campaignWhenReady) {
		this.campaignWhenReady = campaignWhenReady;
	}

	public boolean isReleaseOnShutdown() {
		return this.releaseOnShutdown;
	}

	public void setReleaseOnShutdown(boolean releaseOnShutdown) {
		this.releaseOnShutdown = releaseOnShutdown;
	}

	public OnLost getOnLost() {
		return this.onLost;
	}

	public void setOnLost(OnLost onLost) {
		this.onLost = onLost;
	}

	public PermissionCheck getPermissionCheck() {
		return this.permissionCheck;
	}

	public void setPermissionCheck(PermissionCheck permissionCheck) {
		this.permissionCheck = permissionCheck;
	}

	public Map<String, Election> getElections() {
		return this.elections;
	}

	public ForLife getForLife() {
		return this.forLife;
	}

	public ConfigMapMigration getConfigMapMigration() {
		return this.configMapMigration;
	}

	public Events getEvents() {
		return this.events;
	}

	public ExitTakeover getExitTakeover() {
		return this.exitTakeover;
	}

	public ShedLock getShedlock() {
		return this.shedlock;
	}

	public void setElections(Map<String, Election> elections) {
		this.elections = elections;
	}

	public boolean isBalance() {
		return this.balance;
	}

	public void setBalance(boolean balance) {
		this.balance = balance;
	}

	/**
	 * A named election.
	 */
	public static class Election {

		/**
		 * Name of this election's Lease. Defaults to '${spring.application.name}-NAME-leader'.
		 */
		private String leaseName;

		/**
		 * Lease duration of this election. Defaults to leader.election.lease-duration.
		 */
		private Duration leaseDuration;

		/**
		 * Renew deadline of this election. Defaults to leader.election.renew-deadline.
		 */
		private Duration renewDeadline;

		/**
		 * Retry period of this election. Defaults to leader.election.retry-period.
		 */
		private Duration retryPeriod;

		/**
		 * Renew period of this election. Defaults to leader.election.renew-period, else half this election's renew deadline or its retry period, whichever is longer.
		 */
		private Duration renewPeriod;

		private final ConfigMapMigration configMapMigration = new ConfigMapMigration();

		// ---- routing of this election

		private final Routing routing = new Routing();

		public Routing getRouting() {
			return this.routing;
		}

		/**
		 * How this election campaigns, 'lease' or 'for-life'. Defaults to leader.election.mode.
		 */
		private Mode mode;

		/**
		 * How many shards to split this election into, each led on its own Lease named '<lease-name>-<index>-of-<shards>'; 1 does not split it.
		 */
		private int shards = 1;

		/**
		 * Whether to spread the shards over the replicas, none holding more than its share; false lets every replica claim whichever shard is free. Defaults to true for a sharded election.
		 */
		private Boolean balance;

		public int getShards() {
			return this.shards;
		}

		public void setShards(int shards) {
			this.shards = shards;
		}

		public Boolean getBalance() {
			return this.balance;
		}

		public void setBalance(Boolean balance) {
			this.balance = balance;
		}

		public Mode getMode() {
			return this.mode;
		}

		public void setMode(Mode mode) {
			this.mode = mode;
		}

		public String getLeaseName() {
			return this.leaseName;
		}

		public void setLeaseName(String leaseName) {
			this.leaseName = leaseName;
		}

		public Duration getLeaseDuration() {
			return this.leaseDuration;
		}

		public void setLeaseDuration(Duration leaseDuration) {
			this.leaseDuration = leaseDuration;
		}

		public Duration getRenewDeadline() {
			return this.renewDeadline;
		}

		public void setRenewDeadline(Duration renewDeadline) {
			this.renewDeadline = renewDeadline;
		}

		public Duration getRetryPeriod() {
			return this.retryPeriod;
		}

		public void setRetryPeriod(Duration retryPeriod) {
			this.retryPeriod = retryPeriod;
		}

		public Duration getRenewPeriod() {
			return this.renewPeriod;
		}

		public void setRenewPeriod(Duration renewPeriod) {
			this.renewPeriod = renewPeriod;
		}

		public ConfigMapMigration getConfigMapMigration() {
			return this.configMapMigration;
		}

	}

	/**
	 * Leader-for-life elections.
	 */
	public static class ForLife {

		/**
		 * How long the Node of a for-life leader's Pod must have been seen NotReady before followers take over. Defaults to never: a leader on a partitioned Node may still run.
		 */
		private Duration notReadyNodeTakeover;

		public Duration getNotReadyNodeTakeover() {
			return this.notReadyNodeTakeover;
		}

		public void setNotReadyNodeTakeover(Duration notReadyNodeTakeover) {
			this.notReadyNodeTakeover = notReadyNodeTakeover;
		}

	}

	/**
	 * Migration from spring-cloud-kubernetes' ConfigMap leader: the election also takes part in the old protocol, and leads only while it holds both its Lease and the old key. The top-level block migrates the default election, which stands for the old application's one leader; a named election takes part only with its own enabled, and inherits config-map-name and key-prefix from the top-level block.
	 */
	public static class ConfigMapMigration {

		/**
		 * Whether the election takes part in spring-cloud-kubernetes' ConfigMap leader election while replicas on it still run: leader.election.config-map-migration.enabled for the default election only, leader.election.elections.NAME.config-map-migration.enabled for election NAME. Defaults to false.
		 */
		private Boolean enabled;

		/**
		 * Name of the ConfigMap the old replicas keep their leader in. Defaults to spring.cloud.kubernetes.leader.config-map-name, else 'leaders'; a named election's defaults to leader.election.config-map-migration.config-map-name.
		 */
		private String configMapName;

		/**
		 * Prefix of the ConfigMap key naming the leader, followed by the role. Defaults to spring.cloud.kubernetes.leader.leader-id-prefix, else 'leader.id.'; a named election's defaults to leader.election.config-map-migration.key-prefix.
		 */
		private String keyPrefix;

		/**
		 * Role the old replicas elect a leader for. Defaults to spring.cloud.kubernetes.leader.role, else 'leader' (spring-cloud-kubernetes' own default), for the default election; to the election's name for a named one.
		 */
		private String role;

		public Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(Boolean enabled) {
			this.enabled = enabled;
		}

		public String getConfigMapName() {
			return this.configMapName;
		}

		public void setConfigMapName(String configMapName) {
			this.configMapName = configMapName;
		}

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		public String getRole() {
			return this.role;
		}

		public void setRole(String role) {
			this.role = role;
		}

	}

	// ---- routing: the leader-only Service and Pod label

	/**
	 * Leader-only traffic: an EndpointSlice naming the election's leader alone, for a Service without selector, and a label on each replica's Pod telling whether it leads. The top-level block routes the default election and gives the other elections' defaults, but for the Service, which each election names on its own.
	 */
	public static class Routing {

		/**
		 * Name of a Service without selector, in the Leases' namespace, whose EndpointSlice (of the same name) names only the election's leader. Defaults to none, no EndpointSlice; a named election's is never inherited.
		 */
		private String service;

		/**
		 * This replica's IPv4 or IPv6 address in the EndpointSlice. Defaults to leader.election.routing.address for a named election, else $POD_IP, set from the downward API (status.podIP).
		 */
		private String address;

		/**
		 * Ports of this replica in the EndpointSlice, by name: each port of the Service reaches the port of its own name. Defaults to leader.election.routing.ports for a named election, else the web server's port, named 'http'.
		 */
		private Map<String, String> ports = new LinkedHashMap<>();

		/**
		 * Whether to label this replica's Pod leaderelection.io/<election>: leader or follower; needs 'patch' on 'pods'. Defaults to leader.election.routing.pod-label for a named election, else true for an election with a Service and false otherwise.
		 */
		private Boolean podLabel;

		public String getService() {
			return this.service;
		}

		public void setService(String service) {
			this.service = service;
		}

		public String getAddress() {
			return this.address;
		}

		public void setAddress(String address) {
			this.address = address;
		}

		public Map<String, String> getPorts() {
			return this.ports;
		}

		public void setPorts(Map<String, String> ports) {
			this.ports = ports;
		}

		public Boolean getPodLabel() {
			return this.podLabel;
		}

		public void setPodLabel(Boolean podLabel) {
			this.podLabel = podLabel;
		}

	}


	/**
	 * Kubernetes Events on the Leases.
	 */
	public static class Events {

		/**
		 * Whether to record a Kubernetes Event on an election's Lease when this replica becomes leader, steps down or stops leading.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Takeover of a lease-mode Lease as soon as the kubelet reports its holder's process ended, instead of a lease duration later.
	 */
	public static class ExitTakeover {

		/**
		 * Whether, in a Pod (POD_NAME and POD_NAMESPACE set) with 'get' and 'watch' on 'pods', to name this replica's container run in the Leases it holds, and to take a Lease over at once when its holder's Pod status reports that run terminated or restarted.
		 */
		private boolean enabled = true;

		/**
		 * The container this process runs in, for a Pod with several (sidecars). Defaults to the Pod's only container; among several unnamed, the Leases name no run and are waited out.
		 */
		private String container;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getContainer() {
			return this.container;
		}

		public void setContainer(String container) {
			this.container = container;
		}

	}

	/**
	 * ShedLock's locks, with net.javacrumbs.shedlock on the class path and no LockProvider bean of the application's.
	 */
	public static class ShedLock {

		/**
		 * Election whose leader takes ShedLock's locks, each recorded in its Lease; for a sharded election, each lock on the leader of the shard its name maps to.
		 */
		private String election = "default";

		public String getElection() {
			return this.election;
		}

		public void setElection(String election) {
			this.election = election;
		}

	}

	/**
	 * How this instance leads.
	 */
	public enum Mode {

		/**
		 * Campaign with the other replicas through Kubernetes Leases.
		 */
		LEASE,

		/**
		 * Leader for life: the leader's lock is a Lease owned by its Pod, never renewed, and taken
		 * over only when that Pod is gone (deleted, evicted, failed or completed). Never two
		 * leaders for a pause or a partition; a failover waits for the Pod's end.
		 */
		FOR_LIFE,

		/**
		 * Lead every election without calling Kubernetes, for local runs, tests and single-instance
		 * deployments: the same gate, events, gated beans, endpoint, health and metrics, on Leases
		 * kept in memory that no other process can take.
		 */
		STANDALONE

	}

	/**
	 * What to do about the permissions the API server denies at start.
	 */
	public enum PermissionCheck {

		/**
		 * Fail the start naming each missing permission, the feature that needs it and the Role
		 * rule to add; a missing optional one is logged.
		 */
		FAIL,

		/**
		 * Log each missing permission and report health DOWN while the elector runs.
		 */
		WARN,

		/**
		 * Ask the API server nothing.
		 */
		OFF

	}

	/**
	 * What happens when leadership is lost.
	 */
	public enum OnLost {

		/**
		 * Become a candidate again without restarting.
		 */
		REJOIN,

		/**
		 * Close the application context and exit the JVM with status 1.
		 */
		EXIT

	}

}
