package io.leaderelection.autoconfigure;

import io.leaderelection.LeaderElector;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.RevocationCause;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Publishes Spring Integration's {@code OnGrantedEvent} and {@code OnRevokedEvent} for every
 * election, with the election name as role and a {@link Context} that steps down on
 * {@code yield()}.
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
