package io.leaderelection.actuate.metrics;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code leader.only.invocations{election,outcome}}: {@code @LeaderOnly} calls per election
 * that ran ({@code executed}), were skipped on a follower ({@code skipped}) or refused while
 * shutting down ({@code refused}).
 */
public class LeaderOnlyMetrics implements MeterBinder {

	private final LeaderElector elector;

	private final LeaderOnlyInvocations invocations;

	public LeaderOnlyMetrics(LeaderElector elector, LeaderOnlyInvocations invocations) {
		this.elector = elector;
		this.invocations = invocations;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String election : this.elector.statuses().keySet()) {
			for (Outcome outcome : Outcome.values()) {
				FunctionCounter
					.builder("leader.only.invocations", this.invocations,
							(invocations) -> invocations.count(election, outcome))
					.tags("election", election, "outcome", outcome.tag())
					.description("@LeaderOnly calls by outcome")
					.register(registry);
			}
		}
	}

}
