package io.leaderelection.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** One measurement of every implementation at once, each on Leases of its own. */
public final class Parallel {

	/** A measurement of one implementation. */
	public interface Job<T> {

		T run(Implementation implementation) throws Exception;

	}

	private Parallel() {
	}

	/** Runs the job for every implementation at once; the results in the implementations' order. */
	public static <T> List<T> inParallel(List<? extends Implementation> implementations, Job<T> job)
			throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(implementations.size());
		try {
			List<Future<T>> futures = new ArrayList<>();
			for (Implementation implementation : implementations) {
				futures.add(executor.submit(() -> job.run(implementation)));
			}
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get());
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

}
