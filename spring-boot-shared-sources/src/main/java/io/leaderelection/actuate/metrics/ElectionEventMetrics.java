package io.leaderelection.actuate.metrics;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.MonotonicClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * What the election engine reports as it runs, per election:
 * <ul>
 * <li>{@code leader.election.transitions{election,event=granted|revoked}}: how often this replica
 * gained and lost leadership;</li>
 * <li>{@code leader.election.renewals{election,outcome=success|failure}}: how long the leader's
 * renewals took, and how many failed;</li>
 * <li>{@code leader.election.last.transition.timestamp{election}}: when this replica's
 * leadership last changed, in seconds since the epoch; absent until it first does.</li>
 * </ul>
 */
public class ElectionEventMetrics implements MeterBinder, ElectionListener {

	private static final String TRANSITIONS = "leader.election.transitions";

	private static final String RENEWALS = "leader.election.renewals";

	private final List<String> elections;

	private final MonotonicClock engineClock;

	private final Clock wallClock;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final Map<String, AtomicLong> lastTransitionEpochMillis = new ConcurrentHashMap<>();

	/**
	 * @param elections the names of the engine's elections
	 * @param engineClock the engine's monotonic clock, which times its events
	 * @param wallClock the clock that turns those times into timestamps
	 */
	public ElectionEventMetrics(List<String> elections, MonotonicClock engineClock, Clock wallClock) {
		this.elections = List.copyOf(elections);
		this.engineClock = engineClock;
		this.wallClock = wallClock;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		// Registered up front so that the first transition or renewal shows as an increase.
		for (String election : this.elections) {
			transitions(registry, election, "granted");
			transitions(registry, election, "revoked");
			renewals(registry, election, true);
			renewals(registry, election, false);
		}
		this.lastTransitionEpochMillis.forEach((election, last) -> lastTransition(registry, election, last));
		this.registries.add(registry);
	}

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		transitioned(election, "granted", gateOpenedAt);
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		transitioned(election, "revoked", gateClosedAt);
	}

	@Override
	public void renewed(String election, boolean success, long nanos) {
		for (MeterRegistry registry : this.registries) {
			renewals(registry, election, success).record(nanos, TimeUnit.NANOSECONDS);
		}
	}

	private void transitioned(String election, String event, long at) {
		long epochMillis = this.wallClock.millis() - TimeUnit.NANOSECONDS.toMillis(this.engineClock.nanoTime() - at);
		AtomicLong first = new AtomicLong(epochMillis);
		AtomicLong last = this.lastTransitionEpochMillis.putIfAbsent(election, first);
		if (last != null) {
			last.set(epochMillis);
		}
		for (MeterRegistry registry : this.registries) {
			transitions(registry, election, event).increment();
			if (last == null) {
				// registered once, at the first transition: registering a gauge again makes Micrometer warn
				lastTransition(registry, election, first);
			}
		}
	}

	private static void lastTransition(MeterRegistry registry, String election, AtomicLong epochMillis) {
		Gauge.builder("leader.election.last.transition.timestamp", epochMillis, (millis) -> millis.get() / 1000.0)
			.tag("election", election)
			.description("When this replica last gained or lost leadership of the election")
			.baseUnit("seconds")
			.register(registry);
	}

	private static Counter transitions(MeterRegistry registry, String election, String event) {
		return Counter.builder(TRANSITIONS)
			.tags("election", election, "event", event)
			.description("Times this replica gained or lost leadership of the election")
			.register(registry);
	}

	private static Timer renewals(MeterRegistry registry, String election, boolean success) {
		return Timer.builder(RENEWALS)
			.tags("election", election, "outcome", success ? "success" : "failure")
			.description("The leader's renewals of the election's Lease, from sending to the outcome")
			.register(registry);
	}

}
