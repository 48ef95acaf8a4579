package io.leaderelection.chaos;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What passed between the API server and the replicas about each Lease, as far as a fault needs
 * to time itself on it: when a replica's read was last answered 404, whether it asked anything
 * more about that Lease after such an answer and before a read found the Lease again, and when a
 * version of each Lease was last stored. A replica asks again only once it has acted on the answer
 * before (this project's engine opens a watch or reads again, fabric8's creates the Lease), so a
 * request after a 404 shows that the replica has taken the Lease for missing.
 */
final class LeaseTraffic {

	private static final long NEVER = Long.MIN_VALUE;

	/** By client and Lease: when a read was last answered 404, and when a request last came after one. */
	private final Map<String, long[]> answers = new HashMap<>();

	/** When a version of each Lease was last stored. */
	private final Map<String, Long> stored = new HashMap<>();

	/** By client, what to do once its reads of some Leases have each been answered 404. */
	private final Map<String, ReadsMissing> onReadsMissing = new HashMap<>();

	/**
	 * The server answers a request of the client about the Lease: called before the answer is
	 * sent, so that what is done on a 404 is done before the client can act on it.
	 */
	void answered(String lease, String client, String request, int code, long at) {
		boolean read = "GET".equals(request);
		Runnable action = null;
		synchronized (this) {
			long[] times = this.answers.computeIfAbsent(client + " " + lease, (key) -> new long[] { NEVER, NEVER });
			if (read && code == 200) {
				times[0] = NEVER;
				times[1] = NEVER;
				return;
			}
			if (times[0] != NEVER) {
				times[1] = at;
			}
			ReadsMissing waiting = this.onReadsMissing.get(client);
			if (read && code == 404 && waiting != null && waiting.leases.remove(lease) && waiting.leases.isEmpty()) {
				action = this.onReadsMissing.remove(client).action;
			}
			if (read && code == 404) {
				times[0] = at;
			}
		}
		if (action != null) {
			action.run();
		}
	}

	/** A version of the Lease was stored. */
	synchronized void stored(String lease, long at) {
		this.stored.put(lease, at);
	}

	/**
	 * Runs the action, once, as soon as the client's reads of the given Leases have each been
	 * answered 404 from now on: on the last of those answers, before it is sent.
	 */
	synchronized void onReadsMissing(String client, Set<String> leases, Runnable action) {
		this.onReadsMissing.put(client, new ReadsMissing(new HashSet<>(leases), action));
	}

	/** Forgets what {@link #onReadsMissing} was to do for the client, if it has not done it yet. */
	synchronized void cancelReadsMissing(String client) {
		this.onReadsMissing.remove(client);
	}

	/** Whether the client's read of the Lease was answered 404 at or after the moment. */
	synchronized boolean readMissingSince(String client, String lease, long since) {
		long[] times = this.answers.get(client + " " + lease);
		return times != null && times[0] != NEVER && times[0] - since >= 0;
	}

	/** Whether the client asked about the Lease again after a read answered 404, and no read found it since. */
	synchronized boolean actedOnMissing(String client, String lease) {
		long[] times = this.answers.get(client + " " + lease);
		return times != null && times[1] != NEVER;
	}

	/** Whether a version of the Lease was stored at or after the moment. */
	synchronized boolean storedSince(String lease, long since) {
		Long at = this.stored.get(lease);
		return at != null && at - since >= 0;
	}

	/** The Leases whose reads are yet to be answered 404, and what to do then. */
	private record ReadsMissing(Set<String> leases, Runnable action) {

	}

}
