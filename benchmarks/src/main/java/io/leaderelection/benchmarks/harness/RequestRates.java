package io.leaderelection.benchmarks.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * API requests per second of one election's leader and followers, counted at the server by the
 * header each client carries: one leader and two followers on one Lease, a window that starts
 * once every follower is ready (has read the Lease and, if it watches, opened its watch) and
 * one more retry period has passed.
 */
public final class RequestRates {

	public static final ApiServer.Kind[] KINDS = ApiServer.Kind.values();

	/**
	 * @param leader requests per second of the leader, by kind
	 * @param follower requests per second of one follower (the followers' mean), by kind
	 * @param leaderKept whether the same replica led throughout the window
	 */
	public record Result(Implementation implementation, Timings timings, Duration window, double[] leader,
			double[] follower, boolean leaderKept, List<String> problems) {

		public static double total(double[] rates) {
			double total = 0;
			for (double rate : rates) {
				total += rate;
			}
			return total;
		}

	}

	private final BenchmarkServer server;

	public RequestRates(BenchmarkServer server) {
		this.server = server;
	}

	public Result run(Implementation implementation, Timings timings, Duration window, int followers)
			throws InterruptedException {
		String lease = "requests-" + implementation.key();
		List<Replica> replicas = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		double[] leaderRates = new double[KINDS.length];
		double[] followerRates = new double[KINDS.length];
		boolean kept = false;
		try {
			Replica leader = Replica.direct(implementation, lease + "-leader", this.server, lease, timings, false);
			replicas.add(leader);
			leader.candidate.start();
			if (leader.gates.awaitOpened(timings.leaseDuration().multipliedBy(2)) == null) {
				problems.add("no leader");
				return new Result(implementation, timings, window, leaderRates, followerRates, false, problems);
			}
			for (int i = 1; i <= followers; i++) {
				Replica follower = Replica.direct(implementation, lease + "-follower" + i, this.server, lease, timings,
						false);
				replicas.add(follower);
				follower.candidate.start();
			}
			Duration timeout = timings.retryPeriod().multipliedBy(3).plusSeconds(5);
			for (Replica follower : replicas.subList(1, replicas.size())) {
				ApiServer.Kind ready = implementation.followersWatch() ? ApiServer.Kind.WATCH : ApiServer.Kind.GET;
				if (!this.server.awaitRequest(follower.identity(), ready, timeout)) {
					problems.add(follower.identity() + " not ready within " + timeout);
				}
			}
			Thread.sleep(timings.retryPeriod().toMillis());
			List<long[]> before = new ArrayList<>();
			for (Replica replica : replicas) {
				before.add(this.server.counts(replica.identity()).snapshot());
			}
			long start = System.nanoTime();
			Thread.sleep(window.toMillis());
			double seconds = (System.nanoTime() - start) / 1e9;
			for (int r = 0; r < replicas.size(); r++) {
				long[] after = this.server.counts(replicas.get(r).identity()).snapshot();
				double[] target = (r == 0) ? leaderRates : followerRates;
				double share = (r == 0) ? 1 : followers;
				for (int k = 0; k < KINDS.length; k++) {
					target[k] += (after[k] - before.get(r)[k]) / seconds / share;
				}
			}
			kept = leader.gates.isOpen();
			for (Replica follower : replicas.subList(1, replicas.size())) {
				kept &= follower.gates.awaitOpened(Duration.ZERO) == null;
			}
			if (!kept) {
				problems.add("leadership changed during the window");
			}
		}
		finally {
			replicas.forEach(Replica::close);
		}
		return new Result(implementation, timings, window, leaderRates, followerRates, kept, problems);
	}

}
