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
import io.leaderelection.RevocationCause;
import io.leaderelection.StepDown;
import io.leaderelection.store.LeaseRecord;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole elections as scripts, in the manner of etcd raft's interaction tests: each file in
 * {@code src/test/resources/election-scripts} is a list of commands, each followed by {@code ----}
 * and what it must lead to, one line per request sent or answered and per gate opened or closed,
 * each at the virtual second it happened. Every request waits until the script answers it, so a
 * script says exactly which answer comes when. Run with {@code -Delection.scripts.rewrite=true}
 * to write what happened into the files instead, then read the difference. Commands:
 * <ul>
 * <li>Replicas: {@code start R} (options when R is new: {@code clock +1h}, its wall clock ahead,
 * or behind with {@code -}; {@code renewing 2s}, its renew period; on a replica that follows, it
 * starts its campaign), {@code follow R} (follows without campaigning; created if new, with the
 * same options), {@code stop-following R}, {@code identity R I} (before {@code start R}: R is
 * another process of identity I), {@code step-down R}, {@code stop R},
 * {@code stop-without-release R}, {@code stopped R} (whether R's last stop has ended).</li>
 * <li>Requests: {@code answer R} (serve R's oldest request and return its answer), {@code lose R}
 * (serve it, lose the answer), {@code fail R} (it fails with a server error, unserved),
 * {@code serve R}, {@code hold R} and {@code failing R} (R's requests are answered as they come,
 * wait for the script again, or fail as they come), {@code advance D} (e.g. {@code 2s},
 * {@code 500ms}).</li>
 * <li>Watches: {@code watches R} (before {@code start R}: R's store can watch; otherwise its
 * followers poll), {@code refuse-watches R}, {@code open R} (the server accepts R's watch),
 * {@code tell R} (R's watch tells the oldest change it has not told yet), {@code end-watch R}.
 * While R is served, its watch is accepted at once and tells each change as it comes.</li>
 * <li>Other clients: {@code overwrite H} (writes holder H over the Lease), {@code write holder H,
 * duration 15 s, transitions 2} (writes these fields over the Lease or where it is missing,
 * acquired and renewed now, or as long ago as {@code , renewed -1h} says; {@code none} for no
 * holder; {@code duration for life} writes a for-life lock, {@code duration none} no duration and
 * no times, as a tool may), {@code take H} (a new term of H), {@code touch} (a label edit: a new
 * resourceVersion, the same election fields), {@code touch every D}, {@code recreate} (deletes
 * the Lease and creates it again with the same fields: a new uid), {@code delete},
 * {@code prefer H} (sets spec.preferredHolder), {@code opaque-versions} (resourceVersions are no
 * longer integers).</li>
 * <li>Looking: {@code lease}, {@code times} (the Lease's acquire and renew times, on the script's
 * clock), {@code status R} (what R's status and health say of the election).</li>
 * </ul>
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

		/** The wall clock's reading at the start, from which the Lease's times are told. */
		private final Instant startedAt = this.time.wallClock(Duration.ZERO).instant();

		/** The identity of each replica started as another process of an identity; the others go by their names. */
		private final Map<String, String> identities = new HashMap<>();

		/** What each replica's last stop returned. */
		private final Map<String, CompletableFuture<Void>> stops = new HashMap<>();

		List<String> run(String command) {
			this.happened.clear();
			String[] words = command.trim().split("\\s+");
			switch (words[0]) {
				case "start" -> start(words);
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
				case "follow" -> replicaOrNew(words).engine.follow();
				case "stop-following" -> replica(words[1]).engine.stopFollowing();
				case "fail" -> replica(words[1]).connection.fail();
				case "failing" -> replica(words[1]).connection.failAtOnce();
				case "write" -> write(command.substring("write".length()));
				case "touch" -> touch(words);
				case "recreate" -> this.leases.recreate();
				case "times" -> tell("the Lease's times: " + this.leases.describeTimes(this.startedAt));
				case "watches" -> this.leases.allowWatching(words[1], this.time::execute);
				case "refuse-watches" -> this.leases.refuseWatches(words[1]);
				case "open" -> replica(words[1]).connection.openWatch();
				case "tell" -> replica(words[1]).connection.tellWatch();
				case "end-watch" -> replica(words[1]).connection.endWatch();
				case "take" -> this.leases.take(words[1], wallNow());
				case "prefer" -> this.leases.prefer(words[1]);
				case "opaque-versions" -> this.leases.useOpaqueVersions();
				case "stop-without-release" -> this.stops.put(words[1], replica(words[1]).engine.stop(false));
				case "stopped" -> stopped(words[1]);
				case "status" -> status(words[1]);
				case "identity" -> this.identities.put(words[1], words[2]);
				default -> throw new IllegalArgumentException("No such command: " + command);
			}
			this.time.runDue();
			return List.copyOf(this.happened);
		}

		private void start(String[] words) {
			replicaOrNew(words).engine.start();
		}

		/** The replica named by {@code words[1]}, created with the options that follow when new. */
		private Replica replicaOrNew(String[] words) {
			String name = words[1];
			if (this.replicas.containsKey(name)) {
				if (words.length > 2) {
					throw new IllegalArgumentException("Replica " + name + " exists already: options are given once");
				}
				return this.replicas.get(name);
			}
			Map<String, String> options = new LinkedHashMap<>();
			for (int option = 2; option + 1 < words.length; option += 2) {
				options.put(words[option], words[option + 1]);
			}
			return newReplica(name, duration(options.getOrDefault("clock", "+0s")),
					(options.containsKey("renewing")) ? duration(options.get("renewing")) : null);
		}

		private Replica newReplica(String name, Duration clockOffset, Duration renewPeriod) {
			ScriptedLeases.Connection connection = this.leases.connect(name, this::tell);
			ElectionSettings defaults = new ElectionSettings(ELECTION, "scripts", "lease", Duration.ofSeconds(15),
					Duration.ofSeconds(10), Duration.ofSeconds(2));
			ElectionSettings settings = (renewPeriod != null) ? defaults.renewingEvery(renewPeriod) : defaults;
			ElectionRuntime runtime = new ElectionRuntime(this.time, this.time, this.time.wallClock(clockOffset),
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
			Replica replica = new Replica(engine, connection);
			this.replicas.put(name, replica);
			return replica;
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

		/** {@code 2s}, {@code 500ms}, {@code +1h}, {@code -90s}: a duration in ms, s, m or h, signed or not. */
		private static Duration duration(String text) {
			String unit = text.replaceFirst("^[-+]?\\d+", "");
			long amount = Long.parseLong(text.substring(0, text.length() - unit.length()));
			return switch (unit) {
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> throw new IllegalArgumentException("No unit in " + text);
			};
		}

		/** {@code holder b, duration 15 s, transitions 2}: the fields, by name, as the output writes them. */
		private static Map<String, String> fields(String text) {
			Map<String, String> fields = new LinkedHashMap<>();
			for (String field : text.trim().split(",\\s*")) {
				int space = field.indexOf(' ');
				fields.put(field.substring(0, space), field.substring(space + 1).trim());
			}
			return fields;
		}

		/**
		 * {@code write holder H, duration 15 s, transitions 2[, renewed -1h]}: another client writes
		 * the Lease, acquired and renewed now (or as long ago as told); {@code duration for life}
		 * writes a for-life lock.
		 */
		private void write(String text) {
			Map<String, String> fields = fields(text);
			String holder = fields.get("holder");
			String duration = fields.get("duration");
			String transitions = fields.get("transitions");
			if (duration.equals("none")) {
				// written by hand or a tool: no times either
				this.leases.write(LeaseRecord.of(holder.equals("none") ? "" : holder, null, null, null,
						(transitions != null) ? Integer.valueOf(transitions) : null));
				return;
			}
			Instant at = this.time.wallClock(duration(fields.getOrDefault("renewed", "+0s"))).instant();
			this.leases.write(LeaseRecord.of(holder.equals("none") ? "" : holder,
					duration.equals("for life") ? LeaseRecord.FOR_LIFE_LEASE_DURATION_SECONDS
							: Integer.parseInt(duration.substring(0, duration.length() - 2)),
					at, at, (transitions != null) ? Integer.parseInt(transitions) : 0));
		}

		/** {@code touch}, or {@code touch every D}: another client writes the Lease again unchanged. */
		private void touch(String[] words) {
			this.leases.touch();
			if (words.length == 3 && words[1].equals("every")) {
				touchEvery(duration(words[2]).toNanos());
			}
		}

		private void touchEvery(long period) {
			this.time.schedule(() -> {
				this.leases.touch();
				touchEvery(period);
			}, period);
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
