package io.leaderelection.engine;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import io.leaderelection.RevocationCause;
import io.leaderelection.StepDown;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole elections as scripts, in the manner of etcd raft's interaction tests: each file in
 * {@code src/test/resources/election-scripts} is a list of commands, each followed by {@code ----}
 * and what it must lead to, one line per request sent or answered and per gate opened or closed,
 * each at the virtual second it happened. Every request waits until the script answers it, so a
 * script says exactly which answer comes when. Commands: {@code start R}, {@code answer R}
 * (serve R's oldest request and return its answer), {@code lose R} (serve it, lose the answer),
 * {@code serve R} and {@code hold R} (answer R's requests as they come, or wait for the script again),
 * {@code advance D} (e.g. {@code 2s}, {@code 500ms}), {@code step-down R}, {@code stop R},
 * {@code overwrite H} (another client writes holder H), {@code delete}, {@code lease}. Run with
 * {@code -Delection.scripts.rewrite=true} to write what happened into the files instead, then read
 * the difference.
 */
class ElectionScriptsTests {

	private static final String ELECTION = "default";

	private static final boolean REWRITE = Boolean.getBoolean("election.scripts.rewrite");

	@TestFactory
	Stream<DynamicTest> scripts() throws IOException, URISyntaxException {
		Path folder = Paths.get(getClass().getResource("/election-scripts").toURI());
		try (Stream<Path> files = Files.list(folder)) {
			return files.filter((file) -> file.toString().endsWith(".txt"))
				.sorted()
				.toList()
				.stream()
				.map((file) -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> run(file)));
		}
	}

	private void run(Path file) throws IOException {
		List<String> lines = Files.readAllLines(file);
		Script script = new Script();
		List<String> rewritten = new ArrayList<>();
		int i = 0;
		while (i < lines.size()) {
			String line = lines.get(i++);
			rewritten.add(line);
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			if (i >= lines.size() || !lines.get(i).equals("----")) {
				throw new IllegalStateException(file.getFileName() + ":" + i + ": '" + line + "' is not followed by ----");
			}
			rewritten.add(lines.get(i++));
			List<String> expected = new ArrayList<>();
			while (i < lines.size() && !lines.get(i).isBlank()) {
				expected.add(lines.get(i++));
			}
			List<String> happened = script.run(line);
			rewritten.addAll(happened);
			if (!REWRITE) {
				assertThat(happened).as("%s:%d: %s", file.getFileName(), i, line).containsExactlyElementsOf(expected);
			}
		}
		if (REWRITE) {
			Path source = Paths.get("src/test/resources/election-scripts").resolve(file.getFileName());
			Files.write(source, rewritten);
		}
	}

	/** The replicas of one script, on one virtual clock, against one Lease. */
	private static final class Script {

		private final VirtualTime time = new VirtualTime();

		private final long start = this.time.nanoTime();

		private final ScriptedLeases leases = new ScriptedLeases();

		private final Map<String, Replica> replicas = new LinkedHashMap<>();

		private final List<String> happened = new ArrayList<>();

		List<String> run(String command) {
			this.happened.clear();
			String[] words = command.trim().split("\\s+");
			switch (words[0]) {
				case "start" -> start(words[1]);
				case "answer" -> replica(words[1]).connection.answer(false);
				case "lose" -> replica(words[1]).connection.answer(true);
				case "serve" -> replica(words[1]).connection.serveAtOnce(true);
				case "hold" -> replica(words[1]).connection.serveAtOnce(false);
				case "advance" -> this.time.advance(duration(words[1]));
				case "step-down" -> {
					StepDown stepDown = replica(words[1]).engine.stepDown(ELECTION, Duration.ZERO);
					tell(words[1] + " steps down: " + stepDown.release());
				}
				case "stop" -> replica(words[1]).engine.stop(true);
				case "overwrite" -> this.leases.overwrite(words[1]);
				case "delete" -> this.leases.delete();
				case "lease" -> tell("the Lease: " + this.leases.describe());
				default -> throw new IllegalArgumentException("No such command: " + command);
			}
			this.time.runDue();
			return List.copyOf(this.happened);
		}

		private void start(String name) {
			ScriptedLeases.Connection connection = this.leases.connect(name, this::tell);
			ElectionSettings settings = new ElectionSettings(ELECTION, "scripts", "lease", Duration.ofSeconds(15),
					Duration.ofSeconds(10), Duration.ofSeconds(2));
			ElectionRuntime runtime = new ElectionRuntime(this.time, this.time, this.time.wallClock(Duration.ZERO),
					Runnable::run, new Random(name.hashCode()));
			ElectionListener gate = new ElectionListener() {

				@Override
				public void granted(String election, long fencingToken, long gateOpenedAt) {
					tell(name + "'s gate opens, fencing token " + fencingToken);
				}

				@Override
				public void revoked(String election, RevocationCause cause, long gateClosedAt) {
					tell(name + "'s gate closes: " + cause);
				}

			};
			ElectionEngine engine = new ElectionEngine(name, List.of(settings), (ignored) -> connection, runtime,
					List.of(gate));
			this.replicas.put(name, new Replica(engine, connection));
			engine.start();
		}

		private Replica replica(String name) {
			Replica replica = this.replicas.get(name);
			if (replica == null) {
				throw new IllegalArgumentException("No replica " + name + " was started");
			}
			return replica;
		}

		private void tell(String what) {
			this.happened.add(String.format(Locale.ROOT, "%.3f %s", (this.time.nanoTime() - this.start) / 1e9, what));
		}

		private static Duration duration(String text) {
			return text.endsWith("ms") ? Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)))
					: Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
		}

	}

	private record Replica(ElectionEngine engine, ScriptedLeases.Connection connection) {
	}

}
