package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.core.throttle.Throttler;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A TCP proxy on loopback in front of one server of the control plane: one replica's own link to
 * its API server, or an API server's link to etcd. Its traffic can be cut (connections stay open
 * and silent), its connections reset, and what passes each way delayed, without touching any
 * other link. The replicas' clients talk HTTPS through it: the harness trusts every certificate
 * and does not verify host names, so a client configuration whose server is {@link #url()} works.
 */
final class LinkProxy implements AutoCloseable {

	private final NioReactor reactor;

	private final TcpCrusher proxy;

	private volatile long requestDelayNanos = Throttler.NO_DELAY_NS;

	private volatile long answerDelayNanos = Throttler.NO_DELAY_NS;

	private LinkProxy(int serverPort) {
		try {
			this.reactor = new NioReactor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.proxy = TcpCrusherBuilder.builder()
			.withReactor(this.reactor)
			.withBindAddress("127.0.0.1", ServerProcess.freePort())
			.withConnectAddress("127.0.0.1", serverPort)
			// netcrusher's default is 64 buffers of 32 KB per connection and direction, which are
			// allocated and zeroed for every connection; each buffer held for a delay is one read
			.withBufferCount(64)
			.withBufferSize(16 * 1024)
			// netcrusher's "incoming" is what the server sends towards the client, "outgoing" what the
			// client sends towards the server (checked with a socket on each side)
			.withIncomingThrottlerFactory((client) -> (buffer) -> this.answerDelayNanos)
			.withOutgoingThrottlerFactory((client) -> (buffer) -> this.requestDelayNanos)
			.buildAndOpen();
	}

	/** A proxy to the given API server. */
	static LinkProxy to(ApiServer server) {
		return new LinkProxy(server.port());
	}

	/** A proxy to whatever listens on the given loopback port (etcd's client port, say). */
	static LinkProxy toPort(int port) {
		return new LinkProxy(port);
	}

	int port() {
		return this.proxy.getBindAddress().getPort();
	}

	/** The proxy's address as an API server's: what a client configuration names as its server. */
	String url() {
		return "https://127.0.0.1:" + port();
	}

	/** The proxy's address in plain HTTP, as etcd's clients name it. */
	String httpUrl() {
		return "http://127.0.0.1:" + port();
	}

	/**
	 * From now on nothing passes either way, and new connections are not served: a network cut,
	 * as the client sees it (no reset, no answer).
	 */
	synchronized void cut() {
		if (!this.proxy.isFrozen()) {
			this.proxy.freeze();
		}
	}

	/** Lets traffic pass again after a cut; what was held meanwhile passes on. */
	synchronized void restore() {
		if (this.proxy.isFrozen()) {
			this.proxy.unfreeze();
		}
	}

	/** Closes every open connection, as a reset from the network (or a load balancer's idle timeout) would. */
	void resetConnections() {
		this.proxy.closeAllPairs();
	}

	/** Holds everything the client sends from now on for the given time before passing it on. */
	void delayRequests(Duration latency) {
		this.requestDelayNanos = latency.toNanos();
	}

	/** Holds everything the server answers (and every watch event it sends) for the given time. */
	void delayAnswers(Duration latency) {
		this.answerDelayNanos = latency.toNanos();
	}

	void removeDelays() {
		this.requestDelayNanos = Throttler.NO_DELAY_NS;
		this.answerDelayNanos = Throttler.NO_DELAY_NS;
	}

	@Override
	public void close() {
		this.proxy.close();
		this.reactor.close();
	}

}
