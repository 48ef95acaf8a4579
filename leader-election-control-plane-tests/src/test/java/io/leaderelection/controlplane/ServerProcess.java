package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.awaitility.Awaitility.await;

/**
 * One process of the control plane: its command, its log file, and the check that tells it is
 * ready. It can be stopped (killed, as a crash or an OOM kill would end it) and started again
 * with the same command, on the same ports and data.
 */
final class ServerProcess {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

	private final String name;

	private final List<String> command;

	private final Path log;

	private final BooleanSupplier ready;

	private Process process;

	ServerProcess(String name, List<String> command, Path log, BooleanSupplier ready) {
		this.name = name;
		this.command = List.copyOf(command);
		this.log = log;
		this.ready = ready;
	}

	/** Starts the process and waits until it is ready; its output goes on at the end of its log. */
	synchronized ServerProcess start() {
		if (this.process != null && this.process.isAlive()) {
			return this;
		}
		try {
			Files.createDirectories(this.log.getParent());
			this.process = new ProcessBuilder(this.command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + this.name + ": " + this.command, ex);
		}
		Process started = this.process;
		await(this.name + " ready (log: " + this.log + ")").atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				if (!started.isAlive()) {
					throw new IllegalStateException(this.name + " exited with " + started.exitValue() + "; its log: "
							+ this.log + "\n" + tail());
				}
				return this.ready.getAsBoolean();
			});
		return this;
	}

	/** Kills the process at once, as a crash would end it, and waits until it is gone. */
	synchronized void kill() {
		if (this.process == null) {
			return;
		}
		this.process.descendants().forEach(ProcessHandle::destroyForcibly);
		this.process.destroyForcibly();
		try {
			if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException(this.name + " did not end within 30 s of SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = null;
	}

	synchronized boolean alive() {
		return this.process != null && this.process.isAlive();
	}

	Path log() {
		return this.log;
	}

	/** The end of the log, to say why the process did not start. */
	private String tail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
		}
		catch (IOException ex) {
			return "(log unreadable: " + ex + ")";
		}
	}

	/** A port on loopback that nothing listens on now. */
	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String toString() {
		return this.name;
	}

}
