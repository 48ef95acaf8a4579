package io.leaderelection.kubernetes;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import io.leaderelection.Shard;
import io.leaderelection.engine.ElectionSettings;

/**
 * The labels this library puts on the Leases it creates for shards and for the members of
 * balanced groups, so that tools can list them ({@code kubectl get leases -l
 * leaderelection.io/shard-of=orders-leader}) and find those left over after a shard count
 * changed.
 */
public final class LeaseLabels {

	/** On a shard's Lease: the Lease name of the sharded election the shard belongs to. */
	public static final String SHARD_OF = "leaderelection.io/shard-of";

	/** On a shard's Lease: the shard's number. */
	public static final String SHARD = "leaderelection.io/shard";

	/** On a shard's Lease: how many shards the election had when the Lease was created. */
	public static final String SHARDS = "leaderelection.io/shards";

	/** On a member's record: the balanced group it takes part in. */
	public static final String MEMBER_OF = "leaderelection.io/member-of";

	private static final int MAX_VALUE_LENGTH = 63;

	private static final Pattern VALID_VALUE = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

	private LeaseLabels() {
	}

	/** The labels of an election's Lease: those of a shard, none otherwise. */
	static Map<String, String> of(ElectionSettings election) {
		Shard shard = election.shard();
		if (shard == null) {
			return Map.of();
		}
		String suffix = "-" + shard.index() + "-of-" + shard.count();
		String leaseName = election.leaseName();
		String sharded = leaseName.endsWith(suffix) ? leaseName.substring(0, leaseName.length() - suffix.length())
				: leaseName;
		Map<String, String> labels = new LinkedHashMap<>();
		labels.put(SHARD_OF, value(sharded));
		labels.put(SHARD, Integer.toString(shard.index()));
		labels.put(SHARDS, Integer.toString(shard.count()));
		return labels;
	}

	/**
	 * A name as a label value: itself when it is one (at most 63 characters), else its first
	 * characters and a hash of the whole, so that two long names stay apart.
	 */
	public static String value(String name) {
		if (name.length() <= MAX_VALUE_LENGTH && VALID_VALUE.matcher(name).matches()) {
			return name;
		}
		String hash = Long.toHexString(Shard.hash(name));
		String kept = name.replaceAll("[^-A-Za-z0-9_.]", "-");
		kept = kept.substring(0, Math.min(kept.length(), MAX_VALUE_LENGTH - hash.length() - 1));
		return kept.replaceAll("^[^A-Za-z0-9]+", "") + "-" + hash;
	}

}
