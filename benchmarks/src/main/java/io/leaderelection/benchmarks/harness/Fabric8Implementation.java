package io.leaderelection.benchmarks.harness;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.leaderelection.baseline.fabric8.Fabric8Baseline;

/**
 * fabric8's {@code LeaderElector} through the fabric8-baseline module: over fabric8 7.8.0's
 * class path in a class loader of its own, or over this module's own class path, which has the
 * 7.3.1 that spring-cloud-kubernetes brings. Each client has fabric8's default settings.
 */
public final class Fabric8Implementation implements Implementation {

	private final String key;

	private final Fabric8Baseline fabric8;

	private Fabric8Implementation(String key, Fabric8Baseline fabric8) {
		this.key = key;
		this.fabric8 = fabric8;
	}

	/** fabric8 as this module has it (7.3.1, from spring-cloud-kubernetes). */
	public static Fabric8Implementation onOwnClasspath(String key) {
		return new Fabric8Implementation(key, Fabric8Baseline.onClassPath());
	}

	/** fabric8 from the class path file written by the fabric8-baseline module (7.8.0). */
	public static Fabric8Implementation isolated(String key) {
		return new Fabric8Implementation(key, Fabric8Baseline.isolated(Path.of(property("fabric8-baseline.classpath"))));
	}

	/**
	 * The two baselines, fabric8 7.3.1 (this module's) and 7.8.0 (isolated), keyed
	 * {@code fabric8-7.3.1} and {@code fabric8-7.8.0}, each checked to run the version its key names.
	 */
	public static List<Fabric8Implementation> baselines() {
		List<Fabric8Implementation> baselines = List.of(onOwnClasspath("fabric8-7.3.1"), isolated("fabric8-7.8.0"));
		for (Fabric8Implementation fabric8 : baselines) {
			String expected = fabric8.key().substring("fabric8-".length());
			if (!fabric8.version().startsWith(expected + " ")) {
				throw new IllegalStateException(fabric8.key() + " runs fabric8 " + fabric8.version());
			}
		}
		return baselines;
	}

	public static String property(String name) {
		String value = System.getProperty(name);
		if (value == null) {
			throw new IllegalStateException("System property " + name + " is not set; run the benchmarks with "
					+ "./mvnw -B -Pbenchmarks -pl benchmarks -am verify");
		}
		return value;
	}

	/** The fabric8 version whose classes run and the jar they come from. */
	public String version() {
		return this.fabric8.version() + " (" + this.fabric8.jar() + ")";
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String label() {
		return "fabric8 " + this.fabric8.version();
	}

	@Override
	public boolean followersWatch() {
		return false;
	}

	/** A fabric8 client of its own (default settings) that the caller starts campaigns on. */
	public Fabric8Baseline.Client client(int port, String clientName) {
		return client(ApiServer.accessAt(port, clientName));
	}

	/** A fabric8 client of its own (default settings), reaching its server as given. */
	public Fabric8Baseline.Client client(ClientAccess access) {
		return this.fabric8.client(access.masterUrl(), access.namespace(), access.headers(), access.bearerToken());
	}

	/** Starts one fabric8 LeaderElector that campaigns once, as fabric8's does; returns what cancels it. */
	public static Runnable campaign(Fabric8Baseline.Client client, String namespace, String leaseName, String identity,
			Timings timings, boolean releaseOnCancel, Runnable onStartLeading, Runnable onStopLeading) {
		return client.campaign(namespace, leaseName, identity, timings.leaseDuration(),
				timings.renewDeadline(), timings.retryPeriod(), releaseOnCancel, false, null, () -> Duration.ZERO,
				onStartLeading, onStopLeading);
	}

	/**
	 * One LeaderElector per election on one client, campaigning once each (as fabric8's do), not
	 * releasing on cancel; the identity of election i is the client's name followed by {@code -i}.
	 */
	@Override
	public ElectionGroup elections(int port, String clientName, String namespace, int count, Timings timings) {
		Fabric8Baseline.Client client = client(port, clientName);
		AtomicInteger leading = new AtomicInteger();
		AtomicInteger losses = new AtomicInteger();
		List<Runnable> cancels = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			cancels.add(campaign(client, namespace, "lease-" + i, clientName + "-" + i, timings, false,
					leading::incrementAndGet, () -> {
						leading.decrementAndGet();
						losses.incrementAndGet();
					}));
		}
		return new ElectionGroup() {

			@Override
			public int leading() {
				return leading.get();
			}

			@Override
			public int losses() {
				return losses.get();
			}

			@Override
			public void close() {
				try {
					for (Runnable cancel : cancels) {
						cancel.run();
					}
				}
				finally {
					client.close();
				}
			}
		};
	}

	@Override
	public Candidate candidate(String identity, ClientAccess access, String leaseName, Timings timings,
			boolean releaseOnStop, Candidate.Gates gates) {
		Fabric8Baseline.Client client = client(access);
		return new Candidate() {

			private Runnable cancel;

			@Override
			public String identity() {
				return identity;
			}

			@Override
			public synchronized void start() {
				this.cancel = campaign(client, access.namespace(), leaseName, identity, timings, releaseOnStop,
						() -> gates.opened(System.nanoTime()), () -> gates.closed(System.nanoTime()));
			}

			@Override
			public synchronized void stop() {
				if (this.cancel != null) {
					Runnable stopping = this.cancel;
					this.cancel = null;
					stopping.run();
				}
			}

			@Override
			public void close() {
				try {
					stop();
				}
				finally {
					client.close();
				}
			}
		};
	}

}
