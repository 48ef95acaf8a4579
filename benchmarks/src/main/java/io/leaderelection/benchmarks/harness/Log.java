package io.leaderelection.benchmarks.harness;

import java.time.Instant;

/** The harnesses' progress lines on standard output, each with its instant. */
public final class Log {

	private Log() {
	}

	public static void log(String message) {
		System.out.println("[benchmarks " + Instant.now() + "] " + message);
		System.out.flush();
	}

}
