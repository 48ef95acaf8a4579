package io.leaderelection.engine;

import java.time.Duration;
import java.util.Objects;

import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;

/**
 * The configuration of one election.
 *
 * @param name the election name, {@code default} for the default election
 * @param namespace the namespace of the Lease
 * @param leaseName the name of the Lease
 * @param leaseDuration how long followers wait, on their own clocks, after last seeing the Lease
 * change before they take it
 * @param renewDeadline how long after its last successful renewal was sent the leader's gate
 * stays open; shorter than the lease duration
 * @param retryPeriod the interval between followers' attempts, and between a leader's attempts
 * after a renewal failed; shorter than the renew deadline
 * @param forLife how the election runs leader-for-life; {@code null} when it campaigns on a renewed
 * Lease
 * @param shard the shard of a sharded election this election is, its name being the shard's
 * {@link Shard#name()}; {@code null} when it is not a shard
 * @param balanceGroup the group of Leases this election's Lease is spread over replicas in, the
 * same for every election of the group and for no other group in the namespace; {@code null} when
 * it is not balanced
 * @param renewPeriod how long after the start of a successful renewal the leader sends the next
 * one; at least the retry period and shorter than the renew deadline. The gate's rule does not
 * depend on it: it closes a renew deadline after the start of the last successful renewal.
 * @param migration the older leader election this one takes part in too, its gate opening only
 * while it holds both the Lease and that election's key; {@code null} when none
 */
public record ElectionSettings(String name, String namespace, String leaseName, Duration leaseDuration,
		Duration renewDeadline, Duration retryPeriod, ForLife forLife, Shard shard, String balanceGroup,
		Duration renewPeriod, Migration migration) {

	/** An election on a renewed Lease, renewed every retry period. */
	public ElectionSettings(String name, String namespace, String leaseName, Duration leaseDuration,
			Duration renewDeadline, Duration retryPeriod) {
		this(name, namespace, leaseName, leaseDuration, renewDeadline, retryPeriod, null, null, null, retryPeriod,
				null);
	}

	public ElectionSettings {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(namespace, "namespace");
		Objects.requireNonNull(leaseName, "leaseName");
		if (retryPeriod.isNegative() || retryPeriod.isZero()) {
			throw new IllegalArgumentException("retryPeriod must be positive, was " + retryPeriod);
		}
		if (renewDeadline.compareTo(retryPeriod) <= 0) {
			throw new IllegalArgumentException(
					"renewDeadline (" + renewDeadline + ") must be longer than retryPeriod (" + retryPeriod + ")");
		}
		if (leaseDuration.compareTo(renewDeadline) <= 0) {
			throw new IllegalArgumentException(
					"leaseDuration (" + leaseDuration + ") must be longer than renewDeadline (" + renewDeadline + ")");
		}
		Objects.requireNonNull(renewPeriod, "renewPeriod");
		if (renewPeriod.compareTo(retryPeriod) < 0 || renewPeriod.compareTo(renewDeadline) >= 0) {
			throw new IllegalArgumentException("renewPeriod (" + renewPeriod + ") must be at least retryPeriod ("
					+ retryPeriod + ") and shorter than renewDeadline (" + renewDeadline + ")");
		}
	}

	/** The same election run leader-for-life. */
	public ElectionSettings forLife(ForLife forLife) {
		return new ElectionSettings(this.name, this.namespace, this.leaseName, this.leaseDuration, this.renewDeadline,
				this.retryPeriod, forLife, this.shard, this.balanceGroup, this.renewPeriod, this.migration);
	}

	/**
	 * The given shard of this election: named {@link Shard#name()}, on the Lease
	 * {@link Shard#leaseName(String)}, balanced in a group named after this election's Lease, a
	 * name no other application's group has in the namespace.
	 * @param balanced whether the shards are spread over replicas
	 */
	public ElectionSettings shard(int index, int count, boolean balanced) {
		Shard shard = new Shard(this.name, index, count);
		return new ElectionSettings(shard.name(), this.namespace, shard.leaseName(this.leaseName), this.leaseDuration,
				this.renewDeadline, this.retryPeriod, this.forLife, shard, balanced ? this.leaseName : null,
				this.renewPeriod, this.migration);
	}

	/** The same election, spread over replicas with the other elections of the given group. */
	public ElectionSettings balancedIn(String group) {
		return new ElectionSettings(this.name, this.namespace, this.leaseName, this.leaseDuration, this.renewDeadline,
				this.retryPeriod, this.forLife, this.shard, group, this.renewPeriod, this.migration);
	}

	/** The same election, its leader renewing every given period. */
	public ElectionSettings renewingEvery(Duration renewPeriod) {
		return new ElectionSettings(this.name, this.namespace, this.leaseName, this.leaseDuration, this.renewDeadline,
				this.retryPeriod, this.forLife, this.shard, this.balanceGroup, renewPeriod, this.migration);
	}

	/** The same election, taking part in the given older election too. */
	public ElectionSettings migratingFrom(Migration migration) {
		return new ElectionSettings(this.name, this.namespace, this.leaseName, this.leaseDuration, this.renewDeadline,
				this.retryPeriod, this.forLife, this.shard, this.balanceGroup, this.renewPeriod, migration);
	}

	/** {@code lease} or {@code for-life}, as the properties and the status name the mode. */
	public String mode() {
		return (this.forLife != null) ? LeaderStatus.FOR_LIFE_MODE : LeaderStatus.LEASE_MODE;
	}

	/** The lease duration as written to spec.leaseDurationSeconds, rounded up to a whole second. */
	public int leaseDurationSeconds() {
		long millis = this.leaseDuration.toMillis();
		return (int) Math.max(1, (millis + 999) / 1000);
	}

	/**
	 * How an election runs leader-for-life: its lock is a Lease owned by this replica's Pod, never
	 * renewed, and taken over only when that Pod is gone.
	 *
	 * @param podName the name of the Pod this process runs in, written as holderIdentity
	 * @param notReadyNodeTakeover how long the owner's Node must have been seen NotReady before
	 * followers take over; {@code null} to never take over on that ground (a partitioned leader may
	 * still run)
	 */
	public record ForLife(String podName, Duration notReadyNodeTakeover) {

		public ForLife {
			Objects.requireNonNull(podName, "podName");
		}

	}

	/**
	 * The older leader election an election takes part in during a migration from it:
	 * spring-cloud-kubernetes' ConfigMap leader, whose leader's id is the value of one key of a
	 * ConfigMap in the election's namespace.
	 *
	 * @param configMapName the ConfigMap's name
	 * @param key the key, the prefix followed by the role, e.g. {@code leader.id.orders}
	 * @param podName the name of the Pod this process runs in, written as the key's value
	 */
	public record Migration(String configMapName, String key, String podName) {

		public Migration {
			Objects.requireNonNull(configMapName, "configMapName");
			Objects.requireNonNull(key, "key");
			Objects.requireNonNull(podName, "podName");
		}

	}

}
