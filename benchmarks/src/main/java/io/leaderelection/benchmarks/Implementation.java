package io.leaderelection.benchmarks;

/** An elector implementation under test: this project's engine or a version of fabric8's. */
interface Implementation {

	/** A short key for identities and Lease names. */
	String key();

	/** Its name in tables. */
	String label();

	/** Whether followers are expected to watch the Lease (and so are ready once the watch is open). */
	boolean followersWatch();

	/**
	 * A candidate with its own client, talking to the API server (or a proxy) on the given
	 * loopback port, every request carrying its identity in {@link ApiServer#CLIENT_HEADER}.
	 * @param releaseOnStop whether {@link Candidate#stop()} releases a held Lease
	 */
	Candidate candidate(String identity, int port, String leaseName, Timings timings, boolean releaseOnStop,
			Candidate.Gates gates);

}
