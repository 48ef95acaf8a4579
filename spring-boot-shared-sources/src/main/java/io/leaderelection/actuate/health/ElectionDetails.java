package io.leaderelection.actuate.health;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.ShardedElections;

/**
 * How the health indicators show an election.
 */
final class ElectionDetails {

	private ElectionDetails() {
	}

	/** The status as health details, leaving out what is unknown. */
	static Map<String, Object> of(LeaderStatus status) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("role", status.leader() ? "leader" : "follower");
		details.put("lease", status.namespace() + "/" + status.leaseName());
		putIfKnown(details, "mode", status.mode());
		putIfKnown(details, "holder", status.holderIdentity());
		putIfKnown(details, "ownerPod", status.ownerPod());
		putIfKnown(details, "acquireTime", status.acquireTime());
		putIfKnown(details, "renewTime", status.renewTime());
		putIfKnown(details, "transitions", status.leaseTransitions());
		putIfKnown(details, "fencingToken", status.fencingToken());
		putIfKnown(details, "fencingTokenSource", status.fencingTokenSource());
		putIfKnown(details, "lastError", status.lastError());
		putIfKnown(details, "shard", status.shard());
		putIfKnown(details, "group", status.group());
		return details;
	}

	/**
	 * Per sharded election among the statuses, how many shards it has and which this replica
	 * leads; empty when none is sharded.
	 */
	static Map<String, Object> shards(Map<String, LeaderStatus> statuses) {
		Map<String, Object> shards = new LinkedHashMap<>();
		ShardedElections.of(statuses)
			.forEach((name, sharded) -> shards.put(name, Map.of("count", sharded.count(), "owned", sharded.owned())));
		return shards;
	}

	/** A duration in seconds to the millisecond, for people: {@code 15s}, {@code 2.347s}. */
	static String format(Duration duration) {
		return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString() + "s";
	}

	private static void putIfKnown(Map<String, Object> details, String key, Object value) {
		if (value != null) {
			details.put(key, value);
		}
	}

}
