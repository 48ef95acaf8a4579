package io.leaderelection.chaos.fabric8;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;

/**
 * {@link Fabric8Electors} on whatever fabric8 version this class is loaded with. It is compiled
 * against the test's fabric8 and uses only API that later 7.x versions keep unchanged, so the
 * same class runs any of them when loaded in a class loader with their jars.
 */
public final class Fabric8ElectorsImpl implements Fabric8Electors {

	private static final Pattern API_JAR = Pattern.compile("kubernetes-client-api-([^/]+)\\.jar$");

	@Override
	public String version() {
		String jar = LeaderElector.class.getProtectionDomain().getCodeSource().getLocation().getPath();
		Matcher version = API_JAR.matcher(jar);
		return version.find() ? version.group(1) : jar;
	}

	@Override
	public Campaign start(Replica replica, Timings timings, Callbacks callbacks) {
		return withOwnClassLoader(() -> new ReplicaCampaign(replica, timings, callbacks));
	}

	/**
	 * Runs with this class's loader as the context class loader: fabric8 finds its HTTP client
	 * through a ServiceLoader on the context class loader, which must see the same fabric8.
	 */
	private static <T> T withOwnClassLoader(Supplier<T> action) {
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		thread.setContextClassLoader(Fabric8ElectorsImpl.class.getClassLoader());
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

	private static final class ReplicaCampaign implements Campaign {

		private final KubernetesClient client;

		private final List<LeaseCampaign> leases;

		ReplicaCampaign(Replica replica, Timings timings, Callbacks callbacks) {
			this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl(replica.masterUrl())
				.withNamespace(replica.namespace())
				.withCustomHeaders(replica.headers())
				.withRequestTimeout((int) timings.requestTimeout().toMillis())
				.withConnectionTimeout((int) timings.connectionTimeout().toMillis())
				.withRequestRetryBackoffInterval((int) timings.retryBackoffInterval().toMillis())
				.withRequestRetryBackoffLimit(timings.retryBackoffLimit())
				.build()).build();
			Executor executor = withOwnClassLoader(replica.executor());
			this.leases = replica.leaseNames().stream().map((leaseName) -> {
				LeaderElectionConfig config = new LeaderElectionConfigBuilder().withName(leaseName)
					.withLock(new SkewedLock(new LeaseLock(replica.namespace(), leaseName, replica.identity()),
							replica.clockOffset()))
					.withLeaseDuration(timings.leaseDuration())
					.withRenewDeadline(timings.renewDeadline())
					.withRetryPeriod(timings.retryPeriod())
					.withReleaseOnCancel(true)
					.withLeaderCallbacks(new LeaderCallbacks(() -> callbacks.startedLeading(leaseName),
							() -> callbacks.stoppedLeading(leaseName), (newLeader) -> {
							}))
					.build();
				return new LeaseCampaign(this.client, config, executor);
			}).toList();
			this.leases.forEach(LeaseCampaign::enter);
		}

		@Override
		public void cancel() {
			withOwnClassLoader(() -> {
				this.leases.forEach(LeaseCampaign::cancel);
				this.client.close();
				return null;
			});
		}

		/**
		 * Closes the client first, so that nothing more is sent. fabric8 cancels in the calling
		 * thread and may wait there for an elector stuck on a request the closed client never
		 * completes, so the electors are cancelled on a thread of their own.
		 */
		@Override
		public void kill() {
			withOwnClassLoader(() -> {
				this.client.close();
				return null;
			});
			Thread cancelling = new Thread(() -> this.leases.forEach(LeaseCampaign::cancel), "fabric8-kill");
			cancelling.setDaemon(true);
			cancelling.setContextClassLoader(Fabric8ElectorsImpl.class.getClassLoader());
			cancelling.start();
		}

	}

	/**
	 * The electors of one Lease, one after another: when one ends, another starts after a retry
	 * period, as spring-cloud-kubernetes' re-entry loop does.
	 */
	private static final class LeaseCampaign {

		private final KubernetesClient client;

		private final LeaderElectionConfig config;

		private final Executor executor;

		private boolean running = true;

		private CompletableFuture<?> elector;

		LeaseCampaign(KubernetesClient client, LeaderElectionConfig config, Executor executor) {
			this.client = client;
			this.config = config;
			this.executor = executor;
		}

		synchronized void enter() {
			if (this.running) {
				this.elector = new LeaderElector(this.client, this.config, this.executor).start();
				this.elector.whenComplete((result, failure) -> CompletableFuture
					.delayedExecutor(this.config.getRetryPeriod().toMillis(), TimeUnit.MILLISECONDS, this.executor)
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
