package io.leaderelection.baseline.fabric8;

import java.io.File;
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
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * fabric8's {@code LeaderElector} as a baseline to measure against, loaded through
 * {@link Fabric8Elector}: either with the fabric8 version of the caller's class path, or in a
 * class loader of its own over another version's jars, which shares nothing with the caller but
 * the JDK and SLF4J (so that every elector logs to one place). This class touches no fabric8
 * type itself; everything it passes across is a JDK type.
 */
public final class Fabric8Baseline {

	private final Constructor<?> constructor;

	private final Method campaign;

	private final String version;

	private final String jar;

	private Fabric8Baseline(ClassLoader loader) {
		try {
			Class<?> adapter = Class.forName(Fabric8Elector.class.getName(), true, loader);
			this.version = (String) adapter.getMethod("version").invoke(null);
			this.jar = (String) adapter.getMethod("jar").invoke(null);
			this.constructor = adapter.getConstructor(String.class, String.class, Map.class, String.class,
					Duration.class, Duration.class, Duration.class, Integer.class);
			this.campaign = adapter.getMethod("campaign", String.class, String.class, String.class, Duration.class,
					Duration.class, Duration.class, boolean.class, boolean.class, Executor.class, Supplier.class,
					Runnable.class, Runnable.class);
		}
		catch (InvocationTargetException ex) {
			throw new IllegalStateException("Cannot load fabric8's LeaderElector", ex.getCause());
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot load fabric8's LeaderElector", ex);
		}
	}

	/** fabric8 as the caller's class path has it. */
	public static Fabric8Baseline onClassPath() {
		return new Fabric8Baseline(Fabric8Baseline.class.getClassLoader());
	}

	/**
	 * Another fabric8 version, from a file listing its jars as the dependency plugin's
	 * {@code build-classpath} goal writes it (this module writes 7.8.0's to
	 * {@code target/fabric8-classpath.txt}).
	 */
	public static Fabric8Baseline isolated(Path classPathFile) {
		List<URL> urls = new ArrayList<>();
		try {
			urls.add(Fabric8Baseline.class.getProtectionDomain().getCodeSource().getLocation());
			for (String entry : Files.readString(classPathFile).trim().split(File.pathSeparator)) {
				if (!entry.isBlank()) {
					urls.add(Path.of(entry).toUri().toURL());
				}
			}
		}
		catch (MalformedURLException ex) {
			throw new IllegalArgumentException("A bad entry in " + classPathFile, ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the fabric8 class path from " + classPathFile, ex);
		}
		return new Fabric8Baseline(new URLClassLoader(urls.toArray(URL[]::new),
				new SharedLogging(Fabric8Baseline.class.getClassLoader())));
	}

	/** The fabric8 version that runs, e.g. {@code 7.8.0}. */
	public String version() {
		return this.version;
	}

	/** The jar fabric8's {@code LeaderElector} comes from. */
	public String jar() {
		return this.jar;
	}

	/**
	 * A fabric8 client of its own with fabric8's default request settings.
	 * @see Fabric8Elector#Fabric8Elector
	 */
	public Client client(String masterUrl, String namespace, Map<String, String> headers, String bearerToken) {
		return client(masterUrl, namespace, headers, bearerToken, null, null, null, null);
	}

	/**
	 * A fabric8 client of its own; a {@code null} request setting keeps fabric8's default.
	 * @see Fabric8Elector#Fabric8Elector
	 */
	public Client client(String masterUrl, String namespace, Map<String, String> headers, String bearerToken,
			Duration requestTimeout, Duration connectionTimeout, Duration retryBackoffInterval,
			Integer retryBackoffLimit) {
		return new Client((AutoCloseable) invoke(() -> this.constructor.newInstance(masterUrl, namespace, headers,
				bearerToken, requestTimeout, connectionTimeout, retryBackoffInterval, retryBackoffLimit)));
	}

	private static Object invoke(Reflective call) {
		try {
			return call.invoke();
		}
		catch (InvocationTargetException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new IllegalStateException(ex.getCause());
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private interface Reflective {

		Object invoke() throws ReflectiveOperationException;

	}

	/** One fabric8 client, on which electors campaign. */
	public final class Client implements AutoCloseable {

		private final AutoCloseable adapter;

		private Client(AutoCloseable adapter) {
			this.adapter = adapter;
		}

		/**
		 * Starts one fabric8 {@code LeaderElector}.
		 * @see Fabric8Elector#campaign
		 * @return what cancels it
		 */
		public Runnable campaign(String namespace, String leaseName, String identity, Duration leaseDuration,
				Duration renewDeadline, Duration retryPeriod, boolean releaseOnCancel, boolean rejoin, Executor executor,
				Supplier<Duration> clockOffset, Runnable onStartLeading, Runnable onStopLeading) {
			return (Runnable) invoke(() -> Fabric8Baseline.this.campaign.invoke(this.adapter, namespace, leaseName,
					identity, leaseDuration, renewDeadline, retryPeriod, releaseOnCancel, rejoin, executor, clockOffset,
					onStartLeading, onStopLeading));
		}

		/** Closes the client; a client cut off from the API server may fail to, which is ignored. */
		@Override
		public void close() {
			try {
				this.adapter.close();
			}
			catch (Exception ex) {
				// nothing left to do with a client that cannot even close
			}
		}

	}

	/**
	 * The parent of an isolated loader: the JDK, and SLF4J from the caller's class path. Nothing
	 * of fabric8, Jackson, Vert.x or Netty is shared.
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
