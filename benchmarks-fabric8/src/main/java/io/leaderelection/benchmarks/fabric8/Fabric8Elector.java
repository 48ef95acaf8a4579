package io.leaderelection.benchmarks.fabric8;

import java.net.URISyntaxException;
import java.security.CodeSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Version;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;

/**
 * fabric8's own {@code LeaderElector} behind an interface made of JDK types only, so that the
 * benchmarks can load it in a class loader of its own over any fabric8 version and drive it
 * from outside. One instance is one fabric8 client (with default settings, a master URL and a
 * header that names it to the API server); each {@link #campaign} is one elector on it.
 */
public final class Fabric8Elector implements AutoCloseable {

	private final KubernetesClient client;

	/**
	 * A client with fabric8's defaults, talking to the given master URL, every request of which
	 * carries the given header.
	 */
	public Fabric8Elector(String masterUrl, String namespace, String headerName, String headerValue) {
		this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl(masterUrl)
			.withNamespace(namespace)
			.withCustomHeaders(Map.of(headerName, headerValue))
			.build()).build();
	}

	/** The fabric8 version whose classes this loader runs, and the jar they come from. */
	public static String version() {
		return Version.clientVersion() + " (" + location(LeaderElector.class) + ")";
	}

	/**
	 * Starts one elector, fabric8's way: a new {@code LeaderElector} campaigning until cancelled.
	 * The callbacks run on fabric8's threads, as fabric8 calls them.
	 * @return what cancels the campaign (and, with {@code releaseOnCancel}, writes the release
	 * on the calling thread before it returns, as fabric8 does)
	 */
	public Runnable campaign(String namespace, String leaseName, String identity, Duration leaseDuration,
			Duration renewDeadline, Duration retryPeriod, boolean releaseOnCancel, Runnable onStartLeading,
			Runnable onStopLeading) {
		LeaderCallbacks callbacks = new LeaderCallbacks(onStartLeading::run, onStopLeading::run, (newLeader) -> {
		});
		LeaderElector elector = this.client.leaderElector()
			.withConfig(new LeaderElectionConfigBuilder().withName(identity)
				.withLock(new LeaseLock(namespace, leaseName, identity))
				.withLeaseDuration(leaseDuration)
				.withRenewDeadline(renewDeadline)
				.withRetryPeriod(retryPeriod)
				.withReleaseOnCancel(releaseOnCancel)
				.withLeaderCallbacks(callbacks)
				.build())
			.build();
		CompletableFuture<?> running = elector.start();
		return () -> running.cancel(true);
	}

	@Override
	public void close() {
		this.client.close();
	}

	private static String location(Class<?> type) {
		CodeSource source = type.getProtectionDomain().getCodeSource();
		if (source == null || source.getLocation() == null) {
			return "unknown location";
		}
		try {
			String path = source.getLocation().toURI().getPath();
			return path.substring(path.lastIndexOf('/', path.length() - 2) + 1);
		}
		catch (URISyntaxException ex) {
			return source.getLocation().toString();
		}
	}

}
