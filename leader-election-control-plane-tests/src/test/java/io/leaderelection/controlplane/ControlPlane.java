package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * A real Kubernetes control plane on loopback, one per test JVM: etcd, a kube-apiserver in front of
 * it (more on demand, on the same etcd), and kube-controller-manager running the garbage
 * collector, at the version the module pins. No kubelet and no scheduler: tests write a Pod's
 * status as a kubelet would. Authorization is RBAC; the harness and kube-controller-manager talk
 * as an administrator, the replicas under test as ServiceAccounts ({@link TestNamespace}).
 * <p>
 * Started by the first test that asks for it and stopped when the JVM exits. Its files and logs
 * are in the module's {@code target/control-plane}.
 */
public final class ControlPlane {

	private static ControlPlane shared;

	private final KubeBinaries binaries;

	private final ControlPlaneFiles files;

	private final Etcd etcd;

	private final ApiServer primary;

	private final ServerProcess controllerManager;

	private final KubernetesClient admin;

	private final List<ApiServer> extraServers = new CopyOnWriteArrayList<>();

	private ControlPlane(KubeBinaries binaries, Path directory) {
		this.binaries = binaries;
		this.files = ControlPlaneFiles.write(directory);
		this.etcd = new Etcd(binaries, directory.resolve("etcd")).start();
		this.primary = new ApiServer("kube-apiserver", binaries, this.etcd, this.files, List.of()).start();
		Path kubeconfig = writeAdminKubeconfig(this.primary, "admin.kubeconfig");
		this.controllerManager = new ServerProcess("kube-controller-manager",
				List.of(binaries.kubeControllerManager().toString(), "--kubeconfig=" + kubeconfig,
						"--controllers=garbagecollector", "--leader-elect=false", "--secure-port=0",
						"--concurrent-gc-syncs=5"),
				directory.resolve("kube-controller-manager.log"), () -> true)
			.start();
		this.admin = new KubernetesClientBuilder().withConfig(adminConfig(this.primary)).build();
	}

	/** The control plane of this JVM, started on first use. */
	public static synchronized ControlPlane shared() {
		if (shared == null) {
			long started = System.nanoTime();
			Path directory = ModuleFiles.of("target/control-plane");
			deleteRecursively(directory);
			ControlPlane plane = new ControlPlane(KubeBinaries.findOrBuild(), directory);
			Runtime.getRuntime().addShutdownHook(new Thread(plane::stop, "control-plane-stop"));
			shared = plane;
			System.out.printf("Control plane: Kubernetes %s on %s, etcd on %s, started in %d ms; logs in %s%n",
					plane.admin.getKubernetesVersion().getGitVersion(), plane.primary.url(), plane.etcd.url(),
					TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), directory);
		}
		return shared;
	}

	/** The first API server, which the harness and kube-controller-manager use. */
	public ApiServer apiServer() {
		return this.primary;
	}

	Etcd etcd() {
		return this.etcd;
	}

	/** A client of the first API server as the administrator; for the harness, never for a replica. */
	public KubernetesClient admin() {
		return this.admin;
	}

	/** Where the control plane keeps its files and logs; tests may write theirs there too. */
	Path directory() {
		return this.files.directory();
	}

	/** The administrator's kubeconfig for the first API server, as a file. */
	Path adminKubeconfig() {
		return this.files.directory().resolve("admin.kubeconfig");
	}

	/**
	 * Starts another API server on the same etcd, as in a highly available control plane; it is
	 * killed with the control plane, or by the test that no longer needs it.
	 */
	public ApiServer startApiServer(String name, String... flags) {
		ApiServer server = new ApiServer(name, this.binaries, this.etcd, this.files, List.of(flags)).start();
		this.extraServers.add(server);
		return server;
	}

	/**
	 * Starts another API server as {@link #startApiServer} does, reaching the control plane's etcd
	 * at the given address instead of etcd's own: a proxy in front of it, whose delays make this
	 * server's reads and watch cache lag behind etcd.
	 */
	ApiServer startApiServerOn(String etcdUrl, String name, String... flags) {
		ApiServer server = new ApiServer(name, this.binaries, etcdUrl, this.files, List.of(flags)).start();
		this.extraServers.add(server);
		return server;
	}

	/** Kills an API server that {@link #startApiServer} started. */
	public void stopApiServer(ApiServer server) {
		server.kill();
		this.extraServers.remove(server);
	}

	/** A namespace of its own for a test, with the harness's label; deleted by {@link TestNamespace#close()}. */
	public TestNamespace namespace(String prefix) {
		return TestNamespace.create(this, prefix);
	}

	/** The kubectl binary of the control plane's version. */
	Path kubectlBinary() {
		return this.binaries.kubectl();
	}

	/** Runs kubectl as the administrator against the first API server; fails on a non-zero exit. */
	String kubectl(String... arguments) {
		List<String> command = new ArrayList<>(List.of(this.binaries.kubectl().toString(),
				"--kubeconfig=" + adminKubeconfig()));
		command.addAll(List.of(arguments));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("kubectl " + String.join(" ", arguments) + " failed: " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** The administrator's client configuration for the given API server. */
	Config adminConfig(ApiServer server) {
		return clientConfig(server, this.files.adminToken(), null);
	}

	/** A client configuration for the given API server with the given bearer token. */
	static Config clientConfig(ApiServer server, String token, String namespace) {
		return new ConfigBuilder().withMasterUrl(server.url())
			.withOauthToken(token)
			.withTrustCerts(true)
			.withDisableHostnameVerification(true)
			.withNamespace(namespace)
			.withRequestRetryBackoffLimit(0)
			.build();
	}

	/** Writes a kubeconfig file for the given server, user and token into the control plane's directory. */
	Path writeKubeconfig(String fileName, ApiServer server, String user, String token, String namespace) {
		try {
			return Files.writeString(this.files.directory().resolve(fileName),
					ControlPlaneFiles.kubeconfig(server.url(), user, token, namespace));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private Path writeAdminKubeconfig(ApiServer server, String fileName) {
		return writeKubeconfig(fileName, server, "control-plane-admin", this.files.adminToken(), "default");
	}

	private void stop() {
		this.admin.close();
		this.controllerManager.kill();
		this.extraServers.forEach(ApiServer::kill);
		this.primary.kill();
		this.etcd.kill();
	}

	private static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.delete(path);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
