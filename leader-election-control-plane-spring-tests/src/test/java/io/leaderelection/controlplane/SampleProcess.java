package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;

import static org.awaitility.Awaitility.await;

/**
 * The sample application's jar run as its Deployment runs it in a Pod: the container's
 * environment as the applied Deployment gives it, the downward API's values read from the Pod the
 * test created for it, and a kubeconfig with a token of the Deployment's ServiceAccount.
 */
final class SampleProcess implements AutoCloseable {

	private static final Path JAR = ModuleFiles.of("../sample-app/target/leader-election-sample-app-0.1.0-SNAPSHOT.jar");

	private final Process process;

	private final Path log;

	private SampleProcess(Process process, Path log) {
		this.process = process;
		this.log = log;
	}

	/**
	 * Starts the jar with the Deployment's container environment, in the given Pod.
	 * @param log where its output goes; {@code null} for this process's own output
	 * @param arguments further command-line arguments, e.g. shorter lease timings
	 */
	static SampleProcess start(Deployment deployment, Pod pod, Path kubeconfig, Path log, List<String> arguments) {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-XX:TieredStopAtLevel=1", "-jar", JAR.toString(),
				"--server.port=" + ServerProcess.freePort()));
		command.addAll(arguments);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput((log != null) ? ProcessBuilder.Redirect.appendTo(log.toFile()) : ProcessBuilder.Redirect.INHERIT);
		Map<String, String> environment = builder.environment();
		environment.keySet().removeIf((name) -> name.startsWith("KUBERNETES") || name.startsWith("LEADER_ELECTION"));
		environment.put("KUBECONFIG", kubeconfig.toString());
		for (EnvVar variable : deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()) {
			environment.put(variable.getName(), valueOf(variable, pod));
		}
		try {
			return new SampleProcess(builder.start(), log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** What the container's variable is set to in the Pod: its value, or the downward API's field. */
	private static String valueOf(EnvVar variable, Pod pod) {
		if (variable.getValueFrom() == null) {
			return variable.getValue();
		}
		String field = variable.getValueFrom().getFieldRef().getFieldPath();
		return switch (field) {
			case "metadata.name" -> pod.getMetadata().getName();
			case "metadata.namespace" -> pod.getMetadata().getNamespace();
			case "status.podIP" -> pod.getStatus().getPodIP();
			default -> throw new IllegalArgumentException("The Deployment sets " + variable.getName() + " from " + field
					+ ", which this test does not give");
		};
	}

	/** Waits until the application logs the line, failing with its log if it exits first. */
	void awaitLogged(String line, Duration timeout) {
		await("the sample to log: " + line).atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
			String logged = Files.readString(this.log);
			if (!this.process.isAlive()) {
				throw new IllegalStateException("The sample exited with " + this.process.exitValue() + ":\n" + logged);
			}
			return logged.contains(line);
		});
	}

	/** Waits until it exits. */
	void waitFor() throws InterruptedException {
		this.process.waitFor();
	}

	/** Stops it as the kubelet does, with SIGTERM, and waits for its graceful shutdown. */
	void stopGracefully() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The sample did not stop within 60 s of SIGTERM");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
	}

}
