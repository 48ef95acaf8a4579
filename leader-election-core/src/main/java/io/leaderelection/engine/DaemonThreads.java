package io.leaderelection.engine;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Daemon threads named by a prefix and a count, so that a thread dump tells the elector's threads
 * apart and they never keep a JVM from exiting.
 */
public final class DaemonThreads {

	private DaemonThreads() {
	}

	/** A factory of daemon threads named {@code prefix} followed by 1, 2, 3… */
	public static ThreadFactory named(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
