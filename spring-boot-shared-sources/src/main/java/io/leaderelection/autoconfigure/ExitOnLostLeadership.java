package io.leaderelection.autoconfigure;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * With {@code leader.election.on-lost=exit}: when leadership is lost (not given up), closes the
 * application and exits with status 1, as controller-runtime managers do, so that the platform
 * restarts a clean process.
 */
public class ExitOnLostLeadership implements ElectionListener {

	private static final Logger logger = LoggerFactory.getLogger(ExitOnLostLeadership.class);

	private final Runnable exit;

	public ExitOnLostLeadership(Runnable exit) {
		this.exit = exit;
	}

	/** Exits the JVM after closing the context, from a thread of its own. */
	public static ExitOnLostLeadership exitingJvm(ConfigurableApplicationContext context) {
		return new ExitOnLostLeadership(() -> {
			Thread exiting = new Thread(() -> System.exit(SpringApplication.exit(context, () -> 1)),
					"leader-election-exit");
			exiting.start();
		});
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		if (cause.isLost()) {
			logger.error("Leadership of election '{}' was lost ({}); exiting as leader.election.on-lost=exit asks",
					election, cause);
			this.exit.run();
		}
	}

}
