package io.leaderelection.migration;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the API server answered the replicas of a test, and when, on {@link System#nanoTime()},
 * with what the test notes beside: for the message of a failure, a timeline of requests and
 * events. The {@link MigrationApiServer} records each request as it answers it
 * ({@link MigrationApiServer#recordRequests}), under the name of the replica that sent it (its
 * client's {@code User-Agent}); writes show the ConfigMap keys or the Lease holder they write.
 */
public final class RequestTimeline {

	/** A leader key of the old protocol in a ConfigMap's JSON, and its value. */
	private static final Pattern LEADER_KEY = Pattern.compile("\"(leader\\.id\\.[^\"]*)\"\\s*:\\s*\"([^\"]*)\"");

	/** The holder in a Lease's JSON. */
	private static final Pattern HOLDER = Pattern.compile("\"holderIdentity\"\\s*:\\s*\"([^\"]*)\"");

	private final Queue<Entry> entries = new ConcurrentLinkedQueue<>();

	/** Notes an event, now. */
	public void note(String text) {
		this.entries.add(new Entry(System.nanoTime(), text));
	}

	/**
	 * The server answered a request, now.
	 * @param agent the {@code User-Agent} of the client, the replica's name when it has one
	 * @param body the request's body, for a write; else {@code null}
	 */
	void answered(String agent, String method, String path, int code, String body) {
		String who = (agent == null || agent.startsWith("fabric8")) ? "(test)" : agent;
		StringBuilder text = new StringBuilder(who).append(": ")
			.append(method)
			.append(' ')
			.append(path)
			.append(" -> ")
			.append(code);
		if (body != null) {
			text.append(written(path, body));
		}
		note(text.toString());
	}

	private static String written(String path, String body) {
		if (path.contains("/configmaps")) {
			List<String> keys = new ArrayList<>();
			Matcher matcher = LEADER_KEY.matcher(body);
			while (matcher.find()) {
				keys.add(matcher.group(1) + "=" + matcher.group(2));
			}
			return keys.isEmpty() ? " (no leader key)" : " " + keys;
		}
		if (path.contains("/leases")) {
			Matcher matcher = HOLDER.matcher(body);
			return matcher.find() ? " (holder " + matcher.group(1) + ")" : " (no holder)";
		}
		return "";
	}

	/**
	 * The entries between the given {@link System#nanoTime()}s ({@code to} may be
	 * {@link Long#MAX_VALUE}), in time order, with the beginnings and ends of the terms recorded,
	 * in milliseconds from the origin.
	 */
	public String describe(long from, long to, long origin, LeadershipIntervals terms) {
		List<Entry> all = new ArrayList<>(this.entries);
		for (LeadershipIntervals.Interval term : terms.intervals()) {
			all.add(new Entry(term.from(), "** " + term.holder() + " begins leading"));
			if (!term.isOpen()) {
				all.add(new Entry(term.to(), "** " + term.holder() + " ends leading"));
			}
		}
		StringBuilder text = new StringBuilder();
		all.stream()
			.filter((entry) -> entry.at() - from >= 0 && (to == Long.MAX_VALUE || to - entry.at() >= 0))
			.sorted(Comparator.comparingLong(Entry::at))
			.forEach((entry) -> text.append(String.format("%n  %9.3f ms  %s", (entry.at() - origin) / 1_000_000.0,
					entry.text())));
		return text.toString();
	}

	private record Entry(long at, String text) {
	}

}
