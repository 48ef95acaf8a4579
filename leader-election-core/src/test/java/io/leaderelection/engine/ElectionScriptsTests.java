package io.leaderelection.engine;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import io.leaderelection.LeaderStatus;
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
 * <p>
 * Watches: {@code watches R} (before {@code start R}: R's store can watch; otherwise its followers
 * poll), {@code refuse-watches R} (the server refuses R's watches), {@code open R} (the server
 * accepts R's watch), {@code tell R} (R's watch tells the oldest change it has not told yet),
 * {@code end-watch R} (the server ends R's watch). While R is served ({@code serve R}), its watch is
 * accepted at once and tells each change as it comes. Other clients: {@code create H [D]} (creates
 * the Lease held by H, {@code none} for no holder, for D seconds, or with no duration and no times),
 * {@code take H} (another process writes a new term of H, with its own times), {@code touch} (a
 * label edit: a new version, the same election fields), {@code prefer H} (sets spec.preferredHolder),
 * {@code opaque-versions} (resourceVersions are no longer integers). Replicas:
 * {@code identity R I} (before {@code start R}: R is another process of identity I),
 * {@code start-again R}, {@code stop-without-release R}, {@code stopped R} (whether R's last stop
 * has ended), {@code status R} (what R's status and health say of the election).
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

		/** The identity of each replica started as another process of an identity; the others go by their names. */
		private final Map<String, String> identities = new HashMap<>();

		/** What each replica's last stop returned. */
		private final Map<String, CompletableFuture<Void>> stops = new HashMap<>();

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
				case "stop" -> this.stops.put(words[1], replica(words[1]).engine.stop(true));
				case "overwrite" -> this.leases.overwrite(words[1]);
				case "delete" -> this.leases.delete();
				case "lease" -> tell("the Lease: " + this.leases.describe());
				case "watches" -> this.leases.allowWatching(words[1], this.time::execute);
				case "refuse-watches" -> this.leases.refuseWatches(words[1]);
				case "open" -> replica(words[1]).connection.openWatch();
				case "tell" -> replica(words[1]).connection.tellWatch();
				case "end-watch" -> replica(words[1]).connection.endWatch();
				case "create" -> create(words);
				case "take" -> this.leases.take(words[1], wallNow());
				case "touch" -> this.leases.touch();
				case "prefer" -> this.leases.prefer(words[1]);
				case "opaque-versions" -> this.leases.useOpaqueVersions();
				case "start-again" -> replica(words[1]).engine.start();
				case "stop-without-release" -> this.stops.put(words[1], replica(words[1]).engine.stop(false));
				case "stopped" -> stopped(words[1]);
				case "status" -> status(words[1]);
				case "identity" -> this.identities.put(words[1], words[2]);
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
			ElectionEngine engine = new ElectionEngine(this.identities.getOrDefault(name, name), List.of(settings),
					(ignored) -> connection, runtime, List.of(gate));
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

		/** {@code create H [D]}: another client creates the Lease held by H for D seconds, or with no times. */
		private void create(String[] words) {
			String holder = "none".equals(words[1]) ? "" : words[1];
			this.leases.create(holder, (words.length > 2) ? Integer.valueOf(words[2]) : null, wallNow());
		}

		private Instant wallNow() {
			return this.time.wallClock(Duration.ZERO).instant();
		}

		private void stopped(String name) {
			CompletableFuture<Void> stop = this.stops.get(name);
			if (stop == null) {
				throw new IllegalArgumentException(name + " was not stopped");
			}
			tell(name + (stop.isDone() ? " has stopped" : " is still stopping"));
		}

		/** What the replica's status says of the election, as one line. */
		private void status(String name) {
			ElectionEngine engine = replica(name).engine;
			LeaderStatus status = engine.status(ELECTION);
			StringBuilder line = new StringBuilder(name).append("'s status: ");
			line.append(status.leader() ? "leads, fencing token " + status.fencingToken() + " ("
					+ status.fencingTokenSource() + ")" : "follows");
			line.append(", holder ")
				.append((status.holderIdentity() == null || status.holderIdentity().isEmpty()) ? "none"
						: status.holderIdentity());
			if (status.renewTime() != null) {
				line.append(String.format(Locale.ROOT, ", renewed at %.3f",
						(this.time.nanoTimeAt(status.renewTime()) - this.start) / 1e9));
			}
			if (status.lastError() != null) {
				line.append(", last error: ").append(status.lastError());
			}
			String conflict = engine.health(ELECTION).identityConflict();
			if (conflict != null) {
				line.append(", identity conflict: ").append(conflict);
			}
			tell(line.toString());
		}

	}

	private record Replica(ElectionEngine engine, ScriptedLeases.Connection connection) {
	}

}
