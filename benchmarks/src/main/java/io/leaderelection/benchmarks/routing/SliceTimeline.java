package io.leaderelection.benchmarks.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.leaderelection.benchmarks.harness.ApiServer;

/**
 * Every version of the leader-only EndpointSlice, as a watch delivers it, with the moment it
 * arrived on the JVM's monotonic clock: what kube-proxy learns and when. Beside the watch, a read
 * every {@value #SAMPLE_MILLIS} ms counts the samples that name more than one address.
 */
final class SliceTimeline implements AutoCloseable {

	static final long SAMPLE_MILLIS = 50;

	private final List<Version> versions = new ArrayList<>();

	private final Watch watch;

	private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "slice-sampler");
		thread.setDaemon(true);
		return thread;
	});

	private final AtomicLong samples = new AtomicLong();

	private final AtomicLong samplesNamingTwo = new AtomicLong();

	private final AtomicLong versionsNamingTwo = new AtomicLong();

	SliceTimeline(KubernetesClient client) {
		this.watch = client.discovery()
			.v1()
			.endpointSlices()
			.inNamespace(ApiServer.NAMESPACE)
			.withName(RoutedReplica.SERVICE)
			.watch(new Watcher<>() {
				@Override
				public void eventReceived(Action action, EndpointSlice slice) {
					record(System.nanoTime(), (action == Action.DELETED) ? null : slice);
				}

				@Override
				public void onClose(WatcherException cause) {
				}
			});
		this.sampler.scheduleWithFixedDelay(() -> {
			try {
				EndpointSlice slice = client.discovery()
					.v1()
					.endpointSlices()
					.inNamespace(ApiServer.NAMESPACE)
					.withName(RoutedReplica.SERVICE)
					.get();
				this.samples.incrementAndGet();
				if (slice != null && addresses(slice).size() > 1) {
					this.samplesNamingTwo.incrementAndGet();
				}
			}
			catch (RuntimeException ex) {
				// a sample lost: the next one comes
			}
		}, SAMPLE_MILLIS, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
	}

	private synchronized void record(long at, EndpointSlice slice) {
		List<String> addresses = (slice != null) ? addresses(slice) : List.of();
		if (addresses.size() > 1) {
			this.versionsNamingTwo.incrementAndGet();
		}
		String route = null;
		if (!addresses.isEmpty() && slice.getPorts() != null && !slice.getPorts().isEmpty()) {
			route = addresses.get(0) + ":" + slice.getPorts().get(0).getPort();
		}
		String token = (slice != null && slice.getMetadata().getAnnotations() != null)
				? slice.getMetadata().getAnnotations().get("leaderelection.io/fencing-token") : null;
		this.versions.add(new Version(at, addresses.isEmpty() ? null : addresses.get(0), route, token));
	}

	/** The route ({@code address:port}) the slice named at the given moment; {@code null} when none. */
	synchronized String routeAt(long at) {
		for (int i = this.versions.size() - 1; i >= 0; i--) {
			if (this.versions.get(i).at() - at <= 0) {
				return this.versions.get(i).route();
			}
		}
		return null;
	}

	/** The address the slice names now; {@code null} when none. */
	synchronized String address() {
		return this.versions.isEmpty() ? null : this.versions.get(this.versions.size() - 1).address();
	}

	/**
	 * When the slice first named another address than the given one after the given moment;
	 * {@code null} if it has not yet.
	 */
	synchronized Long namedOtherThan(String address, long after) {
		for (Version version : this.versions) {
			if (version.at() - after > 0 && version.address() != null && !version.address().equals(address)) {
				return version.at();
			}
		}
		return null;
	}

	/**
	 * When the slice stopped naming the given address, at or after the given moment: that moment
	 * if it did not name it then; {@code null} if it still does.
	 */
	synchronized Long stoppedNaming(String address, long from) {
		boolean namedThen = false;
		for (Version version : this.versions) {
			if (version.at() - from <= 0) {
				namedThen = address.equals(version.address());
			}
			else if (!namedThen) {
				return from;
			}
			else if (!address.equals(version.address())) {
				return version.at();
			}
		}
		return namedThen ? null : from;
	}

	synchronized List<Version> versions() {
		return List.copyOf(this.versions);
	}

	long samples() {
		return this.samples.get();
	}

	long samplesNamingTwo() {
		return this.samplesNamingTwo.get();
	}

	long versionsNamingTwo() {
		return this.versionsNamingTwo.get();
	}

	static List<String> addresses(EndpointSlice slice) {
		List<String> addresses = new ArrayList<>();
		for (Endpoint endpoint : (slice.getEndpoints() != null) ? slice.getEndpoints() : List.<Endpoint>of()) {
			addresses.addAll(endpoint.getAddresses());
		}
		return addresses;
	}

	@Override
	public void close() {
		this.sampler.shutdownNow();
		this.watch.close();
	}

	/**
	 * A version of the slice.
	 *
	 * @param at when the watch delivered it
	 * @param address the address it names, {@code null} when none
	 * @param route {@code address:port}, {@code null} when none
	 * @param token the fencing token it was written under
	 */
	record Version(long at, String address, String route, String token) {

	}

}
