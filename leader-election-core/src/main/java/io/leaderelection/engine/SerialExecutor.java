package io.leaderelection.engine;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time and in order on a shared executor: one lane of one election. A task
 * that blocks holds up its own lane only; the shared executor gives the other lanes a thread.
 */
final class SerialExecutor implements Executor {

	private static final Logger logger = LoggerFactory.getLogger(SerialExecutor.class);

	private final Executor executor;

	private final String lane;

	private final Queue<Runnable> tasks = new ArrayDeque<>();

	private boolean scheduled;

	SerialExecutor(Executor executor, String lane) {
		this.executor = executor;
		this.lane = lane;
	}

	@Override
	public void execute(Runnable task) {
		synchronized (this) {
			this.tasks.add(task);
			if (this.scheduled) {
				return;
			}
			this.scheduled = true;
		}
		this.executor.execute(this::runNext);
	}

	/** Runs one task, then hands the lane back to the executor, so that lanes take turns. */
	private void runNext() {
		Runnable task;
		synchronized (this) {
			task = this.tasks.poll();
		}
		try {
			task.run();
		}
		catch (RuntimeException ex) {
			logger.error("A task of {} failed", this.lane, ex);
		}
		finally {
			boolean more;
			synchronized (this) {
				more = !this.tasks.isEmpty();
				this.scheduled = more;
			}
			if (more) {
				this.executor.execute(this::runNext);
			}
		}
	}

}
