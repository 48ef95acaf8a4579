package io.leaderelection.actuate.health;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Spring Boot 4's health types (spring-boot-health) under the health indicators that both Boot
 * lines share.
 */
public abstract class BootHealthIndicator extends AbstractHealthIndicator {

	protected BootHealthIndicator(String failureMessage) {
		super(failureMessage);
	}

	/** Judges health; a check that throws is DOWN with the exception. */
	protected abstract HealthVerdict check();

	@Override
	protected final void doHealthCheck(Health.Builder builder) {
		HealthVerdict verdict = check();
		(verdict.up() ? builder.up() : builder.down()).withDetails(verdict.details());
	}

	/**
	 * Matches where Boot 4's health support is present and
	 * {@code management.health.leader-election.enabled} is not false.
	 */
	@Target(ElementType.TYPE)
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	// By name: a class literal that cannot be loaded drops this meta-annotation silently, and
	// without actuator the health auto-configuration would then fail to start the application.
	@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
	@ConditionalOnEnabledHealthIndicator("leader-election")
	public @interface ConditionalOnLeaderElectionHealth {

	}

}
