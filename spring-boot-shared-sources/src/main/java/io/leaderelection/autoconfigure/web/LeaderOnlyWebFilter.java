package io.leaderelection.autoconfigure.web;

import io.leaderelection.engine.LeaderCalls;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Spring WebFlux: ends the leader-only call an admitted request runs as once its exchange has
 * completed, failed or been cancelled, the reactive body of its handler included: a release of our
 * own accord waits for it.
 */
class LeaderOnlyWebFilter implements WebFilter {

	private static final String CALL = LeaderOnlyWebFilter.class.getName() + ".call";

	/** Ends the call when the exchange ends. */
	static void endWithExchange(ServerWebExchange exchange, LeaderCalls.Call call) {
		exchange.getAttributes().put(CALL, call);
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		return chain.filter(exchange).doFinally((signal) -> {
			Object call = exchange.getAttributes().remove(CALL);
			if (call != null) {
				((LeaderCalls.Call) call).ended();
			}
		});
	}

}
