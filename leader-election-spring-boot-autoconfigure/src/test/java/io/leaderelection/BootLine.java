package io.leaderelection;

import java.lang.reflect.Method;
import java.util.function.Predicate;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.web.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.ApplicationContext;

/**
 * Spring Boot 3.5's types that the tests both Boot lines share name
 * differently: actuator auto-configurations, health types, the web server's lifecycle phase, the
 * predicate of a method's invocation hint.
 */
public final class BootLine {

	/** Registers health contributors and serves them. */
	public static final AutoConfigurations HEALTH = AutoConfigurations.of(HealthContributorAutoConfiguration.class,
			HealthEndpointAutoConfiguration.class);

	/** Gives a meter registry. */
	public static final AutoConfigurations METRICS = AutoConfigurations.of(MetricsAutoConfiguration.class);

	/** The phase in which the web server shuts down gracefully. */
	public static final int WEB_SERVER_GRACEFUL_SHUTDOWN_PHASE = WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE;

	/** Present exactly when actuator's health support is. */
	public static final Class<?> HEALTH_INDICATOR = HealthIndicator.class;

	private BootLine() {
	}

	/** The contributor registered under {@code name}, or {@code null}. */
	public static Object healthContributor(ApplicationContext context, String name) {
		return context.getBean(HealthContributorRegistry.class).getContributor(name);
	}

	/** A health indicator of the application's own. */
	public static Object userHealthIndicator() {
		HealthIndicator indicator = () -> null;
		return indicator;
	}

	/** Whether the hints let the method be invoked reflectively (Spring Framework 6.2's predicate). */
	public static Predicate<RuntimeHints> invokes(Method method) {
		return RuntimeHintsPredicates.reflection().onMethod(method).invoke();
	}

}
