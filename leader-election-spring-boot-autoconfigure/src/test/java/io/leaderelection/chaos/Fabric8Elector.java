package io.leaderelection.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.leaderelection.chaos.fabric8.Fabric8Electors;
import io.leaderelection.chaos.fabric8.Fabric8ElectorsImpl;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * fabric8's {@code LeaderElector} as a baseline, its leadership taken from its callbacks: a term
 * opens when it calls {@code onStartLeading} and closes when it calls {@code onStopLeading}, as
 * an application built on it would see. The client uses fabric8's defaults scaled like the
 * election timings (request and connection timeout 10 s, retries on I/O errors and 5xx ten
 * times from 100 ms, doubling).
 */
final class Fabric8Elector implements Elector {

	private static final Fabric8Electors.Timings TIMINGS = new Fabric8Electors.Timings(ChaosSettings.LEASE_DURATION,
			ChaosSettings.RENEW_DEADLINE, ChaosSettings.RETRY_PERIOD, ChaosSettings.scaled(Duration.ofSeconds(10)),
			ChaosSettings.scaled(Duration.ofSeconds(10)), ChaosSettings.scaled(Duration.ofMillis(100)), 10);

	private final Fabric8Electors electors;

	private Fabric8Elector(Fabric8Electors electors) {
		this.electors = electors;
	}

	/** The fabric8 version the tests are compiled against, from the test class path. */
	static Fabric8Elector onTestClassPath() {
		return new Fabric8Elector(new Fabric8ElectorsImpl());
	}

	/**
	 * Another fabric8 version, from a file listing its jars (as written by the dependency
	 * plugin's build-classpath goal), loaded apart from the test's own fabric8.
	 */
	static Fabric8Elector isolated(Path classpathFile) {
		try {
			List<URL> urls = new ArrayList<>();
			urls.add(Fabric8ElectorsImpl.class.getProtectionDomain().getCodeSource().getLocation());
			for (String jar : Files.readString(classpathFile).trim().split(java.io.File.pathSeparator)) {
				urls.add(Path.of(jar).toUri().toURL());
			}
			ClassLoader loader = new IsolatingClassLoader(urls.toArray(URL[]::new));
			return new Fabric8Elector((Fabric8Electors) loader.loadClass(Fabric8ElectorsImpl.class.getName())
				.getConstructor()
				.newInstance());
		}
		catch (MalformedURLException ex) {
			throw new IllegalArgumentException(ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot load fabric8 from " + classpathFile, ex);
		}
	}

	String version() {
		return this.electors.version();
	}

	@Override
	public String name() {
		return "fabric8 " + this.electors.version();
	}

	@Override
	public Candidate start(ReplicaSlot slot, ChaosSettings settings, LeadershipHistory history, long seed) {
		return new Fabric8Candidate(slot, settings, history);
	}

	private final class Fabric8Candidate implements Candidate, Fabric8Electors.Callbacks {

		private final String identity;

		private final LeadershipHistory history;

		private final Map<String, String> electionsByLease = new HashMap<>();

		private final Map<String, Boolean> leading = new HashMap<>();

		private final ExecutorService threads;

		private final Fabric8Electors.Campaign campaign;

		private boolean dead;

		Fabric8Candidate(ReplicaSlot slot, ChaosSettings settings, LeadershipHistory history) {
			this.identity = slot.nextIdentity("fabric8");
			this.history = history;
			settings.electionNames()
				.forEach((election) -> this.electionsByLease.put(settings.leaseName(election), election));
			CustomizableThreadFactory threadFactory = new CustomizableThreadFactory(this.identity + "-");
			threadFactory.setDaemon(true);
			this.threads = Executors.newCachedThreadPool(threadFactory);
			this.campaign = Fabric8Elector.this.electors.start(new Fabric8Electors.Replica(
					"http://127.0.0.1:" + slot.link().port(), Map.of(ChaosApiServer.CLIENT_HEADER, slot.name()),
					this.identity, ChaosSettings.NAMESPACE, List.copyOf(this.electionsByLease.keySet()),
					slot.pause().pausing(this.threads), slot::clockOffset), TIMINGS, this);
		}

		@Override
		public String identity() {
			return this.identity;
		}

		@Override
		public synchronized boolean isLeader(String election) {
			return this.leading.getOrDefault(election, false);
		}

		@Override
		public synchronized void startedLeading(String leaseName) {
			if (!this.dead) {
				String election = this.electionsByLease.get(leaseName);
				this.history.opened(this.identity, election, null, System.nanoTime());
				this.leading.put(election, true);
			}
		}

		@Override
		public synchronized void stoppedLeading(String leaseName) {
			if (!this.dead) {
				String election = this.electionsByLease.get(leaseName);
				this.leading.put(election, false);
				this.history.closed(this.identity, election, System.nanoTime(), "onStopLeading");
			}
		}

		@Override
		public void stopGracefully() {
			this.campaign.cancel();
			endTerms();
			this.threads.shutdownNow();
		}

		@Override
		public void kill() {
			endTerms();
			this.campaign.kill();
			this.threads.shutdownNow();
		}

		/**
		 * From now on this process leads nothing and its callbacks are ignored. Called outside the
		 * campaign's calls: fabric8 calls back while holding its elector's lock.
		 */
		private synchronized void endTerms() {
			this.dead = true;
			long now = System.nanoTime();
			this.leading.forEach((election, leads) -> {
				if (leads) {
					this.history.closed(this.identity, election, now, "process ended");
				}
			});
			this.leading.clear();
		}

		@Override
		public String toString() {
			return this.identity;
		}

	}

	/**
	 * Loads classes from its own jars before anything else but the JDK, so that a second fabric8
	 * version runs beside the test's. Only the bridge interface and SLF4J come from the test's
	 * class loader: the first so that both sides agree on it, the second so that the baseline logs
	 * where the tests log.
	 */
	private static final class IsolatingClassLoader extends URLClassLoader {

		private static final ClassLoader TESTS = Fabric8Electors.class.getClassLoader();

		private static final String BRIDGE = Fabric8Electors.class.getName();

		IsolatingClassLoader(URL[] urls) {
			super(urls, ClassLoader.getPlatformClassLoader());
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (name.equals(BRIDGE) || name.startsWith(BRIDGE + "$") || name.startsWith("org.slf4j.")) {
				return TESTS.loadClass(name);
			}
			return super.loadClass(name, resolve);
		}

	}

}
