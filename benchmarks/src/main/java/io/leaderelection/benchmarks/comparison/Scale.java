package io.leaderelection.benchmarks.comparison;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Figures;
import io.leaderelection.benchmarks.harness.Implementation;
import io.leaderelection.benchmarks.harness.Timings;

/**
 * N elections in one JVM: each (implementation, N) runs in a fresh child JVM ({@link ScaleChild})
 * against this JVM's API server, which counts the child's requests during its window.
 */
final class Scale {

	/**
	 * @param electorThreads most threads owned by the elector at once during the window
	 * @param jvmThreads most live threads of the child JVM during the window
	 * @param heapBytes heap used after a full GC at the end of the window
	 * @param cpuMillisPerSecond process CPU time per second of the window
	 * @param requestsPerSecond requests per second the server got from the child in the window
	 * @param threadGroups the child's threads by name pattern (digits as #)
	 */
	record Result(Implementation implementation, int elections, int electorThreads, int jvmThreads, long heapBytes,
			double cpuMillisPerSecond, double requestsPerSecond, String requestKinds, long readyMillis,
			String startupRequests, boolean allLead, int losses, String threadGroups, List<String> problems) {
	}

	private final ApiServer server;

	private final Path logDirectory;

	Scale(ApiServer server, Path logDirectory) {
		this.server = server;
		this.logDirectory = logDirectory;
	}

	static String clientName(String key, int elections) {
		return "scale-" + key + "-" + elections;
	}

	Result run(Implementation implementation, int elections, Timings timings, int windowSeconds)
			throws IOException, InterruptedException {
		String client = clientName(implementation.key(), elections);
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-Xmx1g");
		if (System.getProperty("fabric8-baseline.classpath") != null) {
			command.add("-Dfabric8-baseline.classpath=" + System.getProperty("fabric8-baseline.classpath"));
		}
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(ScaleChild.class.getName());
		command.addAll(List.of(implementation.key(), String.valueOf(elections), String.valueOf(this.server.port()),
				timings.toString(), String.valueOf(windowSeconds)));
		File log = this.logDirectory.resolve(client + ".log").toFile();
		Process process = new ProcessBuilder(command).redirectError(log).start();
		List<String> problems = new ArrayList<>();
		Map<String, String> result = new HashMap<>();
		String threadGroups = "";
		long[] atStart = this.server.counts(client).snapshot();
		long[] before = null;
		long windowStart = 0;
		double requestsPerSecond = Double.NaN;
		String requestKinds = "";
		String startupRequests = "";
		long readyMillis = -1;
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = lines.readLine()) != null) {
				if (!line.startsWith(ScaleChild.PREFIX)) {
					continue;
				}
				String message = line.substring(ScaleChild.PREFIX.length());
				if (message.startsWith("READY")) {
					readyMillis = Long.parseLong(message.substring("READY ms=".length()));
					startupRequests = kinds(atStart, this.server.counts(client).snapshot(), 1);
				}
				else if (message.equals("WINDOW-START")) {
					before = this.server.counts(client).snapshot();
					windowStart = System.nanoTime();
				}
				else if (message.equals("WINDOW-END") && before != null) {
					long[] after = this.server.counts(client).snapshot();
					long requests = 0;
					for (int k = 0; k < after.length; k++) {
						requests += after[k] - before[k];
					}
					double seconds = (System.nanoTime() - windowStart) / 1e9;
					requestsPerSecond = requests / seconds;
					requestKinds = kinds(before, after, seconds);
				}
				else if (message.startsWith("RESULT ")) {
					for (String pair : message.substring("RESULT ".length()).split(" ")) {
						int eq = pair.indexOf('=');
						result.put(pair.substring(0, eq), pair.substring(eq + 1));
					}
				}
				else if (message.startsWith("THREADS ")) {
					threadGroups = message.substring("THREADS ".length());
				}
				else if (message.startsWith("ERROR")) {
					problems.add(message);
				}
			}
		}
		finally {
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				problems.add("the child JVM did not end");
			}
		}
		if (result.isEmpty()) {
			problems.add("no result (exit " + process.exitValue() + ", see " + log + ")");
			return new Result(implementation, elections, -1, -1, -1, Double.NaN, requestsPerSecond, requestKinds,
					readyMillis, startupRequests, false, -1, threadGroups, problems);
		}
		double windowNanos = Double.parseDouble(result.get("windowNanos"));
		return new Result(implementation, elections, Integer.parseInt(result.get("electorThreads")),
				Integer.parseInt(result.get("threads")), Long.parseLong(result.get("heapBytes")),
				Double.parseDouble(result.get("cpuNanos")) / windowNanos * 1000, requestsPerSecond, requestKinds,
				readyMillis, startupRequests, Boolean.parseBoolean(result.get("allLead")),
				Integer.parseInt(result.get("losses")), threadGroups, problems);
	}

	/** Requests between two snapshots by kind, divided by the given number (seconds, or 1 for counts). */
	private static String kinds(long[] before, long[] after, double per) {
		long[] counts = new long[after.length];
		for (int kind = 0; kind < counts.length; kind++) {
			counts[kind] = after[kind] - before[kind];
		}
		return ApiServer.byKind(counts, (count) -> (per == 1) ? String.valueOf(count) : Figures.rate(count / per));
	}

}
