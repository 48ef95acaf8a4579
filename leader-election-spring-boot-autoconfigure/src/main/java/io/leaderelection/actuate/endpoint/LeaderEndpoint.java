package io.leaderelection.actuate.endpoint;

import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code leader} endpoint: who this replica is and what it knows of every election. Reads
 * are open by default; stepping down is a write, granted only with
 * {@code management.endpoint.leader.access=unrestricted}.
 */
@Endpoint(id = "leader", defaultAccess = Access.READ_ONLY)
public class LeaderEndpoint {

	private final LeaderElector elector;

	public LeaderEndpoint(LeaderElector elector) {
		this.elector = elector;
	}

	@ReadOperation
	public LeaderElectionsDescriptor elections() {
		return new LeaderElectionsDescriptor(this.elector.identity(), this.elector.statuses());
	}

	/** The election's status; {@code null}, which the web layer answers with 404, when unknown. */
	@ReadOperation
	public LeaderStatus election(@Selector String election) {
		return this.elector.statuses().get(election);
	}

	/**
	 * Releases the election's Lease if this replica holds it, so that another replica takes
	 * over, and answers the status after stepping down; {@code null} when the election is unknown.
	 */
	@DeleteOperation
	public LeaderStatus stepDown(@Selector String election) {
		if (!this.elector.statuses().containsKey(election)) {
			return null;
		}
		this.elector.stepDown(election);
		return this.elector.status(election);
	}

	/**
	 * This replica's candidate identity and the status of every election, keyed by name.
	 *
	 * @param identity the identity this replica writes as holderIdentity
	 * @param elections every configured election's status, the default election first
	 */
	public record LeaderElectionsDescriptor(String identity,
			Map<String, LeaderStatus> elections) implements OperationResponseBody {
	}

}
