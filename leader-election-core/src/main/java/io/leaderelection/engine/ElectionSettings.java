package io.leaderelection.engine;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

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
 * one; at least the retry period and shorter than the renew deadline, by default
 * {@link #defaultRenewPeriod}. The gate's rule does not depend on it: it closes a renew deadline
 * after the start of the last successful renewal.
 * @param migration the older leader election this one takes part in too, its gate opening only
 * while it holds both the Lease and that election's key; {@code null} when none
 */
public record ElectionSettings(String name, String namespace, String leaseName, Duration leaseDuration,
		Duration renewDeadline, Duration retryPeriod, ForLife forLife, Shard shard, String balanceGroup,
		Duration renewPeriod, Migration migration) {

	/** How long followers wait after last seeing the Lease change, unless configured: client-go's. */
	public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);

	/** How long the leader's gate stays open after its last renewal, unless configured: client-go's. */
	public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);

	/** The interval between attempts, unless configured: client-go's. */
	public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);

	/** An election on a renewed Lease, renewed every {@link #defaultRenewPeriod default renew period}. */
	public ElectionSettings(String name, String namespace, String leaseName, Duration leaseDuration,
			Duration renewDeadline, Duration retryPeriod) {
		this(name, namespace, leaseName, leaseDuration, renewDeadline, retryPeriod, null, null, null,
				defaultRenewPeriod(renewDeadline, retryPeriod), null);
	}

	/**
	 * @throws InvalidTimingException when a timing is missing, not positive, or out of order with
	 * the others
	 */
	public ElectionSettings {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(namespace, "namespace");
		Objects.requireNonNull(leaseName, "leaseName");
		positive(Timing.LEASE_DURATION, leaseDuration);
		positive(Timing.RENEW_DEADLINE, renewDeadline);
		positive(Timing.RETRY_PERIOD, retryPeriod);
		TimingRule.SHORTER_THAN_LEASE_DURATION.check(Timing.RENEW_DEADLINE, renewDeadline,
				renewDeadline.compareTo(leaseDuration) < 0, leaseDuration);
		TimingRule.SHORTER_THAN_RENEW_DEADLINE.check(Timing.RETRY_PERIOD, retryPeriod,
				retryPeriod.compareTo(renewDeadline) < 0, renewDeadline);
		positive(Timing.RENEW_PERIOD, renewPeriod);
		TimingRule.FROM_RETRY_PERIOD_TO_RENEW_DEADLINE.check(Timing.RENEW_PERIOD, renewPeriod,
				renewPeriod.compareTo(retryPeriod) >= 0 && renewPeriod.compareTo(renewDeadline) < 0, retryPeriod,
				renewDeadline);
	}

	private static void positive(Timing timing, Duration value) {
		TimingRule.POSITIVE.check(timing, value, value != null && !value.isNegative() && !value.isZero());
	}

	/**
	 * The renew period unless configured: half the renew deadline, or the retry period when that
	 * is longer, which measured half the writes of renewing every retry period with no slower
	 * handover or failover (docs/benchmarks.md). {@code null} when either timing is, which the
	 * settings then reject.
	 */
	public static Duration defaultRenewPeriod(Duration renewDeadline, Duration retryPeriod) {
		if (renewDeadline == null || retryPeriod == null) {
			return null;
		}
		Duration half = renewDeadline.dividedBy(2);
		return (half.compareTo(retryPeriod) > 0) ? half : retryPeriod;
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

	/** The timings of an election, each one a rule may find at fault. */
	public enum Timing {

		LEASE_DURATION("lease duration"), RENEW_DEADLINE("renew deadline"), RETRY_PERIOD("retry period"),
		RENEW_PERIOD("renew period");

		private final String description;

		Timing(String description) {
			this.description = description;
		}

		@Override
		public String toString() {
			return this.description;
		}

	}

	/**
	 * The rules the timings of an election follow, each with what it asks of the timing at fault
	 * and why, the bounds it names in {@code %s}.
	 */
	public enum TimingRule {

		/** Every timing is set and longer than zero. */
		POSITIVE("must be a positive duration"),

		/** The renew deadline is shorter than the lease duration. */
		SHORTER_THAN_LEASE_DURATION("must be shorter than the lease duration (%s), or two replicas could lead at once"),

		/** The retry period is shorter than the renew deadline. */
		SHORTER_THAN_RENEW_DEADLINE("must be shorter than the renew deadline (%s), or the leader cannot renew in time"),

		/** The renew period is at least the retry period and shorter than the renew deadline. */
		FROM_RETRY_PERIOD_TO_RENEW_DEADLINE("must be at least the retry period (%s) and shorter than the renew "
				+ "deadline (%s), or the gate would close between two renewals");

		private final String requirement;

		TimingRule(String requirement) {
			this.requirement = requirement;
		}

		private void check(Timing timing, Duration value, boolean kept, Duration... bounds) {
			if (!kept) {
				throw new InvalidTimingException(timing, value, this, bounds);
			}
		}

	}

	/**
	 * A timing that breaks one of the {@link TimingRule rules}: the timing named is the one to
	 * change.
	 */
	public static final class InvalidTimingException extends IllegalArgumentException {

		private final Timing timing;

		private final transient Duration value;

		private final TimingRule rule;

		private final transient List<Duration> bounds;

		InvalidTimingException(Timing timing, Duration value, TimingRule rule, Duration... bounds) {
			super("The " + timing + " (" + value + ") " + String.format(rule.requirement, (Object[]) bounds));
			this.timing = timing;
			this.value = value;
			this.rule = rule;
			this.bounds = List.of(bounds);
		}

		/** The timing at fault. */
		public Timing timing() {
			return this.timing;
		}

		/** Its value, {@code null} when it was missing. */
		public Duration value() {
			return this.value;
		}

		/** The rule it breaks. */
		public TimingRule rule() {
			return this.rule;
		}

		/**
		 * What the rule asks of the timing and why, the other timings it names written by the
		 * given format, e.g. {@code must be shorter than the lease duration (15s), or two replicas
		 * could lead at once}.
		 */
		public String requirement(Function<Duration, String> format) {
			return String.format(this.rule.requirement, this.bounds.stream().map(format).toArray());
		}

	}

}
