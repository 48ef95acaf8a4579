package io.leaderelection.autoconfigure.web;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.LeaderStatus;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAttributeSource;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderCalls;

import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
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

	/** The return types of Spring MVC's asynchronous request processing, by name: MVC may be absent. */
	private static final List<String> ASYNC_RESULTS = List.of("java.util.concurrent.Callable",
			"org.springframework.web.context.request.async.DeferredResult",
			"org.springframework.web.context.request.async.WebAsyncTask",
			"org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
			"org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody");

	/** Whether each handler method's work goes on after it returned. */
	private final Map<Method, Boolean> outliving = new ConcurrentHashMap<>();

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
	 * The handler's own {@code @LeaderOnly} call registers, reads the gate again (refusing itself if
	 * it closed meanwhile) and is waited for by a release; but that call ends when the handler
	 * returns, or its {@code CompletionStage} completes. A handler whose work goes on after it
	 * returned, as a publisher or an asynchronous result of Spring MVC, is therefore registered
	 * here, for the whole request, before the gate is read: a release waits for every such request
	 * that found the gate open.
	 * @param what the request, for the log of a drain that waits for it
	 * @return the admission, whose call, if any, the caller ends with the request; or a refusal
	 */
	Admission admit(Object handler, LeaderOnly leaderOnly, Object what) {
		if (!leaderOnly.key().isEmpty()) {
			return new Admission(null, Map.of(), null);
		}
		String election = leaderOnly.value();
		boolean register = outlivesItsCall((HandlerMethod) handler);
		LeaderCalls.Call call = register ? this.registry.enter(election, false, what) : null;
		if (register && call == null) {
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

	/**
	 * Whether the handler's work goes on after it returned: it returns a publisher (or another
	 * reactive type but a {@code CompletionStage}, which its call follows) or an asynchronous
	 * result of Spring MVC.
	 */
	private boolean outlivesItsCall(HandlerMethod handler) {
		return this.outliving.computeIfAbsent(handler.getMethod(), (method) -> {
			Class<?> type = method.getReturnType();
			if (CompletionStage.class.isAssignableFrom(type)) {
				return false;
			}
			return ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null
					|| ASYNC_RESULTS.stream().anyMatch((name) -> isAssignable(name, type));
		});
	}

	private static boolean isAssignable(String className, Class<?> type) {
		try {
			return ClassUtils.forName(className, type.getClassLoader()).isAssignableFrom(type);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
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
