package io.leaderelection.actuate.endpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import io.leaderelection.StepDown;
import io.leaderelection.WindowStatus;
import io.leaderelection.autoconfigure.ShardedElections;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code leader} endpoint: who this replica is and what it knows of every election, shard,
 * balanced group and job run at most once per window. Reads are open by default; stepping down is
 * a write, granted only with {@code management.endpoint.leader.access=unrestricted}.
 */
@Endpoint(id = "leader", defaultAccess = Access.READ_ONLY)
public class LeaderEndpoint {

	/**
	 * How long a step-down waits for the release before it answers: long enough for a release
	 * with nothing to wait for, short enough that a caller is told about calls still running.
	 */
	static final Duration STEP_DOWN_WAIT = Duration.ofSeconds(2);

	private final LeaderElector elector;

	public LeaderEndpoint(LeaderElector elector) {
		this.elector = elector;
	}

	@ReadOperation
	public LeaderElectionsDescriptor elections() {
		Map<String, LeaderStatus> statuses = this.elector.statuses();
		Map<String, ShardsDescriptor> shards = new LinkedHashMap<>();
		// from the statuses shown beside them, so that one answer never contradicts itself
		ShardedElections.of(statuses).forEach((name, sharded) -> shards.put(name, ShardsDescriptor.of(sharded)));
		Map<String, List<WindowStatus>> windows = new LinkedHashMap<>();
		for (LeaderStatus status : statuses.values()) {
			// asked per shard, as every elector knows its shards by name, and shown under the election's
			List<WindowStatus> jobs = this.elector.windows(status.election());
			if (!jobs.isEmpty()) {
				String election = (status.shard() != null) ? status.shard().election() : status.election();
				windows.computeIfAbsent(election, (name) -> new ArrayList<>()).addAll(jobs);
			}
		}
		return new LeaderElectionsDescriptor(this.elector.identity(), statuses, shards,
				ShardedElections.groups(statuses), windows);
	}

	/** The election's status; {@code null}, which the web layer answers with 404, when unknown. */
	@ReadOperation
	public LeaderStatus election(@Selector String election) {
		return this.elector.statuses().get(election);
	}

	/**
	 * Steps down from the election if this replica leads it, so that another replica takes
	 * over, and answers the status after stepping down with how far the release got: written,
	 * or waiting for the leader-only calls still running; {@code null} when the election is
	 * unknown.
	 */
	@DeleteOperation
	public StepDownDescriptor stepDown(@Selector String election) {
		if (!this.elector.statuses().containsKey(election)) {
			return null;
		}
		StepDown stepDown = this.elector.stepDown(election, STEP_DOWN_WAIT);
		return new StepDownDescriptor(this.elector.status(election), stepDown.release(), stepDown.callsUnderWay(),
				stepDown.detail());
	}

	/**
	 * This replica's candidate identity and the status of every election, keyed by name.
	 *
	 * @param identity the identity this replica writes as holderIdentity
	 * @param elections every configured election's status, the default election first; a sharded
	 * election's shards each under the shard's name, with its {@code shard} and {@code group}
	 * @param shards every sharded election, keyed by the name configured
	 * @param groups every group of Leases spread over replicas, keyed by the group's name
	 * @param windows the jobs that run at most once per window (ShedLock's locks,
	 * {@code @LeaderOnly(atMostEvery)} methods), keyed by the name of the election they run in,
	 * for those that have any; a sharded election's under its name, each job naming its shard
	 */
	public record LeaderElectionsDescriptor(String identity, Map<String, LeaderStatus> elections,
			Map<String, ShardsDescriptor> shards, Map<String, LeaderStatus.Group> groups,
			Map<String, List<WindowStatus>> windows) implements OperationResponseBody {
	}

	/**
	 * What this replica leads of a sharded election.
	 *
	 * @param count how many shards the election is split into
	 * @param owned the indexes of the shards this replica leads, ascending
	 * @param members how many replicas the shards are spread over now, this one included;
	 * {@code null} when they are not balanced
	 */
	public record ShardsDescriptor(int count, List<Integer> owned, Integer members) {

		static ShardsDescriptor of(ShardedElection sharded) {
			LeaderStatus.Group group = sharded.group();
			return new ShardsDescriptor(sharded.count(), sharded.owned(), (group != null) ? group.members() : null);
		}

	}

	/**
	 * The status after a step-down, and how far the release got.
	 *
	 * @param status the election's status, its fields at the top level of the answer
	 * @param release how far the release got
	 * @param callsUnderWay the leader-only calls the release waits for
	 * @param detail why the release was not written, left out otherwise
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	public record StepDownDescriptor(@JsonUnwrapped LeaderStatus status, StepDown.Release release,
			List<String> callsUnderWay, String detail) implements OperationResponseBody {
	}

}
