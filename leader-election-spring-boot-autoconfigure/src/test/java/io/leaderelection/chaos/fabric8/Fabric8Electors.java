package io.leaderelection.chaos.fabric8;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * fabric8's {@code LeaderElector} as the chaos run drives it. Nothing but JDK types and the
 * types nested here crosses this interface, so that an implementation can live in a class
 * loader of its own, with another fabric8 version than the one the tests compile against.
 */
public interface Fabric8Electors {

	/** The version of the fabric8 jar the implementation's {@code LeaderElector} comes from. */
	String version();

	/**
	 * Starts one replica's process: a client of its own and, for every Lease, an elector that a
	 * re-entry loop starts again after it ends, since a fabric8 {@code LeaderElector} campaigns
	 * once. Electors release their Lease when cancelled.
	 */
	Campaign start(Replica replica, Timings timings, Callbacks callbacks);

	/**
	 * One replica's process.
	 *
	 * @param masterUrl where its client connects
	 * @param headers headers its client sends with every request
	 * @param identity the candidate identity written as holder
	 * @param namespace the namespace of the Leases
	 * @param leaseNames one elector per Lease
	 * @param executor runs the electors' loops and callbacks
	 * @param clockOffset how far the replica's wall clock is from the true time, read at every use
	 */
	record Replica(String masterUrl, Map<String, String> headers, String identity, String namespace,
			List<String> leaseNames, Executor executor, Supplier<Duration> clockOffset) {
	}

	/**
	 * The election timings and the client's request settings.
	 *
	 * @param retryBackoffInterval the first pause of the client's retries, doubled at each
	 * @param retryBackoffLimit how often the client retries a request on an I/O error or a 5xx
	 */
	record Timings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod, Duration requestTimeout,
			Duration connectionTimeout, Duration retryBackoffInterval, int retryBackoffLimit) {
	}

	/** What the electors of one replica tell through fabric8's {@code LeaderCallbacks}. */
	interface Callbacks {

		void startedLeading(String leaseName);

		void stoppedLeading(String leaseName);

	}

	/** A running replica process. */
	interface Campaign {

		/** Cancels every elector, as an application does on shutdown; fabric8 releases held Leases. */
		void cancel();

		/**
		 * Drops the client and every elector without a word. Requests in flight never complete:
		 * the caller interrupts the threads of the executor it gave.
		 */
		void kill();

	}

}
