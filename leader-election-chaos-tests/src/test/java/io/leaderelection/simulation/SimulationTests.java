package io.leaderelection.simulation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Runs seeds of the deterministic simulation ({@link Simulation}), each five simulated minutes:
 * per build, from a new random base seed (printed), as many as fit in about 55 s; with
 * {@code -Dsimulation.seed=S -Dsimulation.seeds=N}, N seeds from S. A failing seed prints one line
 * that replays it and the timeline around its violation. The digest it prints of every seed's trace
 * tells whether a change of the engine changed what any of those seeds did: a refactoring keeps it.
 * With {@code -Dsimulation.traceHashes=FILE} it writes each seed's hash too, to diff two engines
 * seed by seed.
 */
class SimulationTests {

	static final Duration RUN = Duration.ofMinutes(5);

	private static final Duration BUDGET = Duration.ofSeconds(Long.getLong("simulation.budgetSeconds", 55));

	@Test
	void seedsHoldEveryCheck() {
		long base = Long.getLong("simulation.seed", new Random().nextLong() >>> 20);
		Integer seeds = Integer.getInteger("simulation.seeds");
		System.out.println("Simulation base seed " + base + (seeds != null ? ", " + seeds + " seeds" : ", for " + BUDGET));
		Map<String, Long> leaderless = new TreeMap<>();
		long started = System.nanoTime();
		long ran = 0;
		long simulated = 0;
		long longestWithoutLeader = 0;
		long terms = 0;
		long digest = 17;
		String hashesFile = System.getProperty("simulation.traceHashes");
		List<String> hashes = (hashesFile != null) ? new ArrayList<>() : null;
		try (QuietEngineLog quiet = new QuietEngineLog()) {
			while ((seeds != null) ? ran < seeds : System.nanoTime() - started < BUDGET.toNanos()) {
				Outcome outcome = new Simulation(base + ran, RUN).run();
				ran++;
				digest = digest * 1_000_003 + outcome.trace().hash();
				if (hashes != null) {
					hashes.add((base + ran - 1) + " " + Long.toHexString(outcome.trace().hash()));
				}
				simulated += outcome.simulatedNanos();
				terms += outcome.grants();
				longestWithoutLeader = Math.max(longestWithoutLeader, outcome.longestLeaderlessAfterFaults());
				outcome.leaderlessByCause().forEach((cause, nanos) -> leaderless.merge(cause, nanos, Long::sum));
				if (outcome.failed()) {
					fail(outcome.report());
				}
			}
		}
		finally {
			if (hashes != null) {
				writeLines(Path.of(hashesFile), hashes);
			}
			double minutes = (System.nanoTime() - started) / 60e9;
			System.out.printf("Simulation: %d seeds from %d, %.1f simulated hours, %d terms, %.0f seeds per minute; "
					+ "longest without leader once faults stopped %.0f ms; trace digest %016x%n", ran, base,
					simulated / 3.6e12, terms, ran / minutes, longestWithoutLeader / 1e6, digest);
			System.out.println("Leaderless time by cause (s): " + leaderless.entrySet()
				.stream()
				.map((entry) -> entry.getKey() + " " + String.format("%.1f", entry.getValue() / 1e9))
				.toList());
		}
	}

	@Test
	void aSeedRunsTheSameTwice() {
		try (QuietEngineLog quiet = new QuietEngineLog()) {
			long seed = new Random().nextLong() >>> 20;
			Outcome first = new Simulation(seed, RUN).run();
			Outcome again = new Simulation(seed, RUN).run();
			assertThat(again.trace().size()).as("seed %d", seed).isEqualTo(first.trace().size());
			assertThat(again.trace().hash()).as("seed %d", seed).isEqualTo(first.trace().hash());
			assertThat(again.events()).isEqualTo(first.events());
		}
	}

	private static void writeLines(Path file, List<String> lines) {
		try {
			Files.write(file, lines);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
