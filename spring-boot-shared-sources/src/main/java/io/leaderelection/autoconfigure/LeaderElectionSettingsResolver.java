package io.leaderelection.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;
import io.leaderelection.autoconfigure.LeaderElectionProperties.Mode;
import io.leaderelection.engine.ElectionSettings;

/**
 * Resolves {@link LeaderElectionProperties} into validated {@link LeaderElectionSettings}:
 * fills in the identity, namespace and lease names, expands a sharded election into its shards and
 * rejects values the elector cannot run with, naming the property. The timings are checked by the
 * engine's own rules ({@link ElectionSettings}), whose errors this names after the properties.
 */
public final class LeaderElectionSettingsResolver {

	/** Where Kubernetes mounts the pod's namespace. */
	public static final Path SERVICE_ACCOUNT_NAMESPACE = Path
		.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

	private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

	private static final Pattern DNS_1123_SUBDOMAIN = Pattern
		.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

	private static final int MAX_IDENTITY_LENGTH = 128;

	private final UnaryOperator<String> environment;

	private final Path serviceAccountNamespace;

	/**
	 * @param environment reads environment variables (POD_NAME, HOSTNAME, POD_NAMESPACE)
	 * @param serviceAccountNamespace the file holding the pod's namespace when in a cluster
	 */
	public LeaderElectionSettingsResolver(UnaryOperator<String> environment, Path serviceAccountNamespace) {
		this.environment = environment;
		this.serviceAccountNamespace = serviceAccountNamespace;
	}

	/**
	 * @param properties the bound properties
	 * @param applicationName {@code spring.application.name}, or {@code null}
	 * @param clientNamespace the Kubernetes client's namespace, or {@code null}; asked only when
	 * nothing else names the namespace
	 */
	public LeaderElectionSettings resolve(LeaderElectionProperties properties, String applicationName,
			Supplier<String> clientNamespace) {
		String namespace = namespace(properties, clientNamespace);
		String identity = identity(properties);
		String baseName = hasText(applicationName) ? applicationName : "application";
		Elections elections = new Elections(properties, namespace, baseName);
		List<ElectionSettings> all = new ArrayList<>();
		all.add(elections.defaultElection());
		properties.getElections().forEach((name, election) -> all.addAll(elections.named(name, election)));
		return new LeaderElectionSettings(identity, all, properties.isReleaseOnShutdown(), properties.getOnLost());
	}

	/**
	 * The elections of one application, each resolved in steps, in the order their errors are
	 * reported: name, timings, Lease, mode, shards, migration.
	 */
	private final class Elections {

		private static final String PREFIX = LeaderElectionProperties.PREFIX;

		private final LeaderElectionProperties properties;

		private final String namespace;

		private final String baseName;

		private final String defaultLease;

		/** The balanced group of the application's elections; {@code null} when they are not balanced. */
		private final String balanceGroup;

		private final Timings defaultTimings;

		private final ForLifeModes forLife;

		private final Migrations migrations;

		/** The election campaigning on each Lease, the default one's included. */
		private final Map<String, String> electionByLease = new HashMap<>();

		Elections(LeaderElectionProperties properties, String namespace, String baseName) {
			this.properties = properties;
			this.namespace = namespace;
			this.baseName = baseName;
			this.defaultLease = hasText(properties.getLeaseName()) ? properties.getLeaseName() : baseName + "-leader";
			// Named after the default Lease, which no other application in the namespace has.
			this.balanceGroup = properties.isBalance() ? this.defaultLease + LeaderStatus.ELECTIONS_GROUP_SUFFIX
					: null;
			this.defaultTimings = Timings.of(properties);
			this.forLife = new ForLifeModes(properties);
			this.migrations = new Migrations(properties.getConfigMapMigration(), namespace);
			this.electionByLease.put(this.defaultLease, LeaderElector.DEFAULT_ELECTION);
		}

		ElectionSettings defaultElection() {
			ElectionSettings timed = this.defaultTimings.election(PREFIX, LeaderElector.DEFAULT_ELECTION,
					this.namespace, this.defaultLease);
			validateLeaseName(PREFIX + ".lease-name", this.defaultLease, !hasText(this.properties.getLeaseName()), "");
			ElectionMode mode = new ElectionMode(this.properties.effectiveMode(), PREFIX + ".mode");
			return balanced(this.migrations.apply(PREFIX, this.properties.getConfigMapMigration(), mode,
					this.forLife.apply(mode, timed)));
		}

		/** The named election, or its shards in the order of their index. */
		List<ElectionSettings> named(String name, LeaderElectionProperties.Election election) {
			String electionPrefix = PREFIX + ".elections." + name;
			validateElectionName(name, electionPrefix);
			boolean derivedLease = !hasText(election.getLeaseName());
			String leaseName = derivedLease ? this.baseName + "-" + name + "-leader" : election.getLeaseName();
			ElectionSettings timed = this.defaultTimings.overriddenBy(election)
				.election(electionPrefix, name, this.namespace, leaseName);
			claimLease(electionPrefix + ".lease-name", leaseName, name);
			ElectionMode mode = mode(electionPrefix, election);
			int shards = shards(electionPrefix, election, mode);
			Migrations.requireEnabledWhereSet(electionPrefix, election.getConfigMapMigration());
			validateLeaseName(electionPrefix + ".lease-name", leaseName, derivedLease, "");
			ElectionSettings settings = this.forLife.apply(mode, timed);
			if (shards == 1) {
				return List.of(balanced(
						this.migrations.apply(electionPrefix, election.getConfigMapMigration(), mode, settings)));
			}
			return sharded(electionPrefix, election, settings, shards);
		}

		/** The election's own mode, unless the application runs standalone or it sets none. */
		private ElectionMode mode(String electionPrefix, LeaderElectionProperties.Election election) {
			if (election.getMode() == Mode.STANDALONE) {
				throw new InvalidLeaderElectionPropertyException(electionPrefix + ".mode", "standalone",
						"must be 'lease' or 'for-life': standalone is for the whole application, set by " + PREFIX
								+ ".mode");
			}
			boolean ownMode = election.getMode() != null && this.properties.effectiveMode() != Mode.STANDALONE;
			return ownMode ? new ElectionMode(election.getMode(), electionPrefix + ".mode")
					: new ElectionMode(this.properties.effectiveMode(), PREFIX + ".mode");
		}

		private List<ElectionSettings> sharded(String electionPrefix, LeaderElectionProperties.Election election,
				ElectionSettings settings, int shards) {
			if (Migrations.enabled(election.getConfigMapMigration())) {
				throw new InvalidLeaderElectionPropertyException(electionPrefix + ".config-map-migration.enabled", true,
						"cannot be set on a sharded election: the ConfigMap leader elects one leader per role, and "
								+ "a sharded election has one per shard");
			}
			boolean balanceShards = !Boolean.FALSE.equals(election.getBalance());
			List<ElectionSettings> all = new ArrayList<>();
			for (int index = 0; index < shards; index++) {
				ElectionSettings shard = settings.shard(index, shards, balanceShards);
				if (this.properties.getElections().containsKey(shard.name())) {
					throw new InvalidLeaderElectionPropertyException(electionPrefix + ".shards", shards,
							"would name a shard '" + shard.name() + "', the name of the election configured by "
									+ PREFIX + ".elections." + shard.name() + "; rename one of them");
				}
				validateLeaseName(electionPrefix + ".lease-name", shard.leaseName(), !hasText(election.getLeaseName()),
						"; each shard's Lease is the lease name followed by '-<index>-of-<shards>'");
				claimLease(electionPrefix + ".lease-name", shard.leaseName(), shard.name());
				all.add(shard);
			}
			return all;
		}

		/** Records that the election campaigns on the Lease, which no other election may then use. */
		private void claimLease(String leaseNameProperty, String leaseName, String election) {
			String other = this.electionByLease.putIfAbsent(leaseName, election);
			if (other != null) {
				throw new InvalidLeaderElectionPropertyException(leaseNameProperty, leaseName,
						"must differ from the Lease of election '" + other + "'; two elections cannot share a Lease");
			}
		}

		/**
		 * The election spread over replicas in the group, when there is one; for-life elections
		 * stay out, as their locks move only when the holding Pod ends and cannot be handed over.
		 */
		private ElectionSettings balanced(ElectionSettings election) {
			return (this.balanceGroup != null && election.forLife() == null) ? election.balancedIn(this.balanceGroup)
					: election;
		}

	}

	/** An election's mode and the property that set it, which its errors name. */
	private record ElectionMode(Mode mode, String property) {

	}

	private static void validateLeaseName(String leaseNameProperty, String leaseName, boolean derived, String note) {
		if (leaseName.length() > 253 || !DNS_1123_SUBDOMAIN.matcher(leaseName).matches()) {
			throw new InvalidLeaderElectionPropertyException(leaseNameProperty, leaseName,
					"must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', starting and ending "
							+ "with a letter or digit, at most 253 characters)"
							+ (derived ? "; when unset it is derived from "
									+ "spring.application.name" : "") + note);
		}
	}

	/** The election's shard count, checked; 1 when it is not sharded. */
	private static int shards(String electionPrefix, LeaderElectionProperties.Election election, ElectionMode mode) {
		int shards = election.getShards();
		if (shards < 1) {
			throw new InvalidLeaderElectionPropertyException(electionPrefix + ".shards", shards,
					"must be at least 1; 1 leaves the election whole");
		}
		if (shards > Shard.MAX_COUNT) {
			throw new InvalidLeaderElectionPropertyException(electionPrefix + ".shards", shards,
					"must be at most " + Shard.MAX_COUNT + ", the maximum: every replica watches each shard's Lease");
		}
		if (shards > 1 && mode.mode() == Mode.FOR_LIFE) {
			throw new InvalidLeaderElectionPropertyException(electionPrefix + ".shards", shards,
					"is not supported for an election in for-life mode (set by " + mode.property() + "): a for-life "
							+ "lock moves only when its Pod ends, so its shards could not be spread; shard it in "
							+ "lease mode or leave it whole");
		}
		if (shards == 1 && election.getBalance() != null) {
			throw new InvalidLeaderElectionPropertyException(electionPrefix + ".balance", election.getBalance(),
					"applies only to a sharded election (shards greater than 1); to spread the application's "
							+ "unsharded elections over replicas, set " + LeaderElectionProperties.PREFIX
							+ ".balance");
		}
		return shards;
	}

	/**
	 * Turns the elections whose mode is for-life into leader-for-life elections, held by this
	 * replica's Pod, named by POD_NAME.
	 */
	private final class ForLifeModes {

		private final LeaderElectionProperties properties;

		private ElectionSettings.ForLife forLife;

		ForLifeModes(LeaderElectionProperties properties) {
			this.properties = properties;
		}

		ElectionSettings apply(ElectionMode mode, ElectionSettings election) {
			return (mode.mode() == Mode.FOR_LIFE) ? election.forLife(forLife(mode.property())) : election;
		}

		private ElectionSettings.ForLife forLife(String modeProperty) {
			if (this.forLife == null) {
				String podName = LeaderElectionSettingsResolver.this.environment.apply("POD_NAME");
				if (!hasText(podName)) {
					throw new InvalidLeaderElectionPropertyException(modeProperty, "for-life",
							"needs the environment variable POD_NAME, naming the Pod this process runs in, whose "
									+ "lock it holds: set it from the downward API (env POD_NAME, valueFrom "
									+ "fieldRef metadata.name)");
				}
				Duration takeover = this.properties.getForLife().getNotReadyNodeTakeover();
				if (takeover != null && (takeover.isNegative() || takeover.isZero())) {
					throw new InvalidLeaderElectionPropertyException(
							LeaderElectionProperties.PREFIX + ".for-life.not-ready-node-takeover", takeover,
							"must be a positive duration, or unset to never take over from a NotReady Node");
				}
				this.forLife = new ElectionSettings.ForLife(podName.trim(), takeover);
			}
			return this.forLife;
		}

	}

	/**
	 * The migrations from spring-cloud-kubernetes' ConfigMap leader. The old application has one
	 * leader, for which the default election stands: the top-level block migrates the default
	 * election alone, its role defaulting to spring-cloud-kubernetes' own. A named election takes
	 * part only with its own block enabled, under a role of its own (its name by default); it
	 * looks for the key in the ConfigMap the top-level block or spring-cloud-kubernetes' properties
	 * name, the one the old replicas of the namespace share. Every value is checked against the
	 * property that set it, so that an error names a property the user wrote.
	 */
	private final class Migrations {

		private static final Pattern CONFIG_MAP_KEY = Pattern.compile("[-._a-zA-Z0-9]+");

		private static final String PREFIX = LeaderElectionProperties.PREFIX + ".config-map-migration";

		/** The top-level block. */
		private final LeaderElectionProperties.ConfigMapMigration defaults;

		private final String namespace;

		private final Map<String, String> electionByKey = new HashMap<>();

		Migrations(LeaderElectionProperties.ConfigMapMigration defaults, String namespace) {
			this.defaults = defaults;
			this.namespace = namespace;
		}

		static boolean enabled(LeaderElectionProperties.ConfigMapMigration own) {
			return Boolean.TRUE.equals(own.getEnabled());
		}

		/**
		 * Refuses a named election's block that sets values but not {@code enabled}: they would be
		 * ignored, where a configuration written when the top-level {@code enabled} applied to
		 * every election expects them to migrate it.
		 */
		static void requireEnabledWhereSet(String electionPrefix, LeaderElectionProperties.ConfigMapMigration own) {
			if (own.getEnabled() != null) {
				return;
			}
			String ownPrefix = electionPrefix + ".config-map-migration";
			for (Setting setting : List.of(new Setting(own.getConfigMapName(), ownPrefix + ".config-map-name"),
					new Setting(own.getKeyPrefix(), ownPrefix + ".key-prefix"),
					new Setting(own.getRole(), ownPrefix + ".role"))) {
				if (setting.value() != null) {
					throw new InvalidLeaderElectionPropertyException(setting.property(), setting.value(),
							"takes effect only with " + ownPrefix + ".enabled=true: a named election takes part in "
									+ "spring-cloud-kubernetes' leader only when its own 'enabled' says so ("
									+ PREFIX + ".enabled migrates the default election alone)");
				}
			}
		}

		/**
		 * @param electionPrefix {@code leader.election} for the default election, else
		 * {@code leader.election.elections.NAME}
		 * @param own the election's block: the top-level one for the default election
		 * @param mode the election's mode and the property that set it
		 */
		ElectionSettings apply(String electionPrefix, LeaderElectionProperties.ConfigMapMigration own,
				ElectionMode mode, ElectionSettings election) {
			if (!enabled(own) || mode.mode() == Mode.STANDALONE) {
				return election;
			}
			String ownPrefix = electionPrefix + ".config-map-migration";
			String enabledProperty = ownPrefix + ".enabled";
			if (mode.mode() == Mode.FOR_LIFE) {
				throw new InvalidLeaderElectionPropertyException(enabledProperty, true,
						"works in lease mode only: election '" + election.name() + "' runs for-life (set by "
								+ mode.property() + ")");
			}
			Setting configMapName = firstSet(enabledProperty, "leaders",
					new Setting(own.getConfigMapName(), ownPrefix + ".config-map-name"),
					new Setting(this.defaults.getConfigMapName(), PREFIX + ".config-map-name"),
					springCloudLeader("config-map-name"));
			if (configMapName.value().length() > 253 || !DNS_1123_SUBDOMAIN.matcher(configMapName.value()).matches()) {
				throw new InvalidLeaderElectionPropertyException(configMapName.property(), configMapName.value(),
						"must be a ConfigMap name, a DNS-1123 subdomain: the one spring-cloud-kubernetes' leader "
								+ "uses (spring.cloud.kubernetes.leader.config-map-name)");
			}
			Setting keyPrefix = firstSet(enabledProperty, "leader.id.",
					new Setting(own.getKeyPrefix(), ownPrefix + ".key-prefix"),
					new Setting(this.defaults.getKeyPrefix(), PREFIX + ".key-prefix"),
					springCloudLeader("leader-id-prefix"));
			Setting ownRole = new Setting(own.getRole(), ownPrefix + ".role");
			// spring-cloud-kubernetes' own candidate takes the role 'leader' when none is set
			Setting role = LeaderElector.DEFAULT_ELECTION.equals(election.name())
					? firstSet(enabledProperty, "leader", ownRole, springCloudLeader("role"))
					: firstSet(enabledProperty, election.name(), ownRole);
			if (role.value().isBlank()) {
				throw new InvalidLeaderElectionPropertyException(role.property(), role.value(),
						"must name the role the old replicas elect a leader for (spring.cloud.kubernetes.leader.role): "
								+ "their ConfigMap key is the key prefix followed by it");
			}
			String key = keyPrefix.value() + role.value();
			if (key.length() > 253 || !CONFIG_MAP_KEY.matcher(key).matches()) {
				boolean prefixAtFault = !keyPrefix.value().isEmpty()
						&& !CONFIG_MAP_KEY.matcher(keyPrefix.value()).matches();
				Setting culprit = (prefixAtFault || role.builtIn()) ? keyPrefix : role;
				throw new InvalidLeaderElectionPropertyException(culprit.property(), culprit.value(),
						"makes the ConfigMap key '" + key + "', which is not one: a key is at most 253 letters, "
								+ "digits, '-', '_' and '.'");
			}
			String other = this.electionByKey.putIfAbsent(configMapName.value() + "/" + key, election.name());
			if (other != null) {
				String where = "' of ConfigMap " + this.namespace + "/" + configMapName.value();
				if (role.builtIn()) {
					throw new InvalidLeaderElectionPropertyException(enabledProperty, true,
							"makes election '" + election.name() + "' lead by key '" + key + where
									+ ", as election '" + other + "' does: its role defaults to its name; set "
									+ ownPrefix + ".role to the role of the old replicas it stands for");
				}
				throw new InvalidLeaderElectionPropertyException(role.property(), role.value(),
						"must differ from the role of election '" + other + "': both would lead by key '" + key
								+ where);
			}
			String podName = LeaderElectionSettingsResolver.this.environment.apply("POD_NAME");
			if (!hasText(podName)) {
				podName = LeaderElectionSettingsResolver.this.environment.apply("HOSTNAME");
			}
			if (!hasText(podName)) {
				throw new InvalidLeaderElectionPropertyException(enabledProperty, true,
						"needs the environment variable POD_NAME (or HOSTNAME) naming the Pod this process runs "
								+ "in: the old replicas check the readiness of the Pod the key names. Set it from "
								+ "the downward API (env POD_NAME, valueFrom fieldRef metadata.name)");
			}
			return election.migratingFrom(
					new ElectionSettings.Migration(configMapName.value(), key, podName.trim()));
		}

		private Setting springCloudLeader(String property) {
			String name = "spring.cloud.kubernetes.leader." + property;
			return new Setting(LeaderElectionSettingsResolver.this.environment.apply(name), name);
		}

		/**
		 * The first setting with a value; else the built-in default, which the election's
		 * {@code enabled} called for.
		 */
		private static Setting firstSet(String enabledProperty, String builtIn, Setting... settings) {
			for (Setting setting : settings) {
				if (setting.value() != null) {
					return setting;
				}
			}
			return new Setting(builtIn, enabledProperty, true);
		}

		/**
		 * A value of a migration and the property that set it: for a built-in default, the
		 * election's {@code enabled}.
		 */
		private record Setting(String value, String property, boolean builtIn) {

			Setting(String value, String property) {
				this(value, property, false);
			}

		}

	}

	private void validateElectionName(String name, String electionPrefix) {
		if (LeaderElector.DEFAULT_ELECTION.equals(name)) {
			throw new InvalidLeaderElectionPropertyException(electionPrefix, name,
					"must not be named 'default': the default election is configured by the leader.election.* "
							+ "properties themselves");
		}
		if (name.length() > 63 || !DNS_1123_LABEL.matcher(name).matches()) {
			throw new InvalidLeaderElectionPropertyException(electionPrefix, name,
					"must be named with a DNS-1123 label (lower-case letters, digits and '-', starting and ending "
							+ "with a letter or digit, at most 63 characters)");
		}
	}

	private String namespace(LeaderElectionProperties properties, Supplier<String> clientNamespace) {
		if (properties.getNamespace() != null) {
			String namespace = properties.getNamespace();
			if (namespace.length() > 63 || !DNS_1123_LABEL.matcher(namespace).matches()) {
				throw new InvalidLeaderElectionPropertyException(LeaderElectionProperties.PREFIX + ".namespace",
						namespace, "must be a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters)");
			}
			return namespace;
		}
		String podNamespace = this.environment.apply("POD_NAMESPACE");
		if (hasText(podNamespace)) {
			return podNamespace.trim();
		}
		String serviceAccountNamespace = readServiceAccountNamespace();
		if (hasText(serviceAccountNamespace)) {
			return serviceAccountNamespace;
		}
		String namespace = clientNamespace.get();
		return hasText(namespace) ? namespace : "default";
	}

	private String readServiceAccountNamespace() {
		if (!Files.isReadable(this.serviceAccountNamespace)) {
			return null;
		}
		try {
			return Files.readString(this.serviceAccountNamespace).trim();
		}
		catch (IOException ex) {
			return null;
		}
	}

	private String identity(LeaderElectionProperties properties) {
		String identity = properties.getIdentity();
		if (identity == null) {
			String base = this.environment.apply("POD_NAME");
			if (!hasText(base)) {
				base = this.environment.apply("HOSTNAME");
			}
			if (!hasText(base)) {
				base = localHostName();
			}
			String suffix = UUID.randomUUID().toString().substring(0, 8);
			return (hasText(base) ? base.trim() : "candidate") + "_" + suffix;
		}
		if (identity.isBlank() || identity.length() > MAX_IDENTITY_LENGTH
				|| identity.chars().anyMatch((c) -> Character.isWhitespace(c) || Character.isISOControl(c))) {
			throw new InvalidLeaderElectionPropertyException(LeaderElectionProperties.PREFIX + ".identity", identity,
					"must be 1 to " + MAX_IDENTITY_LENGTH + " characters without spaces or control characters");
		}
		return identity;
	}

	private static String localHostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return null;
		}
	}

	private static Duration inherit(Duration value, Duration fallback) {
		return (value != null) ? value : fallback;
	}

	private static boolean hasText(String value) {
		return value != null && !value.isBlank();
	}

	/**
	 * The timings of an election as configured, which the engine's settings check.
	 *
	 * @param renewPeriod {@code null} for the engine's default
	 */
	private record Timings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod, Duration renewPeriod) {

		static Timings of(LeaderElectionProperties properties) {
			return new Timings(properties.getLeaseDuration(), properties.getRenewDeadline(),
					properties.getRetryPeriod(), properties.getRenewPeriod());
		}

		/** A named election's timings: its own where set, else these. */
		Timings overriddenBy(LeaderElectionProperties.Election election) {
			return new Timings(inherit(election.getLeaseDuration(), this.leaseDuration),
					inherit(election.getRenewDeadline(), this.renewDeadline),
					inherit(election.getRetryPeriod(), this.retryPeriod),
					inherit(election.getRenewPeriod(), this.renewPeriod));
		}

		/**
		 * The election on these timings.
		 * @param prefix the properties' prefix, which an invalid timing's error names
		 * @throws InvalidLeaderElectionPropertyException when a timing breaks one of the engine's
		 * rules, naming its property under the prefix
		 */
		ElectionSettings election(String prefix, String name, String namespace, String leaseName) {
			try {
				ElectionSettings election = new ElectionSettings(name, namespace, leaseName, this.leaseDuration,
						this.renewDeadline, this.retryPeriod);
				return (this.renewPeriod != null) ? election.renewingEvery(this.renewPeriod) : election;
			}
			catch (ElectionSettings.InvalidTimingException ex) {
				throw new InvalidLeaderElectionPropertyException(prefix + "." + property(ex.timing()), ex.value(),
						ex.requirement(InvalidLeaderElectionPropertyException::format));
			}
		}

		private static String property(ElectionSettings.Timing timing) {
			return switch (timing) {
				case LEASE_DURATION -> "lease-duration";
				case RENEW_DEADLINE -> "renew-deadline";
				case RETRY_PERIOD -> "retry-period";
				case RENEW_PERIOD -> "renew-period";
			};
		}

	}

}
