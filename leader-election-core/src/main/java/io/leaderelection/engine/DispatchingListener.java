package io.leaderelection.engine;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.leaderelection.RevocationCause;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands listener calls to the election's listener lane, in order; a failing listener neither
 * stops the engine nor the listeners after it.
 */
record DispatchingListener(List<ElectionListener> listeners, Executor lane) implements ElectionListener {

	private static final Logger logger = LoggerFactory.getLogger(ElectionEngine.class);

	@Override
	public void granted(String election, long fencingToken, long gateOpenedAt) {
		dispatch((listener) -> listener.granted(election, fencingToken, gateOpenedAt));
	}

	@Override
	public void revoked(String election, RevocationCause cause, long gateClosedAt) {
		dispatch((listener) -> listener.revoked(election, cause, gateClosedAt));
	}

	@Override
	public void renewed(String election, boolean success, long nanos) {
		dispatch((listener) -> listener.renewed(election, success, nanos));
	}

	private void dispatch(Consumer<ElectionListener> call) {
		this.lane.execute(() -> {
			for (ElectionListener listener : this.listeners) {
				try {
					call.accept(listener);
				}
				catch (RuntimeException ex) {
					logger.error("Leader election listener {} failed", listener, ex);
				}
			}
		});
	}

}
