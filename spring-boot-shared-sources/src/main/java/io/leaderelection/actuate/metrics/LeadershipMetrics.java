package io.leaderelection.actuate.metrics;

import io.leaderelection.LeaderElector;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code leader.election.leader{election}}: 1 while this replica leads the election, else 0,
 * read from the elector's time-bounded gate at every scrape. Works with any
 * {@link LeaderElector}.
 */
public class LeadershipMetrics implements MeterBinder {

	private final LeaderElector elector;

	public LeadershipMetrics(LeaderElector elector) {
		this.elector = elector;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String election : this.elector.statuses().keySet()) {
			Gauge.builder("leader.election.leader", this.elector, (elector) -> elector.isLeader(election) ? 1 : 0)
				.tag("election", election)
				.description("Whether this replica leads the election (1) or not (0)")
				.register(registry);
		}
	}

}
