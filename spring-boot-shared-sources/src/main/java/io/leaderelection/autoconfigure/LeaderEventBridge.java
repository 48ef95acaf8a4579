package io.leaderelection.autoconfigure;

import io.leaderelection.LeaderElector;
import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Publishes Spring Integration's {@code OnGrantedEvent} and {@code OnRevokedEvent} for every
 * election, with the election name as role and a {@link Context} that steps down on
 * {@code yield()}.
 * <p>
 * Each shard of a sharded election is granted and revoked on its own, with the shard's name as
 * role ({@code orders-3-of-8}); {@code elector.status(role).shard()} gives the
 * {@link io.leaderelection.Shard}, {@code null} for an election that is not sharded. A shard or
 * balanced election handed over to another replica, so that the group's Leases stay spread, is
 * revoked like any other: leadership ends there and the work it gates stops.
 */
public class LeaderEventBridge implements ElectionListener {

	private final LeaderEventPublisher publisher;

	private final ObjectProvider<LeaderElector> elector;

	public LeaderEventBridge(LeaderEventPublisher publisher, ObjectProvider<LeaderElector> elector) {
		this.publisher = publisher;
		this.elector = elector;
	}

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		LeaderElector leaderElector = this.elector.getObject();
		this.publisher.publishOnGranted(leaderElector, new ElectionContext(leaderElector, election), election);
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		LeaderElector leaderElector = this.elector.getObject();
		this.publisher.publishOnRevoked(leaderElector, new ElectionContext(leaderElector, election), election);
	}

	/** A live view of one election for event listeners. */
	record ElectionContext(LeaderElector elector, String election) implements Context {

		@Override
		public boolean isLeader() {
			return this.elector.isLeader(this.election);
		}

		@Override
		public void yield() {
			this.elector.stepDown(this.election);
		}

		@Override
		public String getRole() {
			return this.election;
		}

	}

}
