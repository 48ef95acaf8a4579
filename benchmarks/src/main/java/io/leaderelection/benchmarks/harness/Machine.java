package io.leaderelection.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine a run was measured on, and how loaded it was. */
public final class Machine {

	private Machine() {
	}

	/** The lines of a report naming the machine and its load before and after the run. */
	public static void describe(StringBuilder out, String loadBefore, String loadAfter) {
		out.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores (")
			.append(cpuModel()).append("), ").append(System.getProperty("java.vm.name")).append(' ')
			.append(System.getProperty("java.runtime.version")).append(", ").append(System.getProperty("os.name"))
			.append(' ').append(System.getProperty("os.arch")).append('\n');
		out.append("- Load average (1, 5, 15 min) before: ").append(loadBefore).append("; after: ")
			.append(loadAfter).append(". Other processes shared the machine: timing figures carry their noise.\n");
	}

	/** The load average over 1, 5 and 15 minutes; {@code unknown} off Linux. */
	public static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return parts[0] + ", " + parts[1] + ", " + parts[2];
		}
		catch (IOException | RuntimeException ex) {
			return "unknown";
		}
	}

	public static String cpuModel() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
				if (line.startsWith("model name")) {
					return line.substring(line.indexOf(':') + 1).trim();
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not Linux
		}
		return "unknown CPU";
	}

}
