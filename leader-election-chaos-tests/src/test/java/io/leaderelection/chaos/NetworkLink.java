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

	/**
	 * How many buffers, of how many bytes, the proxy queues per connection and direction by
	 * default: netcrusher's own, 64 of 32 KB, 4 MB a connection both ways, allocated off-heap
	 * and zeroed for every connection opened, on the reactor's one thread.
	 */
	private static final int DEFAULT_BUFFERS = 64;

	private static final int DEFAULT_BUFFER_BYTES = 32 * 1024;

	/**
	 * The same for a link with many connections, such as a replica of balanced shards with a
	 * watch per shard: 8 of 16 KB, still ample for Lease requests and watch events, also while
	 * they are held by added latency. With the default, the hundreds of connections (re)opened at
	 * a start, an API server restart or a burst of resets kept the reactor's thread busy
	 * allocating, and replicas' connections timed out before they were accepted.
	 */
	private static final int SMALL_BUFFERS = 8;

	private static final int SMALL_BUFFER_BYTES = 16 * 1024;

	private final TcpCrusher proxy;

	private volatile long delayNanos = Throttler.NO_DELAY_NS;

	private NetworkLink(NioReactor reactor, int serverPort, int buffers, int bufferBytes) {
		this.proxy = TcpCrusherBuilder.builder()
			.withReactor(reactor)
			.withBindAddress("127.0.0.1", freePort())
			.withConnectAddress("127.0.0.1", serverPort)
			.withBufferCount(buffers)
			.withBufferSize(bufferBytes)
			.withIncomingThrottlerFactory((client) -> (buffer) -> this.delayNanos)
			.buildAndOpen();
	}

	public static NetworkLink open(NioReactor reactor, int serverPort) {
		return new NetworkLink(reactor, serverPort, DEFAULT_BUFFERS, DEFAULT_BUFFER_BYTES);
	}

	/** A link for many connections at once: smaller queues per connection (see {@link #SMALL_BUFFERS}). */
	public static NetworkLink openForManyConnections(NioReactor reactor, int serverPort) {
		return new NetworkLink(reactor, serverPort, SMALL_BUFFERS, SMALL_BUFFER_BYTES);
	}

	/** The port a client connects to instead of the server's. */
	public int port() {
		return this.proxy.getBindAddress().getPort();
	}

	/**
	 * From now on nothing passes either way: connections stay open and silent. A link black-holed
	 * already stays so (netcrusher refuses to freeze a frozen proxy).
	 */
	public synchronized void blackHole() {
		if (!this.proxy.isFrozen()) {
			this.proxy.freeze();
		}
	}

	/** Lets traffic pass again after a black hole. */
	public synchronized void restore() {
		if (this.proxy.isFrozen()) {
			this.proxy.unfreeze();
		}
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

	/** Whether traffic is black-holed now. */
	public boolean blackHoled() {
		return this.proxy.isFrozen();
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
