package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionConfigurationException;
import io.leaderelection.autoconfigure.LeaderElectionProperties;

/**
 * A {@code @LeaderOnly} does not fit its election: a key on an election that is not sharded, none
 * on a method of one that is, a key that does not parse, a sharded election gating a whole type,
 * or an {@code atMostEvery} that is no positive duration, or does not fit where it is.
 */
public class InvalidLeaderOnlyException extends LeaderElectionConfigurationException {

	private final String beanName;

	private final String election;

	private final String description;

	private final String action;

	private InvalidLeaderOnlyException(String beanName, String election, String description, String action,
			Throwable cause) {
		super(description);
		this.beanName = beanName;
		this.election = election;
		this.description = description;
		this.action = action;
		if (cause != null) {
			initCause(cause);
		}
	}

	/** A key on a method of an election that is not sharded, so that there is no shard to pick. */
	static InvalidLeaderOnlyException keyWithoutShards(String beanName, Method method, String election, String key) {
		return new InvalidLeaderOnlyException(beanName, election,
				annotation(election, key) + " on " + describe(beanName, method) + " has a key, but election '"
						+ election + "' is not sharded: there is no shard for the key to pick",
				"Remove key from the annotation, or split the election into shards with "
						+ shardsProperty(election) + ".",
				null);
	}

	/** No key on a method of a sharded election, so that the call names no shard. */
	static InvalidLeaderOnlyException missingKey(String beanName, Method method, String election, int shards) {
		return new InvalidLeaderOnlyException(beanName, election,
				"@LeaderOnly(\"" + election + "\") on " + describe(beanName, method) + " has no key, but election '"
						+ election + "' is sharded into " + shards + ": each call runs on the leader of its key's "
						+ "shard, so it needs a key",
				"Give the annotation a key over the method's arguments, for example @LeaderOnly(value = \""
						+ election + "\", key = \"#p0\"), or set " + shardsProperty(election) + " to 1.",
				null);
	}

	/** A key that is not a SpEL expression. */
	static InvalidLeaderOnlyException unparsableKey(String beanName, Method method, String election, String key,
			Exception failure) {
		return new InvalidLeaderOnlyException(beanName, election,
				annotation(election, key) + " on " + describe(beanName, method) + " has a key that does not parse: "
						+ failure.getMessage(),
				"Make the key a SpEL expression over the method's arguments, by name (#order.id) or position (#p0).",
				failure);
	}

	/** A type-level annotation, which gates the whole bean on one election, naming a sharded one. */
	static InvalidLeaderOnlyException typeOnShardedElection(String beanName, Class<?> type, String election,
			boolean lifecycle) {
		String gated = lifecycle ? "starts and stops lifecycle bean '" + beanName + "'"
				: "gates every public method of bean '" + beanName + "'";
		return new InvalidLeaderOnlyException(beanName, election,
				"@LeaderOnly(\"" + election + "\") on type " + type.getName() + " " + gated + " with election '"
						+ election + "', which is sharded: a sharded election has a leader per shard, none for a "
						+ "whole bean",
				"Annotate the bean's methods with @LeaderOnly(value = \"" + election + "\", key = ...), so that each "
						+ "call runs on the leader of its key's shard, or gate the bean with an election that is not "
						+ "sharded.",
				null);
	}

	/** A key on a type-level annotation: a key is read from a method's arguments. */
	static InvalidLeaderOnlyException keyOnType(String beanName, Class<?> type, String election, String key) {
		return new InvalidLeaderOnlyException(beanName, election,
				annotation(election, key) + " on type " + type.getName() + " of bean '" + beanName
						+ "' has a key, which only a method's annotation can have: it is read from the method's "
						+ "arguments",
				"Move the annotation with its key to the methods to gate.", null);
	}

	/** An {@code atMostEvery} that does not resolve to a positive duration. */
	static InvalidLeaderOnlyException invalidWindow(String beanName, Method method, String election,
			String atMostEvery, IllegalArgumentException failure) {
		return new InvalidLeaderOnlyException(beanName, election,
				window(election, atMostEvery) + " on " + describe(beanName, method) + " has no window to keep: "
						+ failure.getMessage(),
				"Give atMostEvery a positive duration, such as 1m, PT1M or 60000 (milliseconds), or a property "
						+ "placeholder that resolves to one, such as ${jobs.report.every}.",
				failure);
	}

	/** An {@code atMostEvery} on a type: a window is a method's, recorded by its name. */
	static InvalidLeaderOnlyException windowOnType(String beanName, Class<?> type, String election,
			String atMostEvery, boolean lifecycle) {
		String bean = lifecycle ? "lifecycle bean '" + beanName + "', which is started and stopped, not run,"
				: "bean '" + beanName + "'";
		return new InvalidLeaderOnlyException(beanName, election,
				window(election, atMostEvery) + " on type " + type.getName() + " of " + bean
						+ " has a window, which only a method's annotation can have: each method's runs are "
						+ "recorded under its own name",
				"Move the annotation with atMostEvery to the methods that run at most once per window.", null);
	}

	/** An {@code atMostEvery} with {@code throwIfNotLeader}: a closed window is no failure of the call. */
	static InvalidLeaderOnlyException windowThrowingIfNotLeader(String beanName, Method method, String election,
			String atMostEvery) {
		return new InvalidLeaderOnlyException(beanName, election,
				window(election, atMostEvery) + " on " + describe(beanName, method) + " also has "
						+ "throwIfNotLeader = true: a call within the window returns as on a follower, which would "
						+ "then throw on the leader at every closed window",
				"Remove throwIfNotLeader, or atMostEvery.", null);
	}

	/** An {@code atMostEvery} with a key: the window is the job's, and on a sharded election its name is the key. */
	static InvalidLeaderOnlyException windowWithKey(String beanName, Method method, String election,
			String atMostEvery, String key) {
		return new InvalidLeaderOnlyException(beanName, election,
				"@LeaderOnly(value = \"" + election + "\", key = \"" + key + "\", atMostEvery = \"" + atMostEvery
						+ "\") on " + describe(beanName, method) + " has a key, but a window is kept per job, named "
						+ "by its bean and method, and on a sharded election that name is the key",
				"Remove key from the annotation: the method's runs are spread over the shards by its name.", null);
	}

	/** An {@code atMostEvery} on an election that runs for life, whose leader never renews its Lease. */
	static InvalidLeaderOnlyException windowOnForLifeElection(String beanName, Method method, String election,
			String atMostEvery) {
		return new InvalidLeaderOnlyException(beanName, election,
				window(election, atMostEvery) + " on " + describe(beanName, method) + " names election '" + election
						+ "', which runs for life: its leader never writes its Lease again, so it cannot record a "
						+ "start under its term",
				"Gate the method with an election in lease mode, or set " + modeProperty(election) + " to lease.",
				null);
	}

	/** An {@code atMostEvery} with an elector of the application's own, which records no windows. */
	static InvalidLeaderOnlyException windowWithoutEngine(String beanName, Method method, String election,
			String atMostEvery, Class<?> elector) {
		return new InvalidLeaderOnlyException(beanName, election,
				window(election, atMostEvery) + " on " + describe(beanName, method) + " needs the starter's elector "
						+ "to record its starts in the election's Lease, but the application's LeaderElector is a "
						+ elector.getName(),
				"Remove atMostEvery, or the application's own LeaderElector bean.", null);
	}

	public String getBeanName() {
		return this.beanName;
	}

	public String getElection() {
		return this.election;
	}

	@Override
	public String description() {
		return this.description + ".";
	}

	@Override
	public String action() {
		return this.action;
	}

	private static String window(String election, String atMostEvery) {
		return "@LeaderOnly(value = \"" + election + "\", atMostEvery = \"" + atMostEvery + "\")";
	}

	private static String annotation(String election, String key) {
		return "@LeaderOnly(value = \"" + election + "\", key = \"" + key + "\")";
	}

	private static String describe(String beanName, Method method) {
		String parameters = Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", "));
		return "method " + method.getDeclaringClass().getName() + "." + method.getName() + "(" + parameters
				+ ") of bean '" + beanName + "'";
	}

	private static String modeProperty(String election) {
		return LeaderElector.DEFAULT_ELECTION.equals(election) ? LeaderElectionProperties.PREFIX + ".mode"
				: LeaderElectionProperties.PREFIX + ".elections." + election + ".mode";
	}

	private static String shardsProperty(String election) {
		return LeaderElectionProperties.PREFIX + ".elections." + election + ".shards";
	}

}
