package io.leaderelection.autoconfigure.web;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.LeaderStatus;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAttributeSource;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderCalls;

import org.springframework.web.method.HandlerMethod;

/**
 * What the web layer decides for a request to a handler that is {@code @LeaderOnly} (on its
 * method or class), in either web stack: on a replica whose gate is open, the request runs as
 * leader work (a release of our own accord waits for it) and its answer names the holder and the
 * fencing token; anywhere else it is refused, 503 with {@code Retry-After}, and never runs.
 * A route to the leader is updated with a delay (kube-proxy, load balancers), so a request can
 * still reach a replica that stopped leading: this is where it is turned away.
 */
final class LeaderOnlyRequests {

	/** Names the holder of the election's Lease: on a leader's answers, and on a refusal when one is known. */
	static final String HOLDER_HEADER = "Leader-Election-Holder";

	/** The fencing token of the term a leader's answer was given under. */
	static final String FENCING_TOKEN_HEADER = "Leader-Election-Fencing-Token";

	/** Retry-After of a refusal for an election not configured here: one second. */
	private static final long DEFAULT_RETRY_AFTER = 1;

	private final LeaderOnlyAttributeSource attributes = new LeaderOnlyAttributeSource();

	private final LeaderElector elector;

	private final LeaderOnlyRegistry registry;

	/** Retry-After, in seconds, by election: its retry period, rounded up. */
	private final Map<String, Long> retryAfter = new LinkedHashMap<>();

	LeaderOnlyRequests(LeaderElector elector, LeaderOnlyRegistry registry, LeaderElectionSettings settings) {
		this.elector = elector;
		this.registry = registry;
		for (ElectionSettings election : settings.elections()) {
			Duration period = election.retryPeriod();
			this.retryAfter.put(election.name(), Math.max(1, (period.toMillis() + 999) / 1000));
		}
	}

	/** The {@code @LeaderOnly} of the handler, on its method or class; {@code null} for any other handler. */
	LeaderOnly leaderOnly(Object handler) {
		if (handler instanceof HandlerMethod method) {
			return this.attributes.find(method.getMethod(), method.getBeanType());
		}
		return null;
	}

	/**
	 * Admits a request to the handler, gated by the annotation, unless it is keyed by a shard (the
	 * key is an argument, known only when the handler is called, where the call refuses itself).
	 * <p>
	 * The request is registered as a leader-only call, for the whole request, before the gate is
	 * read: a release waits for every request that found the gate open, until its answer is
	 * written, however the handler produces it (a body written or emitted after the handler
	 * returned included). The handler's own {@code @LeaderOnly} call reads the gate again (refusing
	 * itself if it closed meanwhile); made on the thread that registered the request, it is part of
	 * the request's call rather than another one.
	 * @return the admission, whose call, if any, the caller ends with the request; or a refusal
	 */
	Admission admit(Object handler, LeaderOnly leaderOnly) {
		if (!leaderOnly.key().isEmpty()) {
			return new Admission(null, Map.of(), null);
		}
		String election = leaderOnly.value();
		LeaderCalls.Call call = this.registry.enter(election, leaderOnly.interruptOnRevoke(),
				((HandlerMethod) handler).getMethod());
		if (call == null) {
			return new Admission(null, Map.of(),
					refusal(NotLeaderException.shuttingDown(election, this.elector.status(election).holderIdentity())));
		}
		LeaderStatus status = this.elector.status(election);
		if (!status.leader()) {
			if (call != null) {
				call.exit();
			}
			return new Admission(null, Map.of(), refusal(new NotLeaderException(election, status.holderIdentity())));
		}
		Map<String, String> headers = new LinkedHashMap<>();
		if (status.holderIdentity() != null) {
			headers.put(HOLDER_HEADER, status.holderIdentity());
		}
		headers.put(FENCING_TOKEN_HEADER, String.valueOf(status.fencingToken()));
		return new Admission(call, headers, null);
	}

	/** The answer to a request refused because this replica does not lead. */
	Refusal refusal(NotLeaderException notLeader) {
		long retryAfter = this.retryAfter.getOrDefault(notLeader.getElection(), DEFAULT_RETRY_AFTER);
		Map<String, String> headers = new LinkedHashMap<>();
		headers.put("Retry-After", Long.toString(retryAfter));
		if (notLeader.getHolderIdentity() != null) {
			headers.put(HOLDER_HEADER, notLeader.getHolderIdentity());
		}
		return new Refusal(headers, notLeader.getMessage() + "\n");
	}

	/**
	 * A request admitted, or refused.
	 *
	 * @param call the leader-only call it runs as, which the web layer ends with the request;
	 * {@code null} when refused or keyed by a shard
	 * @param headers the headers of the answer: the holder and the fencing token
	 * @param refusal the answer instead, {@code null} when admitted
	 */
	record Admission(LeaderCalls.Call call, Map<String, String> headers, Refusal refusal) {

	}

	/**
	 * The answer to a refused request: 503 with these headers and a plain text body.
	 *
	 * @param headers {@code Retry-After}, and the holder this replica last saw, when there is one
	 * @param body why
	 */
	record Refusal(Map<String, String> headers, String body) {

		static final int STATUS = 503;

	}

}
