package io.leaderelection.benchmarks.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/** A candidate with the log of its gate and, when it may be cut off, its own TCP proxy. */
public final class Replica implements AutoCloseable {

	public final Candidate candidate;

	public final GateLog gates;

	private final TcpCrusher proxy;

	private Replica(Candidate candidate, GateLog gates, TcpCrusher proxy) {
		this.candidate = candidate;
		this.gates = gates;
		this.proxy = proxy;
	}

	/** A replica talking to the server directly. */
	public static Replica direct(Implementation implementation, String identity, BenchmarkServer server, String leaseName,
			Timings timings, boolean releaseOnStop) {
		GateLog gates = new GateLog();
		return new Replica(implementation.candidate(identity, server.access(identity), leaseName, timings,
				releaseOnStop, gates), gates, null);
	}

	/** A replica talking to the server through a proxy of its own, which can black-hole it. */
	public static Replica proxied(Implementation implementation, String identity, BenchmarkServer server,
			NioReactor reactor, String leaseName, Timings timings, boolean releaseOnStop) {
		TcpCrusher proxy = proxy(reactor, server);
		GateLog gates = new GateLog();
		return new Replica(implementation.candidate(identity, server.access(identity, proxy.getBindAddress().getPort()),
				leaseName, timings, releaseOnStop, gates), gates, proxy);
	}

	/**
	 * A TCP proxy on a free loopback port to the server, open: frozen by
	 * {@link TcpCrusher#freeze()}, its connections stay open and pass no byte until unfrozen.
	 */
	public static TcpCrusher proxy(NioReactor reactor, BenchmarkServer server) {
		return TcpCrusherBuilder.builder()
			.withReactor(reactor)
			.withBindAddress("127.0.0.1", freePort())
			.withConnectAddress("127.0.0.1", server.port())
			.buildAndOpen();
	}

	public String identity() {
		return this.candidate.identity();
	}

	/** From now on its traffic gets no answer: connections stay open, silent. */
	public void blackHole() {
		this.proxy.freeze();
	}

	@Override
	public void close() {
		if (this.proxy != null) {
			this.proxy.close();
		}
		this.candidate.close();
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
