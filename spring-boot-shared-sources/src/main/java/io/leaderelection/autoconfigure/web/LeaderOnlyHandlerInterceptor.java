package io.leaderelection.autoconfigure.web;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.web.LeaderOnlyRequests.Admission;
import io.leaderelection.autoconfigure.web.LeaderOnlyRequests.Refusal;
import io.leaderelection.engine.LeaderCalls;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.MediaType;
import org.springframework.web.servlet.AsyncHandlerInterceptor;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Spring MVC: refuses a request to a {@code @LeaderOnly} handler off the leader (503,
 * {@code Retry-After}) before the handler runs; on the leader its answer names the holder and the
 * fencing token, and the request runs as leader work until it completes, an asynchronous result
 * or a streamed body included. As an exception resolver, after the
 * application's own exception handlers, it answers the same 503 when the handler's call found the
 * gate closed after all (it closed in between) or, keyed by a shard, that shard led elsewhere.
 */
class LeaderOnlyHandlerInterceptor implements AsyncHandlerInterceptor, HandlerExceptionResolver {

	/** The request attribute holding the call an admitted request runs as, when the web layer registered one. */
	private static final String CALL = LeaderOnlyHandlerInterceptor.class.getName() + ".call";

	/** Set once the handler returned with the request going on asynchronously. */
	private static final String ASYNC = LeaderOnlyHandlerInterceptor.class.getName() + ".async";

	private final LeaderOnlyRequests requests;

	LeaderOnlyHandlerInterceptor(LeaderOnlyRequests requests) {
		this.requests = requests;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
			throws IOException {
		if (request.getDispatcherType() == DispatcherType.ASYNC) {
			// the dispatch that writes the asynchronous result of a request admitted before
			return true;
		}
		LeaderOnly leaderOnly = this.requests.leaderOnly(handler);
		if (leaderOnly == null) {
			return true;
		}
		Admission admission = this.requests.admit(handler, leaderOnly);
		if (admission.refusal() != null) {
			refuse(response, admission.refusal());
			return false;
		}
		admission.headers().forEach(response::setHeader);
		if (admission.call() != null) {
			request.setAttribute(CALL, admission.call());
		}
		return true;
	}

	@Override
	public void afterConcurrentHandlingStarted(HttpServletRequest request, HttpServletResponse response,
			Object handler) {
		LeaderCalls.Call call = (LeaderCalls.Call) request.getAttribute(CALL);
		if (call != null && request.getAttribute(ASYNC) == null) {
			request.setAttribute(ASYNC, Boolean.TRUE);
			call.returned();
		}
	}

	@Override
	public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
			Exception ex) {
		LeaderCalls.Call call = (LeaderCalls.Call) request.getAttribute(CALL);
		if (call == null) {
			return;
		}
		request.removeAttribute(CALL);
		if (request.getAttribute(ASYNC) != null) {
			call.ended();
		}
		else {
			call.exit();
		}
	}

	@Override
	public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
			Exception ex) {
		if (!(ex instanceof NotLeaderException notLeader) || this.requests.leaderOnly(handler) == null
				|| response.isCommitted()) {
			return null;
		}
		try {
			resetKeepingOtherHeaders(response);
			refuse(response, this.requests.refusal(notLeader));
		}
		catch (IOException failure) {
			return null;
		}
		return new ModelAndView();
	}

	/**
	 * Resets the answer but for the headers others set (CORS, for one): only those naming this
	 * replica the leader go. The servlet API can reset a response, not remove one header.
	 */
	private static void resetKeepingOtherHeaders(HttpServletResponse response) {
		Map<String, List<String>> kept = new LinkedHashMap<>();
		for (String name : response.getHeaderNames()) {
			if (!name.equalsIgnoreCase(LeaderOnlyRequests.HOLDER_HEADER)
					&& !name.equalsIgnoreCase(LeaderOnlyRequests.FENCING_TOKEN_HEADER)) {
				kept.put(name, List.copyOf(response.getHeaders(name)));
			}
		}
		response.reset();
		kept.forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
	}

	private static void refuse(HttpServletResponse response, Refusal refusal) throws IOException {
		response.setStatus(Refusal.STATUS);
		refusal.headers().forEach(response::setHeader);
		response.setContentType(MediaType.TEXT_PLAIN_VALUE);
		response.setCharacterEncoding("UTF-8");
		response.getWriter().write(refusal.body());
	}

}
