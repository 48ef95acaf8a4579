package io.leaderelection.autoconfigure.web;

import java.nio.charset.StandardCharsets;

import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.web.LeaderOnlyRequests.Admission;
import io.leaderelection.autoconfigure.web.LeaderOnlyRequests.Refusal;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.server.ServerWebExchange;

/**
 * Spring WebFlux: handles the requests to {@code @LeaderOnly} handler methods ahead of the
 * {@link RequestMappingHandlerAdapter} it hands them to once admitted. Off the leader it answers
 * 503 with {@code Retry-After} and the handler never runs; on the leader its answer names the
 * holder and the fencing token, and the request runs as leader work until the exchange completes,
 * its body included, when {@link LeaderOnlyWebFilter} ends it. A handler call that found the gate closed after
 * all (it closed in between), or, keyed by a shard, that shard led elsewhere, is answered the same
 * 503, after the application's own exception handlers had their turn.
 * <p>
 * An adapter rather than a filter: it is given the handler the request maps to, which a filter
 * would have to look up a second time.
 */
class LeaderOnlyHandlerAdapter implements HandlerAdapter, Ordered {

	private final LeaderOnlyRequests requests;

	private final SingletonSupplier<RequestMappingHandlerAdapter> handlerAdapter;

	LeaderOnlyHandlerAdapter(LeaderOnlyRequests requests, ObjectProvider<RequestMappingHandlerAdapter> handlerAdapter) {
		this.requests = requests;
		this.handlerAdapter = SingletonSupplier.of(handlerAdapter::getObject);
	}

	@Override
	public boolean supports(Object handler) {
		return this.requests.leaderOnly(handler) != null;
	}

	@Override
	public Mono<HandlerResult> handle(ServerWebExchange exchange, Object handler) {
		LeaderOnly leaderOnly = this.requests.leaderOnly(handler);
		Admission admission = this.requests.admit(handler, leaderOnly);
		if (admission.refusal() != null) {
			return refuse(exchange, admission.refusal());
		}
		if (admission.call() != null) {
			// the request goes on off this thread, its body too: the filter ends the call with the exchange
			admission.call().returned();
			LeaderOnlyWebFilter.endWithExchange(exchange, admission.call());
		}
		admission.headers().forEach(exchange.getResponse().getHeaders()::set);
		return this.handlerAdapter.obtain()
			.handle(exchange, handler)
			.onErrorResume(NotLeaderException.class,
					(notLeader) -> refuse(exchange, this.requests.refusal(notLeader)));
	}

	/** Ahead of the adapter of annotated controllers, which supports every handler method. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	private static Mono<HandlerResult> refuse(ServerWebExchange exchange, Refusal refusal) {
		ServerHttpResponse response = exchange.getResponse();
		if (response.isCommitted()) {
			return Mono.empty();
		}
		response.getHeaders().remove(LeaderOnlyRequests.FENCING_TOKEN_HEADER);
		response.setStatusCode(HttpStatus.valueOf(Refusal.STATUS));
		refusal.headers().forEach(response.getHeaders()::set);
		response.getHeaders().setContentType(new MediaType(MediaType.TEXT_PLAIN, StandardCharsets.UTF_8));
		return response
			.writeWith(Mono.fromSupplier(
					() -> response.bufferFactory().wrap(refusal.body().getBytes(StandardCharsets.UTF_8))))
			.then(Mono.empty());
	}

}
