package io.leaderelection.benchmarks.harness;

import java.time.Duration;

/** An elector implementation under test: this project's engine or a version of fabric8's. */
public interface Implementation {

	/** A short key for identities and Lease names. */
	String key();

	/** Its name in tables. */
	String label();

	/** Whether followers are expected to watch the Lease (and so are ready once the watch is open). */
	boolean followersWatch();

	/** How long after a successful renewal its leader sends the next one, with these timings. */
	default Duration renewPeriod(Timings timings) {
		return timings.retryPeriod();
	}

	/**
	 * A candidate with its own client, reaching the API server (or a proxy in front of it) as
	 * given, its Lease in the namespace given there.
	 * @param releaseOnStop whether {@link Candidate#stop()} releases a held Lease
	 */
	Candidate candidate(String identity, ClientAccess access, String leaseName, Timings timings, boolean releaseOnStop,
			Candidate.Gates gates);

	/**
	 * Starts elections on one client of their own (named {@code clientName} in
	 * {@link ApiServer#CLIENT_HEADER}), each alone on its Lease {@code lease-0} to
	 * {@code lease-(count - 1)} in the namespace, as one replica runs them.
	 */
	ElectionGroup elections(int port, String clientName, String namespace, int count, Timings timings);

}
