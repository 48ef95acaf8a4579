package io.leaderelection.actuate.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.leaderelection.RevocationCause;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ElectionEventMetrics}.
 */
class ElectionEventMetricsTests {

	private static final long ENGINE_NOW = Duration.ofHours(3).toNanos();

	private static final Instant WALL_NOW = Instant.parse("2026-11-21T12:00:00Z");

	private final ElectionEventMetrics metrics = new ElectionEventMetrics(List.of("default", "billing"),
			() -> ENGINE_NOW, Clock.fixed(WALL_NOW, ZoneOffset.UTC));

	private final MeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void countersAndTimersOfEveryElectionStartAtZero() {
		this.metrics.bindTo(this.registry);

		for (String election : List.of("default", "billing")) {
			assertThat(transitions(election, "granted")).isZero();
			assertThat(transitions(election, "revoked")).isZero();
			assertThat(renewals(election, "success").count()).isZero();
			assertThat(renewals(election, "failure").count()).isZero();
		}
		assertThat(this.registry.find("leader.election.last.transition.timestamp").gauges()).isEmpty();
	}

	@Test
	void transitionsAreCountedAndStampedWithWhenTheGateMoved() {
		this.metrics.bindTo(this.registry);

		this.metrics.granted("billing", 4, ENGINE_NOW - Duration.ofSeconds(5).toNanos());
		assertThat(lastTransition("billing")).isEqualTo(WALL_NOW.minusSeconds(5).getEpochSecond());
		this.metrics.revoked("billing", RevocationCause.STEPPED_DOWN, ENGINE_NOW - Duration.ofMillis(1500).toNanos());
		this.metrics.granted("billing", 6, ENGINE_NOW);

		assertThat(transitions("billing", "granted")).isEqualTo(2);
		assertThat(transitions("billing", "revoked")).isEqualTo(1);
		assertThat(transitions("default", "granted")).isZero();
		assertThat(lastTransition("billing")).isEqualTo(WALL_NOW.getEpochSecond());
		assertThat(this.registry.find("leader.election.last.transition.timestamp").tag("election", "default").gauge())
			.isNull();
	}

	@Test
	void renewalsAreTimedByOutcome() {
		this.metrics.bindTo(this.registry);

		this.metrics.renewed("default", true, Duration.ofMillis(12).toNanos());
		this.metrics.renewed("default", true, Duration.ofMillis(30).toNanos());
		this.metrics.renewed("default", false, Duration.ofSeconds(8).toNanos());

		assertThat(renewals("default", "success").count()).isEqualTo(2);
		assertThat(renewals("default", "success").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(42);
		assertThat(renewals("default", "failure").count()).isEqualTo(1);
		assertThat(renewals("default", "failure").max(TimeUnit.SECONDS)).isEqualTo(8);
		assertThat(renewals("billing", "success").count()).isZero();
	}

	@Test
	void everyBoundRegistryIsUpdated() {
		MeterRegistry other = new SimpleMeterRegistry();
		this.metrics.bindTo(this.registry);
		this.metrics.bindTo(other);

		this.metrics.granted("default", 0, ENGINE_NOW);

		assertThat(transitions("default", "granted")).isEqualTo(1);
		assertThat(other.get("leader.election.transitions").tags("election", "default", "event", "granted")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void theLastTransitionGaugeIsRegisteredOnceWithoutMicrometersWarningAndInRegistriesBoundLater() {
		// Micrometer warns once per JVM, then logs at debug level: listen at debug level
		Logger micrometer = (Logger) LoggerFactory.getLogger(MeterRegistry.class);
		Level level = micrometer.getLevel();
		micrometer.setLevel(Level.DEBUG);
		ListAppender<ILoggingEvent> logged = new ListAppender<>();
		logged.start();
		micrometer.addAppender(logged);
		try {
			this.metrics.bindTo(this.registry);
			this.metrics.granted("default", 0, ENGINE_NOW);
			this.metrics.revoked("default", RevocationCause.STEPPED_DOWN, ENGINE_NOW);
			this.metrics.granted("default", 0, ENGINE_NOW);
			MeterRegistry later = new SimpleMeterRegistry();
			this.metrics.bindTo(later);
			this.metrics.revoked("default", RevocationCause.STEPPED_DOWN, ENGINE_NOW);
			assertThat(later.get("leader.election.last.transition.timestamp").tag("election", "default").gauge().value())
				.isEqualTo(WALL_NOW.getEpochSecond());
		}
		finally {
			micrometer.detachAppender(logged);
			micrometer.setLevel(level);
		}
		assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage)
			.noneMatch((message) -> message.contains("already registered"));
	}

	private double transitions(String election, String event) {
		return this.registry.get("leader.election.transitions")
			.tags("election", election, "event", event)
			.counter()
			.count();
	}

	private Timer renewals(String election, String outcome) {
		return this.registry.get("leader.election.renewals").tags("election", election, "outcome", outcome).timer();
	}

	private double lastTransition(String election) {
		return this.registry.get("leader.election.last.transition.timestamp").tag("election", election).gauge().value();
	}

}
