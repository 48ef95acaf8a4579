package io.leaderelection.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.core.throttle.Throttler;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * One replica's own path to the API server: a TCP proxy on loopback whose traffic can be
 * black-holed, whose connections can be reset and whose requests can be delayed, without
 * touching any other replica.
 */
public final class NetworkLink implements AutoCloseable {

	private final TcpCrusher proxy;

	private volatile long delayNanos = Throttler.NO_DELAY_NS;

	private NetworkLink(NioReactor reactor, int serverPort) {
		this.proxy = TcpCrusherBuilder.builder()
			.withReactor(reactor)
			.withBindAddress("127.0.0.1", freePort())
			.withConnectAddress("127.0.0.1", serverPort)
			.withIncomingThrottlerFactory((client) -> (buffer) -> this.delayNanos)
			.buildAndOpen();
	}

	public static NetworkLink open(NioReactor reactor, int serverPort) {
		return new NetworkLink(reactor, serverPort);
	}

	/** The port a client connects to instead of the server's. */
	public int port() {
		return this.proxy.getBindAddress().getPort();
	}

	/** From now on nothing passes either way: connections stay open and silent. */
	public void blackHole() {
		this.proxy.freeze();
	}

	/** Lets traffic pass again after a black hole. */
	public void restore() {
		this.proxy.unfreeze();
	}

	/** Closes every open connection, as a reset from the network would. */
	public void resetConnections() {
		this.proxy.closeAllPairs();
	}

	/** Holds every request sent from now on for the given time before passing it on. */
	public void delay(Duration latency) {
		this.delayNanos = latency.toNanos();
	}

	public void removeDelay() {
		this.delayNanos = Throttler.NO_DELAY_NS;
	}

	@Override
	public void close() {
		this.proxy.close();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
