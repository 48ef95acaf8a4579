package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The binaries of the real control plane, at the version this suite pins, in the layout fabric8's
 * kube-api-test reads: {@code ~/.kubeapitest/k8s/<version>-linux-amd64/}. Built by
 * {@code leader-election-control-plane-tests/build-binaries.sh} from the Go module proxy the first
 * time, found there afterwards.
 */
record KubeBinaries(Path directory) {

	private static final List<String> NAMES = List.of("kube-apiserver", "kube-controller-manager", "kubectl", "etcd");

	Path kubeApiServer() {
		return this.directory.resolve("kube-apiserver");
	}

	Path kubeControllerManager() {
		return this.directory.resolve("kube-controller-manager");
	}

	Path kubectl() {
		return this.directory.resolve("kubectl");
	}

	Path etcd() {
		return this.directory.resolve("etcd");
	}

	/**
	 * Finds the binaries, building them first when one is missing; fails with one line saying how
	 * to get them when that cannot be done here.
	 */
	static KubeBinaries findOrBuild() {
		Properties versions = versions();
		String kubernetes = versions.getProperty("KUBERNETES_VERSION");
		Path home = Path.of(System.getProperty("user.home"));
		String testDir = System.getenv("KUBE_API_TEST_DIR");
		Path directory = ((testDir != null) ? Path.of(testDir) : home.resolve(".kubeapitest"))
			.resolve("k8s/" + kubernetes + "-linux-amd64");
		KubeBinaries binaries = new KubeBinaries(directory);
		if (!binaries.complete()) {
			build();
		}
		if (!binaries.complete()) {
			throw new IllegalStateException("The control-plane tests need Kubernetes " + kubernetes
					+ "'s kube-apiserver, kube-controller-manager, kubectl and etcd "
					+ versions.getProperty("ETCD_VERSION") + " in " + directory + ": install Go 1.26 or newer and run "
					+ moduleFile("build-binaries.sh") + ", or put them there");
		}
		return binaries;
	}

	/** The versions the module pins, in versions.env, which build-binaries.sh reads too. */
	private static Properties versions() {
		Properties versions = new Properties();
		try (Reader reader = Files.newBufferedReader(moduleFile("versions.env"))) {
			versions.load(reader);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return versions;
	}

	private boolean complete() {
		return NAMES.stream().allMatch((name) -> Files.isExecutable(this.directory.resolve(name)));
	}

	/** Runs build-binaries.sh, its output on this JVM's, as a Maven build shows it. */
	private static void build() {
		Path script = moduleFile("build-binaries.sh");
		System.out.println("Control plane: building its binaries with " + script);
		try {
			Process process = new ProcessBuilder("bash", script.toString())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.INHERIT)
				.start();
			int exit = process.waitFor();
			if (exit != 0) {
				System.out.println("Control plane: " + script + " exited with " + exit);
			}
		}
		catch (IOException ex) {
			System.out.println("Control plane: " + script + " could not be run: " + ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while building the control plane's binaries", ex);
		}
	}

	/** A file of the module that pins the versions, found from any module beside it. */
	private static Path moduleFile(String name) {
		return ModuleFiles.of("../leader-election-control-plane-tests/" + name);
	}

}
