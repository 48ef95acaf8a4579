package io.leaderelection.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * fabric8's {@code LeaderElector}, run through the adapter of the benchmarks-fabric8 module in a
 * class loader of its own: over fabric8 7.8.0's classpath (fully isolated: only the JDK and
 * SLF4J, for one log output, are shared), or over this module's own classpath, which has the
 * 7.3.1 that spring-cloud-kubernetes brings.
 */
final class Fabric8Implementation implements Implementation {

	private static final String ADAPTER = "io.leaderelection.benchmarks.fabric8.Fabric8Elector";

	private final String key;

	private final String version;

	private final Constructor<?> constructor;

	private final Method campaign;

	private final ClassLoader loader;

	private Fabric8Implementation(String key, ClassLoader loader) {
		this.key = key;
		this.loader = loader;
		try {
			Class<?> adapter = Class.forName(ADAPTER, true, loader);
			this.version = (String) adapter.getMethod("version").invoke(null);
			this.constructor = adapter.getConstructor(String.class, String.class, String.class, String.class);
			this.campaign = adapter.getMethod("campaign", String.class, String.class, String.class, Duration.class,
					Duration.class, Duration.class, boolean.class, Runnable.class, Runnable.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot load the fabric8 adapter", ex);
		}
	}

	/** fabric8 as this module has it (7.3.1, from spring-cloud-kubernetes). */
	static Fabric8Implementation onOwnClasspath(String key) {
		return new Fabric8Implementation(key, new URLClassLoader(new URL[] { adapterClasses() },
				Fabric8Implementation.class.getClassLoader()));
	}

	/** fabric8 from the classpath file written by the benchmarks-fabric8 module (7.8.0). */
	static Fabric8Implementation isolated(String key) {
		List<URL> urls = new ArrayList<>();
		urls.add(adapterClasses());
		Path classpathFile = Path.of(property("benchmarks.fabric8.classpath"));
		try {
			for (String entry : Files.readString(classpathFile).trim().split(java.io.File.pathSeparator)) {
				if (!entry.isBlank()) {
					urls.add(Path.of(entry).toUri().toURL());
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + classpathFile, ex);
		}
		return new Fabric8Implementation(key, new URLClassLoader(urls.toArray(URL[]::new),
				new SharedLogging(Fabric8Implementation.class.getClassLoader())));
	}

	private static URL adapterClasses() {
		try {
			return Path.of(property("benchmarks.fabric8.classes")).toUri().toURL();
		}
		catch (MalformedURLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static String property(String name) {
		String value = System.getProperty(name);
		if (value == null) {
			throw new IllegalStateException("System property " + name + " is not set; run the benchmarks with "
					+ "./mvnw -B -Pbenchmarks -pl benchmarks -am verify");
		}
		return value;
	}

	/** The fabric8 version whose classes run, as they report it, and the jar they come from. */
	String version() {
		return this.version;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String label() {
		return "fabric8 " + this.version.substring(0, this.version.indexOf(' '));
	}

	@Override
	public boolean followersWatch() {
		return false;
	}

	/** A fabric8 client of its own (default settings) that the caller starts campaigns on. */
	Client client(int port, String clientName) {
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		// fabric8 finds its HTTP client through the context class loader too: it must see this version.
		thread.setContextClassLoader(this.loader);
		try {
			return new Client((AutoCloseable) this.constructor.newInstance("http://127.0.0.1:" + port,
					ApiServer.NAMESPACE, ApiServer.CLIENT_HEADER, clientName));
		}
		catch (InvocationTargetException ex) {
			throw new IllegalStateException(ex.getCause());
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			thread.setContextClassLoader(previous);
		}
	}

	@Override
	public Candidate candidate(String identity, int port, String leaseName, Timings timings, boolean releaseOnStop,
			Candidate.Gates gates) {
		Client client = client(port, identity);
		return new Candidate() {

			private Runnable cancel;

			@Override
			public String identity() {
				return identity;
			}

			@Override
			public synchronized void start() {
				this.cancel = client.campaign(ApiServer.NAMESPACE, leaseName, identity, timings, releaseOnStop,
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

	/** One fabric8 client with the adapter around it. */
	final class Client implements AutoCloseable {

		private final AutoCloseable adapter;

		private Client(AutoCloseable adapter) {
			this.adapter = adapter;
		}

		/** Starts one fabric8 LeaderElector; returns what cancels it. */
		Runnable campaign(String namespace, String leaseName, String identity, Timings timings, boolean releaseOnCancel,
				Runnable onStartLeading, Runnable onStopLeading) {
			Thread thread = Thread.currentThread();
			ClassLoader previous = thread.getContextClassLoader();
			thread.setContextClassLoader(Fabric8Implementation.this.loader);
			try {
				return (Runnable) Fabric8Implementation.this.campaign.invoke(this.adapter, namespace, leaseName,
						identity, timings.leaseDuration(), timings.renewDeadline(), timings.retryPeriod(),
						releaseOnCancel, onStartLeading, onStopLeading);
			}
			catch (InvocationTargetException ex) {
				throw new IllegalStateException(ex.getCause());
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
			finally {
				thread.setContextClassLoader(previous);
			}
		}

		@Override
		public void close() {
			try {
				this.adapter.close();
			}
			catch (Exception ex) {
				// closing a client of a black-holed replica may fail; nothing to do
			}
		}

	}

	/**
	 * The parent of the isolated loader: the JDK, and SLF4J from the benchmarks' classpath so that
	 * every elector logs to one place. Nothing of fabric8, Jackson, Vert.x or Netty is shared.
	 */
	private static final class SharedLogging extends ClassLoader {

		private final ClassLoader application;

		SharedLogging(ClassLoader application) {
			super(ClassLoader.getPlatformClassLoader());
			this.application = application;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (name.startsWith("org.slf4j.")) {
				return this.application.loadClass(name);
			}
			return super.loadClass(name, resolve);
		}

	}

}
