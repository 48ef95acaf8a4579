package io.leaderelection.benchmarks.routing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Clients of the leader-only Service, each sending a request every {@value #PAUSE_MILLIS} ms
 * along the route the EndpointSlice named a kube-proxy delay ago: what a Service's clients get
 * while kube-proxy (or a load balancer) applies a change of the slice late.
 */
final class RouteClients implements AutoCloseable {

	private static final long PAUSE_MILLIS = 20;

	private final SliceTimeline timeline;

	private final long delayNanos;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean running = true;

	/** Answered 200: served by the replica the route led to. */
	final LongAdder served = new LongAdder();

	/** Answered 503: refused by a replica whose gate was closed. */
	final LongAdder refused = new LongAdder();

	/** Any other answer. */
	final LongAdder otherStatus = new LongAdder();

	/** No answer: connection refused (a stopped web server) or timed out. */
	final LongAdder failed = new LongAdder();

	/** Not sent: the route named no replica. */
	final LongAdder noRoute = new LongAdder();

	RouteClients(SliceTimeline timeline, Duration proxyDelay, int clients) {
		this.timeline = timeline;
		this.delayNanos = proxyDelay.toNanos();
		for (int i = 0; i < clients; i++) {
			Thread thread = new Thread(this::run, "route-client-" + i);
			thread.setDaemon(true);
			thread.start();
			this.threads.add(thread);
		}
	}

	private void run() {
		while (this.running) {
			String route = this.timeline.routeAt(System.nanoTime() - this.delayNanos);
			if (route == null) {
				this.noRoute.increment();
			}
			else {
				send(route);
			}
			try {
				Thread.sleep(PAUSE_MILLIS);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/**
	 * Sends a request along the route ({@code address:port}) as kube-proxy forwards it: to this
	 * host, at the endpoint's port.
	 */
	private void send(String route) {
		String port = route.substring(route.lastIndexOf(':') + 1);
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + RoutedReplica.PATH))
			.timeout(Duration.ofSeconds(2))
			.build();
		try {
			int status = this.http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
			(status == 200 ? this.served : status == 503 ? this.refused : this.otherStatus).increment();
		}
		catch (IOException ex) {
			this.failed.increment();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	long sent() {
		return this.served.sum() + this.refused.sum() + this.otherStatus.sum() + this.failed.sum();
	}

	@Override
	public void close() throws InterruptedException {
		this.running = false;
		for (Thread thread : this.threads) {
			thread.join(5_000);
		}
	}

}
