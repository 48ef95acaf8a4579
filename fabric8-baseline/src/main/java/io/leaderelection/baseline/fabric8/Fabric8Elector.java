package io.leaderelection.baseline.fabric8;

import java.net.URISyntaxException;
import java.security.CodeSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Version;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;

/**
 * fabric8's own {@code LeaderElector} behind methods made of JDK types only, so that it can be
 * loaded by {@link Fabric8Baseline} in a class loader of its own over any fabric8 7.x version
 * and driven from outside. One instance is one fabric8 client; each {@link #campaign} is one
 * elector on it.
 */
public final class Fabric8Elector implements AutoCloseable {

	private final KubernetesClient client;

	/**
	 * A client talking to the given master URL, every request of which carries the given
	 * headers. A {@code null} timing keeps fabric8's default.
	 * @param bearerToken the token it authenticates with, for a server on loopback whose own
	 * certificate it trusts (the real control plane of the tests); {@code null} for a server
	 * without authentication
	 * @param retryBackoffInterval the first pause of the client's retries on I/O errors and 5xx,
	 * doubled at each
	 * @param retryBackoffLimit how often the client retries a request
	 */
	public Fabric8Elector(String masterUrl, String namespace, Map<String, String> headers, String bearerToken,
			Duration requestTimeout, Duration connectionTimeout, Duration retryBackoffInterval,
			Integer retryBackoffLimit) {
		ConfigBuilder config = new ConfigBuilder().withMasterUrl(masterUrl)
			.withNamespace(namespace)
			.withCustomHeaders(headers);
		if (bearerToken != null) {
			config.withOauthToken(bearerToken).withTrustCerts(true).withDisableHostnameVerification(true);
		}
		if (requestTimeout != null) {
			config.withRequestTimeout((int) requestTimeout.toMillis());
		}
		if (connectionTimeout != null) {
			config.withConnectionTimeout((int) connectionTimeout.toMillis());
		}
		if (retryBackoffInterval != null) {
			config.withRequestRetryBackoffInterval((int) retryBackoffInterval.toMillis());
		}
		if (retryBackoffLimit != null) {
			config.withRequestRetryBackoffLimit(retryBackoffLimit);
		}
		this.client = withOwnClassLoader(() -> new KubernetesClientBuilder().withConfig(config.build()).build());
	}

	/** The fabric8 version whose classes this loader runs, e.g. {@code 7.8.0}. */
	public static String version() {
		return Version.clientVersion();
	}

	/** The jar fabric8's {@code LeaderElector} comes from. */
	public static String jar() {
		CodeSource source = LeaderElector.class.getProtectionDomain().getCodeSource();
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

	/**
	 * Starts one elector, fabric8's way: a {@code LeaderElector} campaigning until cancelled.
	 * The callbacks run on fabric8's threads, as fabric8 calls them.
	 * @param rejoin whether a new {@code LeaderElector} campaigns a retry period after one ends
	 * (fabric8's elector campaigns once, and stops for good when it loses leadership), as
	 * spring-cloud-kubernetes' leader initiator does
	 * @param executor runs the elector's loop and callbacks; {@code null} for the client's
	 * @param clockOffset how far this replica's wall clock is from the true time, read at every
	 * use
	 * @return what cancels the campaign (and, with {@code releaseOnCancel}, writes the release
	 * on the calling thread before it returns, as fabric8 does)
	 */
	public Runnable campaign(String namespace, String leaseName, String identity, Duration leaseDuration,
			Duration renewDeadline, Duration retryPeriod, boolean releaseOnCancel, boolean rejoin, Executor executor,
			Supplier<Duration> clockOffset, Runnable onStartLeading, Runnable onStopLeading) {
		LeaderElectionConfig config = new LeaderElectionConfigBuilder().withName(identity)
			.withLock(new SkewedLock(new LeaseLock(namespace, leaseName, identity), clockOffset))
			.withLeaseDuration(leaseDuration)
			.withRenewDeadline(renewDeadline)
			.withRetryPeriod(retryPeriod)
			.withReleaseOnCancel(releaseOnCancel)
			.withLeaderCallbacks(new LeaderCallbacks(onStartLeading::run, onStopLeading::run, (newLeader) -> {
			}))
			.build();
		Campaign campaign = new Campaign(config, rejoin, (executor != null) ? withOwnClassLoader(executor) : null);
		withOwnClassLoader(() -> {
			campaign.enter();
			return null;
		});
		return () -> withOwnClassLoader(() -> {
			campaign.cancel();
			return null;
		});
	}

	@Override
	public void close() {
		withOwnClassLoader(() -> {
			this.client.close();
			return null;
		});
	}

	/**
	 * Runs with this class's loader as the context class loader: fabric8 finds its HTTP client and
	 * serializers through the context class loader, which must see this fabric8 version.
	 */
	private static <T> T withOwnClassLoader(Supplier<T> action) {
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		thread.setContextClassLoader(Fabric8Elector.class.getClassLoader());
		try {
			return action.get();
		}
		finally {
			thread.setContextClassLoader(previous);
		}
	}

	private static Executor withOwnClassLoader(Executor executor) {
		return (task) -> executor.execute(() -> withOwnClassLoader(() -> {
			task.run();
			return null;
		}));
	}

	/** The electors of one Lease: one, or with rejoin one after another. */
	private final class Campaign {

		private final LeaderElectionConfig config;

		private final boolean rejoin;

		private final Executor executor;

		private boolean running = true;

		private CompletableFuture<?> elector;

		Campaign(LeaderElectionConfig config, boolean rejoin, Executor executor) {
			this.config = config;
			this.rejoin = rejoin;
			this.executor = executor;
		}

		synchronized void enter() {
			if (!this.running) {
				return;
			}
			LeaderElector elector = (this.executor != null)
					? new LeaderElector(Fabric8Elector.this.client, this.config, this.executor)
					: Fabric8Elector.this.client.leaderElector().withConfig(this.config).build();
			this.elector = elector.start();
			if (this.rejoin) {
				this.elector.whenComplete((result, failure) -> CompletableFuture
					.delayedExecutor(this.config.getRetryPeriod().toMillis(), TimeUnit.MILLISECONDS,
							(this.executor != null) ? this.executor : Runnable::run)
					.execute(this::enter));
			}
		}

		/** Cancels outside the lock: fabric8 releases in the cancelling thread. */
		void cancel() {
			CompletableFuture<?> elector;
			synchronized (this) {
				this.running = false;
				elector = this.elector;
			}
			elector.cancel(true);
		}

	}

}
