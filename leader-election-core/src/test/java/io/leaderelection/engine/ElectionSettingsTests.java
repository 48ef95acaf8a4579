package io.leaderelection.engine;

import java.time.Duration;

import io.leaderelection.engine.ElectionSettings.InvalidTimingException;
import io.leaderelection.engine.ElectionSettings.Timing;
import io.leaderelection.engine.ElectionSettings.TimingRule;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The timing rules of {@link ElectionSettings}, which the starter's properties are checked by too:
 * each broken rule names the timing to change.
 */
class ElectionSettingsTests {

	private static final Duration LEASE_DURATION = ElectionSettings.DEFAULT_LEASE_DURATION;

	private static final Duration RENEW_DEADLINE = ElectionSettings.DEFAULT_RENEW_DEADLINE;

	private static final Duration RETRY_PERIOD = ElectionSettings.DEFAULT_RETRY_PERIOD;

	@Test
	void theDefaultRenewPeriodIsHalfTheRenewDeadline() {
		assertThat(settings(LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD).renewPeriod())
			.isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void theDefaultRenewPeriodIsTheRetryPeriodWhenThatIsLonger() {
		assertThat(settings(LEASE_DURATION, RENEW_DEADLINE, Duration.ofSeconds(6)).renewPeriod())
			.isEqualTo(Duration.ofSeconds(6));
	}

	@Test
	void aMissingOrNonPositiveTimingIsNamed() {
		assertBroken(() -> settings(null, RENEW_DEADLINE, RETRY_PERIOD), Timing.LEASE_DURATION, null,
				TimingRule.POSITIVE);
		assertBroken(() -> settings(LEASE_DURATION, Duration.ZERO, RETRY_PERIOD), Timing.RENEW_DEADLINE,
				Duration.ZERO, TimingRule.POSITIVE);
		assertBroken(() -> settings(LEASE_DURATION, RENEW_DEADLINE, Duration.ofSeconds(-2)), Timing.RETRY_PERIOD,
				Duration.ofSeconds(-2), TimingRule.POSITIVE);
		assertBroken(() -> settings(LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD).renewingEvery(Duration.ZERO),
				Timing.RENEW_PERIOD, Duration.ZERO, TimingRule.POSITIVE);
	}

	@Test
	void aRenewDeadlineNotShorterThanTheLeaseDurationIsAtFault() {
		InvalidTimingException ex = assertBroken(() -> settings(LEASE_DURATION, LEASE_DURATION, RETRY_PERIOD),
				Timing.RENEW_DEADLINE, LEASE_DURATION, TimingRule.SHORTER_THAN_LEASE_DURATION);
		assertThat(ex.requirement(Duration::toString)).isEqualTo(
				"must be shorter than the lease duration (PT15S), or two replicas could lead at once");
		assertThat(ex).hasMessage(
				"The renew deadline (PT15S) must be shorter than the lease duration (PT15S), or two replicas could "
						+ "lead at once");
	}

	@Test
	void aRetryPeriodNotShorterThanTheRenewDeadlineIsAtFault() {
		assertBroken(() -> settings(LEASE_DURATION, RENEW_DEADLINE, RENEW_DEADLINE), Timing.RETRY_PERIOD,
				RENEW_DEADLINE, TimingRule.SHORTER_THAN_RENEW_DEADLINE);
	}

	@Test
	void aRenewPeriodOutsideTheRetryPeriodToTheRenewDeadlineIsAtFault() {
		ElectionSettings settings = settings(LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD);
		assertBroken(() -> settings.renewingEvery(Duration.ofSeconds(1)), Timing.RENEW_PERIOD, Duration.ofSeconds(1),
				TimingRule.FROM_RETRY_PERIOD_TO_RENEW_DEADLINE);
		InvalidTimingException ex = assertBroken(() -> settings.renewingEvery(RENEW_DEADLINE), Timing.RENEW_PERIOD,
				RENEW_DEADLINE, TimingRule.FROM_RETRY_PERIOD_TO_RENEW_DEADLINE);
		assertThat(ex.requirement((duration) -> duration.toSeconds() + "s"))
			.isEqualTo("must be at least the retry period (2s) and shorter than the renew deadline (10s), or the "
					+ "gate would close between two renewals");
		assertThat(settings.renewingEvery(RETRY_PERIOD).renewPeriod()).isEqualTo(RETRY_PERIOD);
	}

	private static ElectionSettings settings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
		return new ElectionSettings("default", "test", "lease", leaseDuration, renewDeadline, retryPeriod);
	}

	private static InvalidTimingException assertBroken(Runnable settings, Timing timing, Duration value,
			TimingRule rule) {
		InvalidTimingException ex = assertThrows(InvalidTimingException.class, settings::run);
		assertThat(ex.timing()).isEqualTo(timing);
		assertThat(ex.value()).isEqualTo(value);
		assertThat(ex.rule()).isEqualTo(rule);
		return ex;
	}

}
