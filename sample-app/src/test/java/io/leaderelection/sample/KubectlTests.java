package io.leaderelection.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.leaderelection.LeaderElector;
import io.leaderelection.sample.apiserver.LocalApiServerApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code kubectl} installed on this machine against the standalone local API server and a
 * replica of the sample: {@code get leases}, {@code get events}, {@code describe lease} and
 * {@code get lease -w} print what they print against a cluster, and nothing on standard error.
 * Skipped where {@code kubectl} is not installed. It runs with an empty kubeconfig, so that a
 * developer's own does not change what it reads. The lease timings are scaled down, with a renew
 * deadline that leaves a loaded machine room: the step-down needs a leader.
 */
class KubectlTests {

	private static final String IDENTITY = "kubectl-replica";

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@TempDir
	static Path directory;

	private static ConfigurableApplicationContext apiServer;

	private static ConfigurableApplicationContext replica;

	private static String server;

	@BeforeAll
	static void startTheApiServerAndAReplicaThatLeads() throws IOException {
		Assumptions.assumeTrue(kubectlInstalled(), "kubectl is not installed");
		Files.createFile(directory.resolve("kubeconfig"));
		int port = freePort();
		server = "http://127.0.0.1:" + port;
		apiServer = LocalApiServerApplication.application().run("--sample.local-api-server.port=" + port);
		replica = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
				"--sample.local-api-server.enabled=true", "--sample.local-api-server.port=" + port,
				"--leader.election.identity=" + IDENTITY, "--leader.election.lease-duration=5s",
				"--leader.election.renew-deadline=4s", "--leader.election.retry-period=500ms");
		LeaderElector elector = replica.getBean(LeaderElector.class);
		await().atMost(TIMEOUT).until(() -> elector.isLeader() && elector.isLeader("reports"));
	}

	@AfterAll
	static void stop() {
		if (replica != null) {
			replica.close();
		}
		if (apiServer != null) {
			apiServer.close();
		}
	}

	@Test
	void getLeasesNamesTheHolderOfEach() {
		// until the replica holds sample-leader again, should the watch test have stepped down before
		await().atMost(TIMEOUT).untilAsserted(() -> {
			List<String> lines = kubectl("get", "leases");
			assertThat(lines.get(0)).matches("NAME +HOLDER +AGE");
			assertThat(lines).anyMatch((line) -> line.matches("sample-leader +" + IDENTITY + " +[0-9]+[smh].*"))
				.anyMatch((line) -> line.matches("sample-reports-leader +" + IDENTITY + " +[0-9]+[smh].*"));
		});
	}

	@Test
	void getEventsListsTheLeadershipEventsOfTheLeases() {
		// the Events are written after the grants, on a thread of their own
		await().atMost(TIMEOUT).untilAsserted(() -> {
			List<String> lines = kubectl("get", "events");
			assertThat(lines.get(0)).matches("LAST SEEN +TYPE +REASON +OBJECT +MESSAGE");
			assertThat(lines).anyMatch((line) -> line
				.matches("[0-9]+[smh].* +Normal +LeaderElection +lease/sample-leader +" + IDENTITY + " became leader"));
		});
	}

	@Test
	void describeLeaseShowsItsSpecAndItsEvents() {
		await().atMost(TIMEOUT).untilAsserted(() -> {
			String described = String.join("\n", kubectl("describe", "lease", "sample-leader"));
			assertThat(described).containsPattern("Name: +sample-leader")
				.containsPattern("Holder Identity: +" + IDENTITY)
				.containsPattern("Events:\n.*Type +Reason +Age +From +Message\n.*\n"
						+ " *Normal +LeaderElection +[0-9]+[smh].* +" + IDENTITY + " +" + IDENTITY + " became leader");
		});
	}

	@Test
	void getLeaseWatchPrintsTheLeaseAsItChanges() throws Exception {
		Kubectl watch = start("get", "lease", "sample-leader", "--watch");
		List<String> lines = new CopyOnWriteArrayList<>();
		Thread reader = new Thread(() -> readLines(watch.process(), lines));
		reader.start();
		try {
			await().atMost(TIMEOUT).until(() -> lines.size() >= 2);
			assertThat(lines.get(0)).matches("NAME +HOLDER +AGE");
			assertThat(lines.get(1)).matches("sample-leader +" + IDENTITY + " +[0-9]+[smh].*");
			// the Lease printed again as it is renewed
			await().atMost(TIMEOUT).until(() -> lines.size() >= 3);
			// a step-down releases the Lease: no holder, until the replica takes it again
			LeaderElector elector = replica.getBean(LeaderElector.class);
			await().atMost(TIMEOUT).until(elector::isLeader);
			elector.stepDown(LeaderElector.DEFAULT_ELECTION);
			await().atMost(TIMEOUT)
				.until(() -> lines.stream().anyMatch((line) -> line.matches("sample-leader +[0-9]+[smh].*")));
		}
		finally {
			watch.process().destroy();
			assertThat(watch.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
			reader.join(TimeUnit.SECONDS.toMillis(10));
		}
		assertThat(Files.readString(watch.errors())).isEmpty();
	}

	/** Runs kubectl to its end, and its standard output's lines; fails on an exit code or on standard error. */
	private static List<String> kubectl(String... arguments) {
		try {
			Kubectl kubectl = start(arguments);
			List<String> lines = new ArrayList<>();
			readLines(kubectl.process(), lines);
			assertThat(kubectl.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(Files.readString(kubectl.errors())).as("standard error of kubectl %s", String.join(" ", arguments))
				.isEmpty();
			assertThat(kubectl.process().exitValue()).isZero();
			return lines;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static Kubectl start(String... arguments) throws IOException {
		List<String> command = new ArrayList<>(List.of("kubectl", "--server", server, "--cache-dir",
				directory.resolve("cache").toString()));
		command.addAll(List.of(arguments));
		Path errors = Files.createTempFile(directory, "kubectl", ".err");
		ProcessBuilder builder = new ProcessBuilder(command).redirectError(errors.toFile());
		builder.environment().put("KUBECONFIG", directory.resolve("kubeconfig").toString());
		return new Kubectl(builder.start(), errors);
	}

	private static void readLines(Process process, List<String> lines) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				lines.add(line);
			}
		}
		catch (IOException ex) {
			// the process was stopped
		}
	}

	/**
	 * A run of kubectl.
	 * @param process the process
	 * @param errors the file its standard error goes to
	 */
	private record Kubectl(Process process, Path errors) {
	}

	private static boolean kubectlInstalled() {
		try {
			Process version = new ProcessBuilder("kubectl", "version", "--client").redirectErrorStream(true).start();
			version.getInputStream().readAllBytes();
			return version.waitFor(30, TimeUnit.SECONDS) && version.exitValue() == 0;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
