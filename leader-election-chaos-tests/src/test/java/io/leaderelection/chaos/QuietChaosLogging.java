package io.leaderelection.chaos;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.LinkedHashMap;
import java.util.Map;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a chaos run's log to the faults it injects. Every injected fault makes electors log
 * failed calls and lost leadership, which is what they should do but would bury the run's own
 * lines; the levels are restored after the test class.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(QuietChaosLogging.Levels.class)
@interface QuietChaosLogging {

	class Levels implements BeforeAllCallback, AfterAllCallback {

		private static final Map<String, Level> QUIET = Map.of(Logger.ROOT_LOGGER_NAME, Level.WARN,
				"io.leaderelection.chaos", Level.INFO, "io.leaderelection", Level.ERROR, "io.fabric8", Level.OFF,
				"org.netcrusher", Level.OFF, "io.vertx", Level.OFF, "io.netty", Level.OFF);

		/**
		 * Set to a level, e.g. {@code INFO}, to see the electors' own log of a run; {@code DEBUG}
		 * also logs every Lease version the API server stores.
		 */
		static final String ENGINE_LOG_PROPERTY = "chaos.engineLog";

		private final Map<String, Level> previous = new LinkedHashMap<>();

		@Override
		public void beforeAll(ExtensionContext context) {
			LoggerContext loggers = (LoggerContext) LoggerFactory.getILoggerFactory();
			Map<String, Level> levels = new LinkedHashMap<>(QUIET);
			String engineLog = System.getProperty(ENGINE_LOG_PROPERTY);
			if (engineLog != null) {
				Level level = Level.toLevel(engineLog, Level.ERROR);
				levels.put("io.leaderelection", level);
				if (!level.isGreaterOrEqual(Level.INFO)) {
					levels.put("io.leaderelection.chaos", level);
				}
			}
			levels.forEach((name, level) -> {
				this.previous.put(name, loggers.getLogger(name).getLevel());
				loggers.getLogger(name).setLevel(level);
			});
		}

		@Override
		public void afterAll(ExtensionContext context) {
			LoggerContext loggers = (LoggerContext) LoggerFactory.getILoggerFactory();
			this.previous.forEach((name, level) -> loggers.getLogger(name).setLevel(level));
		}

	}

}
