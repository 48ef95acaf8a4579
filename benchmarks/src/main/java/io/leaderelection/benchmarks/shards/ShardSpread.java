package io.leaderelection.benchmarks.shards;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.RevocationCause;
import io.leaderelection.baseline.fabric8.Fabric8Baseline;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Fabric8Implementation;
import io.leaderelection.benchmarks.harness.Figures;
import io.leaderelection.benchmarks.harness.Log;
import io.leaderelection.benchmarks.harness.MarkdownSection;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.SectionRun;
import io.leaderelection.benchmarks.harness.Stats;
import io.leaderelection.benchmarks.harness.Timings;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

/**
 * Elected shards spread over replicas, balancing off against on, in one run, on fabric8's CRUD mock
 * API server on loopback (the {@link ApiServer} of the other benchmarks, whose CRUD dispatcher
 * answers the label selectors of the member Leases' informer on list and watch).
 * <p>
 * Part 1, spread: for each layout (replicas × shards) and trial, in a namespace of its own, the
 * replicas, each an {@link ElectionEngine} with every shard's election on its own threads and its
 * own fabric8 client, start together; one more replica joins; then one of the first replicas is
 * killed (its client closed first, so that it writes nothing more, then {@code stop(false)}: nothing
 * released, its member record not marked as left). After each event the harness samples every
 * live replica's {@code ownedShards} (its open gates) every 10 ms and takes the time until every
 * shard is led and until, besides, the largest and smallest number of shards held per live replica
 * differ by at most one; it counts the holder changes of the shard Leases at the server (the sum
 * of their leaseTransitions' rises).
 * <p>
 * Part 2, requests: per replica and verb, counted at the server over a steady window: this
 * project's engine with every shard's election, balanced, against as many fabric8 LeaderElectors
 * per replica (one fabric8 client per replica, one elector per shard Lease).
 * <p>
 * Run it with {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify
 * -Dbenchmarks.main=io.leaderelection.benchmarks.shards.ShardSpread}; it prints its section and writes it
 * into the file named by {@code benchmarks.output} (by default docs/benchmarks.md) under
 * {@value #HEADING}, replacing that section and nothing else. Arguments ({@code -Dbenchmarks.args=...}):
 * {@code trials=3}, {@code timings=3s/2s/500ms}, {@code layouts=3x60,5x64}, {@code limit=4} (lease
 * durations each phase is watched for at most), {@code requestTimings=15s/10s/2s},
 * {@code requestLayout=3x64}, {@code window=30} (seconds), {@code only=spread,requests},
 * {@code balancerLog=info} (the balancer's log at INFO, on stderr), or {@code quick} (1 trial, a
 * 10 s window with the scaled timings, written to target/shard-spread-quick.md).
 */
public final class ShardSpread {

	static final String HEADING = "## Elected shards and balanced spreading";

	/** The section of the benchmarks file this harness records. */
	public static final MarkdownSection SECTION = new MarkdownSection(HEADING);

	/** The sharded election's name, and its Lease's: shards are work-I-of-N. */
	static final String ELECTION = "work";

	private static final Pattern SHARD_LEASE = Pattern.compile(ELECTION + "-\\d+-of-\\d+");

	private static final long SAMPLE_MILLIS = 10;

	/** What is wanted per verb, in this order. */
	enum Verb {

		GET("get (one Lease)"), LIST("list"), WATCH("watch (opened)"), CREATE("create (POST)"),
		UPDATE("update (PUT, PATCH)"), OTHER("other (DELETE)");

		final String label;

		Verb(String label) {
			this.label = label;
		}

	}

	record Layout(int replicas, int shards) {

		static Layout parse(String text) {
			String[] parts = text.trim().split("x");
			return new Layout(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
		}

		String label() {
			return this.replicas + " × " + this.shards;
		}

		String key() {
			return this.replicas + "x" + this.shards;
		}

	}

	enum Phase {

		START, JOIN, KILL

	}

	/**
	 * What one phase of a trial showed; times from the event, in ns; {@code null}: not within the
	 * phase's limit.
	 * @param allLed until every shard was led by a live replica
	 * @param settled until, besides, the live replicas' counts differed by at most one
	 * @param spreadAtCheck the spread at the check time (start: two lease durations); {@code null}
	 * when there is none
	 * @param ledAtCheck how many shards were led at the check time
	 * @param moves holder changes of the shard Leases from the event to settling (or to the end
	 * of the phase when it never settled), at the server
	 * @param movesToEnd holder changes from the event to the end of the phase
	 * @param netMoved shard Leases whose holder at settling (or the end) is another than at the
	 * event
	 * @param stayed whether, once settled, the spread stayed at most one and every shard led to the
	 * end of the phase
	 * @param maxOverlap the most shards seen led by two live replicas at once
	 * @param heldAtSettle the shards held per live replica when settled (or at the end)
	 * @param revocations the live replicas' revocations in the phase, by cause
	 * @param victimRequests requests of the killed replica counted at the server from a second after
	 * its kill returned to the end of the phase; -1 when none was killed
	 * @param victimRequestsLate those counted from the kill's return to that second (sent before,
	 * answered or counted late)
	 * @param staleViews at the phase's end, (replica, shard) pairs where a live replica's status
	 * names no holder while another live replica leads the shard
	 * @param limit how long the phase was watched for at most, in ns
	 * @param watchedAfterSettle how long the phase was watched after it settled, in ns
	 * @param handoversAfterSettle hand-overs (revocations HANDED_OVER) after it settled
	 * @param unledAfterSettle how long, after it settled, some shard was led by no live replica, in ns
	 * @param maxSpreadAfterSettle the largest spread seen after it settled
	 * @param gcMillis the JVM's garbage collection time during the phase (every collector, in ms)
	 */
	record PhaseResult(Phase phase, Long allLed, Long settled, Integer spreadAtCheck, Integer ledAtCheck, int moves,
			int movesToEnd, int netMoved, boolean stayed, int maxOverlap, String heldAtSettle, String heldAtEnd,
			Map<RevocationCause, Integer> revocations, long victimRequests, long victimRequestsLate, int staleViews,
			long limit, long watchedAfterSettle, int handoversAfterSettle, long unledAfterSettle,
			int maxSpreadAfterSettle, long gcMillis) {

		PhaseResult withVictim(long requests, long late) {
			return new PhaseResult(this.phase, this.allLed, this.settled, this.spreadAtCheck, this.ledAtCheck,
					this.moves, this.movesToEnd, this.netMoved, this.stayed, this.maxOverlap, this.heldAtSettle,
					this.heldAtEnd, this.revocations, requests, late, this.staleViews, this.limit,
					this.watchedAfterSettle, this.handoversAfterSettle, this.unledAfterSettle,
					this.maxSpreadAfterSettle, this.gcMillis);
		}

	}

	record Trial(Layout layout, boolean balanced, int number, PhaseResult start, PhaseResult join, PhaseResult kill,
			List<String> problems) {

		PhaseResult phase(Phase phase) {
			return switch (phase) {
				case START -> this.start;
				case JOIN -> this.join;
				case KILL -> this.kill;
			};
		}

	}

	/**
	 * Requests per second per replica by verb over the window, and the shards each replica led.
	 * @param settledAfter from the start to the moment the window's wait began (this project:
	 * spread at most one with every shard led; fabric8: every shard led)
	 */
	record Requests(String label, Timings timings, Layout layout, Duration window, List<double[]> perReplica,
			List<Integer> held, long settledAfter, int movesInWindow, List<String> problems) {

		double mean(Verb verb) {
			return this.perReplica.stream().mapToDouble((rates) -> rates[verb.ordinal()]).average().orElse(Double.NaN);
		}

		double min(Verb verb) {
			return this.perReplica.stream().mapToDouble((rates) -> rates[verb.ordinal()]).min().orElse(Double.NaN);
		}

		double max(Verb verb) {
			return this.perReplica.stream().mapToDouble((rates) -> rates[verb.ordinal()]).max().orElse(Double.NaN);
		}

		double total(int replica) {
			return Arrays.stream(this.perReplica.get(replica)).sum();
		}

	}

	private final ApiServer server;

	private final KubernetesClient tool;

	private final Timings timings;

	/** How long a phase is watched for at most. */
	private final long limitNanos;

	/** How long the phase after a join is watched for at most with balancing on. */
	private final long joinLimitNanos;

	/** How long the phase after a kill is watched once settled: a group that has settled should stay so. */
	private final long killHoldNanos;

	private ShardSpread(ApiServer server, Timings timings, double limitLeaseDurations, double joinLimitLeaseDurations) {
		this.server = server;
		this.tool = OurImplementation.client(server.port(), "harness");
		this.timings = timings;
		this.limitNanos = (long) (timings.leaseDuration().toNanos() * limitLeaseDurations);
		this.joinLimitNanos = (long) (timings.leaseDuration().toNanos() * joinLimitLeaseDurations);
		this.killHoldNanos = timings.leaseDuration().toNanos() * 4;
	}

	public static void main(String[] args) throws Exception {
		SectionRun run = new SectionRun(ShardSpread.class, SECTION, args, "trials, timings, layouts, limit, joinLimit, "
				+ "requestTimings, requestLayout, window, only, modes, balancerLog, engineLog");
		Map<String, String> values = run.arguments().values();
		boolean quick = run.quick();
		int trials = Integer.parseInt(values.getOrDefault("trials", quick ? "1" : "3"));
		Timings timings = Timings.parse(values.getOrDefault("timings", "3s/2s/500ms"));
		List<Layout> layouts = Arrays.stream(values.getOrDefault("layouts", "3x60,5x64").split(","))
			.map(Layout::parse)
			.toList();
		double limit = Double.parseDouble(values.getOrDefault("limit", "4"));
		double joinLimit = Double.parseDouble(values.getOrDefault("joinLimit", "10"));
		Timings requestTimings = Timings.parse(values.getOrDefault("requestTimings", quick ? timings.toString()
				: "15s/10s/2s"));
		Layout requestLayout = Layout.parse(values.getOrDefault("requestLayout", "3x64"));
		Duration window = Duration.ofSeconds(Long.parseLong(values.getOrDefault("window", quick ? "10" : "30")));
		List<String> only = Arrays.asList(values.getOrDefault("only", "spread,requests").split(","));
		if (values.containsKey("balancerLog")) {
			((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.leaderelection.engine.Balancer"))
				.setLevel(ch.qos.logback.classic.Level.toLevel(values.get("balancerLog")));
		}
		if (values.containsKey("engineLog")) {
			((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.leaderelection"))
				.setLevel(ch.qos.logback.classic.Level.toLevel(values.get("engineLog")));
		}
		List<Boolean> modes = Arrays.stream(values.getOrDefault("modes", "off,on").split(","))
			.map((mode) -> mode.equals("on"))
			.toList();
		List<Trial> results = new ArrayList<>();
		List<Requests> requests = new ArrayList<>();
		String fabric8Version = null;
		try (ApiServer server = ApiServer.start()) {
			ShardSpread harness = new ShardSpread(server, timings, limit, joinLimit);
			try {
				if (only.contains("spread")) {
					Log.log("warm-up (not recorded): " + layouts.get(0).label() + ", the start of both modes");
					for (boolean balanced : modes) {
						harness.warmUp(layouts.get(0), balanced);
					}
					for (Layout layout : layouts) {
						for (int trial = 1; trial <= trials; trial++) {
							for (boolean balanced : modes) {
								Log.log("spread " + layout.label() + ", balancing " + (balanced ? "on" : "off")
										+ ", trial " + trial + " of " + trials + ", " + timings);
								Trial result = harness.trial(layout, balanced, trial);
								Log.log("  " + describe(result));
								results.add(result);
							}
						}
					}
				}
				if (only.contains("requests")) {
					ShardSpread requestHarness = new ShardSpread(server, requestTimings, limit, limit);
					try {
						Log.log("requests: this project, " + requestLayout.label() + ", balanced, "
								+ requestTimings + ", " + window.toSeconds() + " s window");
						Requests ours = requestHarness.oursRequests(requestLayout, window);
						Log.log("  " + describe(ours));
						requests.add(ours);
						Fabric8Baseline fabric8 = Fabric8Baseline.onClassPath();
						fabric8Version = fabric8.version() + ", from " + fabric8.jar();
						Log.log("requests: fabric8 " + fabric8Version + ", " + requestLayout.label() + ", "
								+ requestTimings + ", " + window.toSeconds() + " s window");
						Requests theirs = requestHarness.fabric8Requests(fabric8, requestLayout, window);
						Log.log("  " + describe(theirs));
						requests.add(theirs);
					}
					finally {
						requestHarness.tool.close();
					}
				}
			}
			finally {
				harness.tool.close();
			}
		}
		run.record(section(run, results, requests, timings, trials, limit, joinLimit, fabric8Version));
	}

	// ---- part 1: one trial

	Trial trial(Layout layout, boolean balanced, int number) throws Exception {
		String namespace = "spread-" + (balanced ? "on" : "off") + "-" + layout.key() + "-" + number;
		List<String> problems = new ArrayList<>();
		AtomicReference<Map<RevocationCause, AtomicInteger>> revocations = new AtomicReference<>(counters());
		ElectionListener listener = new ElectionListener() {
			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				revocations.get().get(cause).incrementAndGet();
			}
		};
		List<ShardReplica> all = new ArrayList<>();
		List<ShardReplica> live = new ArrayList<>();
		try {
			for (int i = 0; i < layout.replicas(); i++) {
				ShardReplica replica = new ShardReplica(this.server, namespace + "-r" + i,
						shards(namespace, layout.shards(), balanced), listener);
				all.add(replica);
				live.add(replica);
			}
			long leaseDuration = this.timings.leaseDuration().toNanos();
			// all started together
			Map<String, Lease> before = leases(namespace);
			long t0 = System.nanoTime();
			for (ShardReplica replica : live) {
				replica.start();
			}
			PhaseResult start = observe(Phase.START, namespace, layout.shards(), live, t0, 2 * leaseDuration,
					this.limitNanos, before, revocations, null, leaseDuration);
			// one more joins
			ShardReplica joining = new ShardReplica(this.server, namespace + "-r" + layout.replicas(),
					shards(namespace, layout.shards(), balanced), listener);
			all.add(joining);
			before = leases(namespace);
			revocations.set(counters());
			t0 = System.nanoTime();
			joining.start();
			live.add(joining);
			PhaseResult join = observe(Phase.JOIN, namespace, layout.shards(), live, t0, -1,
					balanced ? this.joinLimitNanos : this.limitNanos, before, revocations, null, leaseDuration);
			// one of the first is killed
			ShardReplica victim = live.remove(0);
			before = leases(namespace);
			revocations.set(counters());
			t0 = System.nanoTime();
			victim.kill();
			long afterKill = total(this.server.counts(victim.identity).snapshot());
			long killReturned = System.nanoTime();
			long[] aSecondAfter = { -1 };
			PhaseResult kill = observe(Phase.KILL, namespace, layout.shards(), live, t0, -1, this.limitNanos, before,
					revocations, () -> {
						if (aSecondAfter[0] < 0 && System.nanoTime() - killReturned >= 1_000_000_000L) {
							aSecondAfter[0] = total(this.server.counts(victim.identity).snapshot());
						}
					}, this.killHoldNanos);
			long atEnd = total(this.server.counts(victim.identity).snapshot());
			if (aSecondAfter[0] < 0) {
				Thread.sleep(Math.max(0, 1000 - (System.nanoTime() - killReturned) / 1_000_000));
				aSecondAfter[0] = total(this.server.counts(victim.identity).snapshot());
				atEnd = aSecondAfter[0];
			}
			kill = kill.withVictim(atEnd - aSecondAfter[0], aSecondAfter[0] - afterKill);
			return new Trial(layout, balanced, number, start, join, kill, problems);
		}
		finally {
			for (ShardReplica replica : all) {
				try {
					replica.close();
				}
				catch (RuntimeException ex) {
					problems.add(replica.identity + " did not close: " + ex);
				}
			}
		}
	}

	private static long total(long[] counts) {
		return Arrays.stream(counts).sum();
	}

	private static Map<RevocationCause, AtomicInteger> counters() {
		Map<RevocationCause, AtomicInteger> counters = new EnumMap<>(RevocationCause.class);
		for (RevocationCause cause : RevocationCause.values()) {
			counters.put(cause, new AtomicInteger());
		}
		return counters;
	}

	private List<ElectionSettings> shards(String namespace, int count, boolean balanced) {
		ElectionSettings base = new ElectionSettings(ELECTION, namespace, ELECTION, this.timings.leaseDuration(),
				this.timings.renewDeadline(), this.timings.retryPeriod())
			.renewingEvery(this.timings.retryPeriod());
		List<ElectionSettings> shards = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			shards.add(base.shard(i, count, balanced));
		}
		return shards;
	}

	/**
	 * Samples the live replicas until they have settled and stayed so for a lease duration, past
	 * the check time, or until the limit.
	 */
	private PhaseResult observe(Phase phase, String namespace, int shards, List<ShardReplica> live, long t0,
			long checkAt, long limit, Map<String, Lease> before,
			AtomicReference<Map<RevocationCause, AtomicInteger>> revocations, Runnable everySample, long hold)
			throws InterruptedException {
		Long allLed = null;
		Long settled = null;
		Integer spreadAtCheck = null;
		Integer ledAtCheck = null;
		boolean stayed = true;
		int maxOverlap = 0;
		Map<String, Lease> atSettle = null;
		String heldAtSettle = null;
		String heldNow = null;
		int handoversAtSettle = 0;
		long gcAtStart = gcMillis();
		long unledAfterSettle = 0;
		int maxSpreadAfterSettle = 0;
		long previousSample = -1;
		while (true) {
			long now = System.nanoTime();
			long elapsed = now - t0;
			int[] held = new int[live.size()];
			Set<Integer> led = new HashSet<>();
			int sum = 0;
			for (int r = 0; r < live.size(); r++) {
				Set<Integer> owned = live.get(r).owned();
				held[r] = owned.size();
				sum += owned.size();
				led.addAll(owned);
			}
			maxOverlap = Math.max(maxOverlap, sum - led.size());
			int spread = Arrays.stream(held).max().orElse(0) - Arrays.stream(held).min().orElse(0);
			boolean allLedNow = led.size() == shards;
			heldNow = Arrays.stream(held).mapToObj(Integer::toString).collect(Collectors.joining("/"));
			if (allLed == null && allLedNow) {
				allLed = elapsed;
			}
			if (spreadAtCheck == null && checkAt >= 0 && elapsed >= checkAt) {
				spreadAtCheck = spread;
				ledAtCheck = led.size();
			}
			if (settled == null && allLedNow && spread <= 1) {
				settled = elapsed;
				heldAtSettle = heldNow;
				atSettle = leases(namespace);
				handoversAtSettle = revocations.get().get(RevocationCause.HANDED_OVER).get();
			}
			else if (settled != null) {
				stayed &= allLedNow && spread <= 1;
				maxSpreadAfterSettle = Math.max(maxSpreadAfterSettle, spread);
				if (!allLedNow) {
					unledAfterSettle += elapsed - previousSample;
				}
			}
			previousSample = elapsed;
			boolean checked = checkAt < 0 || spreadAtCheck != null;
			if ((settled != null && elapsed >= settled + hold && checked) || elapsed >= limit) {
				break;
			}
			if (everySample != null) {
				everySample.run();
			}
			Thread.sleep(SAMPLE_MILLIS);
		}
		Map<String, Lease> atEnd = leases(namespace);
		Map<String, Lease> reference = (atSettle != null) ? atSettle : atEnd;
		Map<RevocationCause, Integer> causes = new TreeMap<>();
		revocations.get().forEach((cause, count) -> {
			if (count.get() > 0) {
				causes.put(cause, count.get());
			}
		});
		return new PhaseResult(phase, allLed, settled, spreadAtCheck, ledAtCheck, moves(before, reference),
				moves(before, atEnd), netMoved(before, reference), settled != null && stayed, maxOverlap,
				(heldAtSettle != null) ? heldAtSettle : heldNow, heldNow, causes, -1, -1, staleViews(live), limit,
				(settled != null) ? elapsed(t0) - settled : 0,
				(settled != null) ? revocations.get().get(RevocationCause.HANDED_OVER).get() - handoversAtSettle : 0,
				unledAfterSettle, maxSpreadAfterSettle, gcMillis() - gcAtStart);
	}

	/** The JVM's garbage collection time so far, every collector, in ms. */
	private static long gcMillis() {
		long total = 0;
		for (java.lang.management.GarbageCollectorMXBean collector : java.lang.management.ManagementFactory
			.getGarbageCollectorMXBeans()) {
			total += Math.max(0, collector.getCollectionTime());
		}
		return total;
	}

	private static long elapsed(long t0) {
		return System.nanoTime() - t0;
	}

	/**
	 * (replica, shard) pairs where the live replica's status names no holder (the Lease last seen
	 * released, or missing) while another live replica leads the shard.
	 */
	private static int staleViews(List<ShardReplica> live) {
		Map<Integer, String> leaders = new HashMap<>();
		for (ShardReplica replica : live) {
			for (int shard : replica.owned()) {
				leaders.put(shard, replica.identity);
			}
		}
		int stale = 0;
		for (ShardReplica replica : live) {
			List<String> names = replica.engine.shardNames(ELECTION);
			for (Map.Entry<Integer, String> led : leaders.entrySet()) {
				if (!led.getValue().equals(replica.identity)
						&& replica.engine.status(names.get(led.getKey())).holderIdentity() == null) {
					stale++;
				}
			}
		}
		return stale;
	}

	/** The start of a trial, not recorded: class loading and compilation before the trials. */
	void warmUp(Layout layout, boolean balanced) throws Exception {
		String namespace = "warm-up-" + (balanced ? "on" : "off");
		List<ShardReplica> replicas = new ArrayList<>();
		try {
			for (int i = 0; i < layout.replicas(); i++) {
				replicas.add(new ShardReplica(this.server, namespace + "-r" + i, shards(namespace, layout.shards(), balanced),
						new ElectionListener() {
						}));
			}
			long t0 = System.nanoTime();
			replicas.forEach(ShardReplica::start);
			observe(Phase.START, namespace, layout.shards(), replicas, t0, -1, this.limitNanos, Map.of(),
					new AtomicReference<>(counters()), null, 0);
		}
		finally {
			for (ShardReplica replica : replicas) {
				replica.close();
			}
		}
	}

	/** The shard Leases of the namespace, by name. */
	private Map<String, Lease> leases(String namespace) {
		Map<String, Lease> leases = new HashMap<>();
		for (Lease lease : this.tool.leases().inNamespace(namespace).list().getItems()) {
			if (SHARD_LEASE.matcher(lease.getMetadata().getName()).matches()) {
				leases.put(lease.getMetadata().getName(), lease);
			}
		}
		return leases;
	}

	/** Holder changes between two listings: the rise of every Lease's leaseTransitions. */
	private static int moves(Map<String, Lease> before, Map<String, Lease> after) {
		int moves = 0;
		for (Map.Entry<String, Lease> entry : after.entrySet()) {
			Lease earlier = before.get(entry.getKey());
			if (earlier != null) {
				moves += transitions(entry.getValue()) - transitions(earlier);
			}
		}
		return moves;
	}

	private static int netMoved(Map<String, Lease> before, Map<String, Lease> after) {
		int moved = 0;
		for (Map.Entry<String, Lease> entry : after.entrySet()) {
			Lease earlier = before.get(entry.getKey());
			if (earlier != null && !Objects.equals(holder(earlier), holder(entry.getValue()))) {
				moved++;
			}
		}
		return moved;
	}

	private static int transitions(Lease lease) {
		Integer transitions = (lease.getSpec() != null) ? lease.getSpec().getLeaseTransitions() : null;
		return (transitions != null) ? transitions : 0;
	}

	private static String holder(Lease lease) {
		String holder = (lease.getSpec() != null) ? lease.getSpec().getHolderIdentity() : null;
		return (holder == null || holder.isEmpty()) ? null : holder;
	}

	// ---- part 2: requests per replica

	Requests oursRequests(Layout layout, Duration window) throws Exception {
		String namespace = "requests-ours";
		List<ShardReplica> replicas = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		try {
			for (int i = 0; i < layout.replicas(); i++) {
				replicas.add(new ShardReplica(this.server, namespace + "-r" + i, shards(namespace, layout.shards(), true),
						new ElectionListener() {
						}));
			}
			long t0 = System.nanoTime();
			replicas.forEach(ShardReplica::start);
			long settled = -1;
			while (System.nanoTime() - t0 < this.limitNanos) {
				List<Integer> held = replicas.stream().map((replica) -> replica.owned().size()).toList();
				Set<Integer> led = new HashSet<>();
				replicas.forEach((replica) -> led.addAll(replica.owned()));
				int spread = held.stream().mapToInt(Integer::intValue).max().orElse(0)
						- held.stream().mapToInt(Integer::intValue).min().orElse(0);
				if (led.size() == layout.shards() && spread <= 1) {
					settled = System.nanoTime() - t0;
					break;
				}
				Thread.sleep(SAMPLE_MILLIS);
			}
			if (settled < 0) {
				problems.add("spread not at most one with every shard led within "
						+ Figures.duration(this.limitNanos) + "; measured all the same");
				settled = System.nanoTime() - t0;
			}
			List<String> identities = replicas.stream().map((replica) -> replica.identity).toList();
			return window(this.timings, layout, "this project", namespace, identities, window, settled, problems,
					() -> replicas.stream().map((replica) -> replica.owned().size()).toList());
		}
		finally {
			for (ShardReplica replica : replicas) {
				replica.close();
			}
		}
	}

	Requests fabric8Requests(Fabric8Baseline fabric8, Layout layout, Duration window) throws Exception {
		String namespace = "requests-fabric8";
		List<Fabric8Baseline.Client> clients = new ArrayList<>();
		List<Runnable> cancels = new ArrayList<>();
		List<AtomicIntegerArray> leading = new ArrayList<>();
		List<String> identities = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		try {
			for (int r = 0; r < layout.replicas(); r++) {
				String identity = namespace + "-r" + r;
				identities.add(identity);
				clients.add(fabric8.client("http://127.0.0.1:" + this.server.port(), namespace,
						Map.of(ApiServer.CLIENT_HEADER, identity), null));
				leading.add(new AtomicIntegerArray(layout.shards()));
			}
			long t0 = System.nanoTime();
			for (int r = 0; r < layout.replicas(); r++) {
				for (int shard = 0; shard < layout.shards(); shard++) {
					AtomicIntegerArray mine = leading.get(r);
					int index = shard;
					cancels.add(Fabric8Implementation.campaign(clients.get(r), namespace,
							ELECTION + "-" + shard + "-of-" + layout.shards(), identities.get(r), this.timings, false,
							() -> mine.set(index, 1), () -> mine.set(index, 0)));
				}
			}
			long settled = -1;
			while (System.nanoTime() - t0 < this.limitNanos) {
				if (fabric8Led(leading, layout.shards()) == layout.shards()) {
					settled = System.nanoTime() - t0;
					break;
				}
				Thread.sleep(SAMPLE_MILLIS);
			}
			if (settled < 0) {
				problems.add("not every shard led within " + Figures.duration(this.limitNanos)
						+ "; measured all the same");
				settled = System.nanoTime() - t0;
			}
			return window(this.timings, layout, "fabric8 " + fabric8.version(), namespace, identities, window, settled,
					problems, () -> leading.stream().map((mine) -> {
						int held = 0;
						for (int i = 0; i < mine.length(); i++) {
							held += mine.get(i);
						}
						return held;
					}).toList());
		}
		finally {
			for (Runnable cancel : cancels) {
				try {
					cancel.run();
				}
				catch (RuntimeException ex) {
					// stopping a campaign that already ended
				}
			}
			clients.forEach(Fabric8Baseline.Client::close);
		}
	}

	private static int fabric8Led(List<AtomicIntegerArray> leading, int shards) {
		int led = 0;
		for (int i = 0; i < shards; i++) {
			for (AtomicIntegerArray mine : leading) {
				if (mine.get(i) == 1) {
					led++;
					break;
				}
			}
		}
		return led;
	}

	/** Waits a retry period, then counts every replica's requests over the window. */
	private Requests window(Timings timings, Layout layout, String label, String namespace, List<String> identities,
			Duration window, long settled, List<String> problems, java.util.function.Supplier<List<Integer>> held)
			throws InterruptedException {
		Thread.sleep(timings.retryPeriod().toMillis());
		Map<String, Lease> before = leases(namespace);
		List<long[]> countsBefore = new ArrayList<>();
		List<Long> listsBefore = new ArrayList<>();
		for (String identity : identities) {
			countsBefore.add(this.server.counts(identity).snapshot());
			listsBefore.add(this.server.lists(identity));
		}
		List<Integer> heldAtStart = held.get();
		long start = System.nanoTime();
		Thread.sleep(window.toMillis());
		double seconds = (System.nanoTime() - start) / 1e9;
		List<double[]> rates = new ArrayList<>();
		for (int r = 0; r < identities.size(); r++) {
			long[] after = this.server.counts(identities.get(r)).snapshot();
			long[] delta = new long[after.length];
			for (int k = 0; k < after.length; k++) {
				delta[k] = after[k] - countsBefore.get(r)[k];
			}
			long lists = this.server.lists(identities.get(r)) - listsBefore.get(r);
			double[] perVerb = new double[Verb.values().length];
			perVerb[Verb.GET.ordinal()] = (delta[ApiServer.Kind.GET.ordinal()] - lists) / seconds;
			perVerb[Verb.LIST.ordinal()] = lists / seconds;
			perVerb[Verb.WATCH.ordinal()] = delta[ApiServer.Kind.WATCH.ordinal()] / seconds;
			perVerb[Verb.CREATE.ordinal()] = delta[ApiServer.Kind.POST.ordinal()] / seconds;
			perVerb[Verb.UPDATE.ordinal()] = (delta[ApiServer.Kind.PUT.ordinal()] + delta[ApiServer.Kind.PATCH.ordinal()])
					/ seconds;
			perVerb[Verb.OTHER.ordinal()] = delta[ApiServer.Kind.OTHER.ordinal()] / seconds;
			rates.add(perVerb);
		}
		List<Integer> heldAtEnd = held.get();
		if (!heldAtStart.equals(heldAtEnd)) {
			problems.add("shards held per replica changed during the window: " + heldAtStart + " → " + heldAtEnd);
		}
		int moves = moves(before, leases(namespace));
		return new Requests(label, timings, layout, window, rates, heldAtEnd, settled, moves, problems);
	}

	// ---- a replica

	/** One replica: an engine with every shard's election, its own threads and its own client. */
	static final class ShardReplica {

		final String identity;

		private final KubernetesClient client;

		private final LeaderElectionThreads threads = new LeaderElectionThreads();

		private final KubernetesLeaseStores stores;

		private final ElectionEngine engine;

		private boolean started;

		private boolean gone;

		ShardReplica(ApiServer server, String identity, List<ElectionSettings> shards, ElectionListener listener) {
			this.identity = identity;
			this.client = OurImplementation.client(server.port(), identity);
			this.stores = new KubernetesLeaseStores(this.client, this.threads.blockingCalls(), this.threads.requests());
			this.engine = new ElectionEngine(identity, shards, this.stores, this.threads.runtime(), List.of(listener));
		}

		synchronized void start() {
			this.started = true;
			this.engine.start();
		}

		Set<Integer> owned() {
			return this.engine.ownedShards(ELECTION);
		}

		/**
		 * As a crash: the elector's client closed first, so that nothing more reaches the server (no
		 * release, no member record marked as left), then {@code stop(false)}, then the threads.
		 */
		synchronized void kill() {
			this.gone = true;
			this.stores.close();
			this.client.close();
			try {
				this.engine.stop(false).get(30, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(this.identity + " did not stop", ex);
			}
			finally {
				closeThreads();
			}
		}

		synchronized void close() {
			if (this.gone) {
				return;
			}
			this.gone = true;
			try {
				if (this.started) {
					this.engine.stop(false).get(30, TimeUnit.SECONDS);
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(this.identity + " did not stop", ex);
			}
			finally {
				closeThreads();
				this.stores.close();
				this.client.close();
			}
		}

		private void closeThreads() {
			try {
				this.threads.close();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	// ---- the section

	private static String describe(Trial trial) {
		return "start: " + describe(trial.start()) + "; join: " + describe(trial.join()) + "; kill: "
				+ describe(trial.kill());
	}

	private static String describe(PhaseResult result) {
		StringBuilder out = new StringBuilder();
		out.append("all led ").append(time(result.allLed())).append(", spread ≤ 1 ").append(time(result.settled()));
		if (result.spreadAtCheck() != null) {
			out.append(", spread at the check ").append(result.spreadAtCheck());
			if (result.ledAtCheck() != null) {
				out.append(" (").append(result.ledAtCheck()).append(" led)");
			}
		}
		out.append(", held ").append(result.heldAtSettle());
		if (!result.heldAtEnd().equals(result.heldAtSettle())) {
			out.append(" (at the end ").append(result.heldAtEnd()).append(')');
		}
		if (result.phase() != Phase.START) {
			out.append(", ").append(result.moves()).append(" holder changes");
			if (result.movesToEnd() != result.moves()) {
				out.append(" (").append(result.movesToEnd()).append(" to the end)");
			}
			out.append(", ").append(result.netMoved()).append(" with another holder");
		}
		else if (result.moves() > 0) {
			out.append(", ").append(result.moves()).append(" holder changes after the first holders");
		}
		if (!result.revocations().isEmpty()) {
			out.append(", revoked ").append(result.revocations());
		}
		if (result.settled() != null && !result.stayed()) {
			out.append(", **did not stay settled** (in the ").append(Figures.duration(result.watchedAfterSettle()))
				.append(" watched after: largest spread ").append(result.maxSpreadAfterSettle())
				.append(", some shard unled for ").append(Figures.duration(result.unledAfterSettle())).append(" in all, ")
				.append(result.handoversAfterSettle()).append(" hand-overs)");
		}
		if (result.maxOverlap() > 0) {
			out.append(", **").append(result.maxOverlap()).append(" shards led twice at once**");
		}
		if (result.staleViews() > 0) {
			out.append(", **").append(result.staleViews()).append(" stale views at the end** (a replica's status names no holder of ")
				.append("a shard another leads)");
		}
		out.append(", GC ").append(result.gcMillis()).append(" ms");
		if (result.phase() == Phase.KILL) {
			out.append(", killed replica's requests counted from 1 s after its kill: ").append(result.victimRequests())
				.append(" (in the first second: ").append(result.victimRequestsLate()).append(')');
		}
		return out.toString();
	}

	private static String describe(Requests result) {
		List<String> replicas = new ArrayList<>();
		for (int r = 0; r < result.perReplica().size(); r++) {
			List<String> verbs = new ArrayList<>();
			for (Verb verb : Verb.values()) {
				double rate = result.perReplica().get(r)[verb.ordinal()];
				if (rate > 0) {
					verbs.add(verb.name().toLowerCase(Locale.ROOT) + " " + Figures.rate(rate));
				}
			}
			replicas.add("leads " + result.held().get(r) + ": " + String.join(", ", verbs) + " /s");
		}
		return String.join("; ", replicas) + "; settled after " + Figures.duration(result.settledAfter())
				+ ((result.problems().isEmpty()) ? "" : "; " + result.problems());
	}

	private static String time(Long nanos) {
		return (nanos != null) ? Figures.duration(nanos) : "never";
	}

	static String section(SectionRun run, List<Trial> trials, List<Requests> requests, Timings timings,
			int trialCount, double limit, double joinLimit, String fabric8Version) {
		StringBuilder out = new StringBuilder();
		run.open(out, "one trial, a short window");
		out.append("- API server: fabric8's `KubernetesMockServer` 7.3.1 in CRUD mode on 127.0.0.1, in the harness's ")
			.append("JVM (its CRUD dispatcher answers label selectors on list and watch, which the member Leases' ")
			.append("informer uses); requests counted at the server, by a header each client sends.\n");
		if (!trials.isEmpty()) {
			long leaseDuration = timings.leaseDuration().toNanos();
			long retry = timings.retryPeriod().toNanos();
			out.append("- Spread: timings ")
				.append(timings)
				.append(" (lease duration / renew deadline / retry period, scaled down from 15s/10s/2s); ")
				.append(trialCount)
				.append(" trials per layout and mode, balancing off and on alternating, after a warm-up (the start ")
				.append("of each mode, not recorded); median and max by nearest rank (the median of 3 is the second). ")
				.append("Each phase is watched for at most ")
				.append(Figures.duration((long) (leaseDuration * limit)))
				.append(" (")
				.append(formatNumber(limit))
				.append(" lease durations), the one after a join with balancing on for at most ")
				.append(Figures.duration((long) (leaseDuration * joinLimit)))
				.append(" (")
				.append(formatNumber(joinLimit))
				.append("; with balancing off nothing hands a Lease to a replica that joins while every Lease is held), ")
				.append("and, once settled, for a lease duration more.\n");
			out.append("- Spread is the largest minus the smallest number of shards led (gate open, ")
				.append("`ownedShards`) per live replica; \"settled\": every shard led and a spread of at most 1. ")
				.append("Ratios are the measure ÷ its goal: at most 1 meets it. \"never\": not within the phase's ")
				.append("limit, its ratio a lower bound.\n\n");
			for (Layout layout : trials.stream().map(Trial::layout).distinct().toList()) {
				List<Trial> off = trials.stream().filter((t) -> t.layout().equals(layout) && !t.balanced()).toList();
				List<Trial> on = trials.stream().filter((t) -> t.layout().equals(layout) && t.balanced()).toList();
				int members = layout.replicas() + 1;
				int ceiling = (layout.shards() + members - 1) / members;
				out.append("### ")
					.append(layout.replicas())
					.append(" replicas × ")
					.append(layout.shards())
					.append(" shards, timings ")
					.append(timings)
					.append(", ")
					.append(trialCount)
					.append(" trials per mode\n\n");
				out.append("| measure | goal | balancing off: median / max | off ÷ goal | off met | ")
					.append("balancing on: median / max | on ÷ goal | on met |\n");
				out.append("|---|---|---|---|---|---|---|---|\n");
				countRow(out, "start: spread at 2 lease durations (" + Figures.duration(2 * leaseDuration)
						+ "; met only with every shard led)", 1, off, on, (t) -> t.start().spreadAtCheck(),
						(t) -> t.start().ledAtCheck() != null && t.start().ledAtCheck() == layout.shards());
				timeRow(out, "start: time until settled", 2 * leaseDuration, "2 lease durations", off, on,
						Trial::start, PhaseResult::settled);
				timeRow(out, "one joins: time until settled", 3 * leaseDuration, "3 lease durations", off, on,
						Trial::join, PhaseResult::settled);
				countRow(out, "one joins: Leases that changed holder (until settled, else to the phase's end)",
						ceiling, off, on, (t) -> t.join().moves(), (t) -> true);
				timeRow(out, "one killed: time until every shard led", leaseDuration + 2 * retry,
						"lease duration + 2 retry periods", off, on, Trial::kill, PhaseResult::allLed);
				timeRow(out, "one killed: time until settled", 3 * leaseDuration, "3 lease durations", off, on,
						Trial::kill, PhaseResult::settled);
				out.append('\n');
			}
			out.append("Each trial (times from the event; held: shards per live replica when settled, else at the ")
				.append("phase's end; holder changes: the rise of the shard Leases' leaseTransitions at the server; ")
				.append("revoked: the live replicas' revocations by cause):\n\n");
			for (Trial trial : trials) {
				out.append("- ")
					.append(trial.layout().label())
					.append(", balancing ")
					.append(trial.balanced() ? "on" : "off")
					.append(", trial ")
					.append(trial.number())
					.append(": start: ")
					.append(describe(trial.start()))
					.append("; one joins: ")
					.append(describe(trial.join()))
					.append("; one killed: ")
					.append(describe(trial.kill()))
					.append('\n');
				for (String problem : trial.problems()) {
					out.append("  - **").append(problem).append("**\n");
				}
			}
			out.append('\n');
		}
		if (requests.size() == 2) {
			Requests ours = requests.get(0);
			Requests theirs = requests.get(1);
			out.append("### API requests per replica, ")
				.append(ours.layout().replicas())
				.append(" replicas × ")
				.append(ours.layout().shards())
				.append(" shards, timings ")
				.append(ours.timings())
				.append(", ")
				.append(ours.window().toSeconds())
				.append(" s window\n\n");
			out.append("This project: one engine per replica with the ")
				.append(ours.layout().shards())
				.append(" shard elections, balanced; fabric8: ")
				.append(ours.layout().shards())
				.append(" `LeaderElector`s per replica on one client (fabric8 ")
				.append(fabric8Version)
				.append("), one per shard Lease. Requests per second per replica: the mean over the ")
				.append(ours.layout().replicas())
				.append(" replicas, with the lowest and highest in brackets. A watch counts once, when opened.\n\n");
			out.append("| requests per second per replica | this project | ")
				.append(theirs.label())
				.append(" | ÷ fabric8 |\n");
			out.append("|---|---|---|---|\n");
			for (Verb verb : Verb.values()) {
				out.append("| ")
					.append(verb.label)
					.append(" | ")
					.append(rates(ours.mean(verb), ours.min(verb), ours.max(verb)))
					.append(" | ")
					.append(rates(theirs.mean(verb), theirs.min(verb), theirs.max(verb)))
					.append(" | ")
					.append(Figures.ratio(ours.mean(verb), theirs.mean(verb)))
					.append(" |\n");
			}
			out.append("| **all** | ")
				.append(rates(mean(ours), min(ours), max(ours)))
				.append(" | ")
				.append(rates(mean(theirs), min(theirs), max(theirs)))
				.append(" | ")
				.append(Figures.ratio(mean(ours), mean(theirs)))
				.append(" |\n");
			out.append("| shards led per replica in the window | ")
				.append(ours.held().stream().map(String::valueOf).collect(Collectors.joining(" / ")))
				.append(" | ")
				.append(theirs.held().stream().map(String::valueOf).collect(Collectors.joining(" / ")))
				.append(" | |\n");
			out.append("| from the start until the window's wait began | ")
				.append(Figures.duration(ours.settledAfter()))
				.append(" (every shard led, spread ≤ 1) | ")
				.append(Figures.duration(theirs.settledAfter()))
				.append(" (every shard led) | |\n\n");
			for (Requests result : requests) {
				out.append("- ")
					.append(result.label())
					.append(": per replica, all requests: ");
				List<String> perReplica = new ArrayList<>();
				for (int r = 0; r < result.perReplica().size(); r++) {
					perReplica.add(Figures.rate(result.total(r)) + "/s (leads " + result.held().get(r) + ")");
				}
				out.append(String.join(", ", perReplica))
					.append("; holder changes of the shard Leases in the window: ")
					.append(result.movesInWindow())
					.append('\n');
				for (String problem : result.problems()) {
					out.append("  - **").append(problem).append("**\n");
				}
			}
			out.append('\n');
		}
		out.append("How it is measured:\n\n");
		out.append("""
				- Each replica is this project's `ElectionEngine` as the auto-configuration builds it (its own \
				`LeaderElectionThreads`, its own fabric8 client with fabric8's defaults), given every shard's \
				`ElectionSettings`: `new ElectionSettings("work", namespace, "work", ...)`, then \
				`shard(i, n, balanced)` for every i, so Leases `work-i-of-n`; balancing on puts them in one \
				balanced group (member Leases labelled with the group, followed by an informer), off leaves each \
				shard to whoever claims it first. All replicas in the harness's JVM; every trial and mode in a \
				namespace of its own, so every trial starts with no Lease.
				- Start: the replicas are started one after the other in a loop (a few ms), timed from the first \
				start; a missing Lease is created without holder and claimed only once unchanged for a lease \
				duration, so no shard can be led before one lease duration. Join: one more replica is started, timed from its start. \
				Kill: the first replica's fabric8 client is closed (nothing more reaches the server: no release, \
				no member record marked as left), then `engine.stop(false)` and its threads closed; timed from \
				the client's close. The spread counts the live replicas only.
				- The harness samples every live replica's `ownedShards("work")` every 10 ms, so times carry up \
				to 10 ms of sampling. A phase ends once it has settled and stayed watched for a lease duration \
				more (after a kill: four, to see whether a settled group stays settled) and is past its check \
				time, or at its limit. "Did not stay settled": after settling, the spread went above 1 or some \
				shard was led by no live replica; the hand-overs counted then are revocations HANDED_OVER.
				- Stale views: at a phase's end, the (replica, shard) pairs where a live replica's \
				`status(shard).holderIdentity()` is null (the Lease last seen released) while another live \
				replica leads the shard. The killed replica's requests are counted at the server from a second \
				after its kill returned to the phase's end (and, apart, in that first second). GC: the JVM's \
				collection time during the phase, from its `GarbageCollectorMXBean`s.
				- The goals: after start, spread ≤ 1 within 2 lease durations (met only with every shard led at \
				that moment); after a join, spread ≤ 1 within 3 lease durations, moving no more than ceil(N/M) \
				Leases (M: the members after the join); after a kill, every shard led within a lease duration \
				and 2 retry periods, and spread ≤ 1 within 3 lease durations.
				- Requests: counted at the server by the header each client sends; lists are the GETs of a \
				collection (this project's informer on the member Leases), told apart from GETs of one Lease by \
				the path. The window starts a retry period after the replicas settled. fabric8's electors \
				campaign once each (as fabric8's do), with `releaseOnCancel` off; all of a replica's electors \
				share its one client, and the replicas start one after the other, so the first to start \
				creates, and leads, most Leases.
				- The harness's code: `ShardSpread` in `benchmarks/` (and `ApiServer`, which counts lists). \
				Arguments: `trials=`, `timings=`, `layouts=3x60,5x64`, `limit=` and `joinLimit=` (lease \
				durations), `requestTimings=`, `requestLayout=`, `window=` (s), `only=spread,requests`, \
				`modes=off,on`, `balancerLog=info`, `engineLog=info`; `quick` for a short trial (written to \
				benchmarks/target/shard-spread-quick.md). The section is written into the file named by \
				`-Dbenchmarks.output` (docs/benchmarks.md by default) in place of its earlier version; the full \
				benchmark run keeps it.
				""");
		return out.toString();
	}

	private static double mean(Requests requests) {
		double sum = 0;
		for (int r = 0; r < requests.perReplica().size(); r++) {
			sum += requests.total(r);
		}
		return sum / requests.perReplica().size();
	}

	private static double min(Requests requests) {
		double min = Double.MAX_VALUE;
		for (int r = 0; r < requests.perReplica().size(); r++) {
			min = Math.min(min, requests.total(r));
		}
		return min;
	}

	private static double max(Requests requests) {
		double max = 0;
		for (int r = 0; r < requests.perReplica().size(); r++) {
			max = Math.max(max, requests.total(r));
		}
		return max;
	}

	private static String rates(double mean, double min, double max) {
		if (min == max) {
			return Figures.rate(mean);
		}
		return Figures.rate(mean) + " (" + Figures.rate(min) + "–" + Figures.rate(max) + ")";
	}

	private static String formatNumber(double value) {
		return (value == Math.rint(value)) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
	}

	/** A row of durations; {@code null} values (never within the limit) sort last. */
	private static void timeRow(StringBuilder out, String label, long goal, String goalText, List<Trial> off,
			List<Trial> on, java.util.function.Function<Trial, PhaseResult> phase,
			java.util.function.Function<PhaseResult, Long> measure) {
		out.append("| ")
			.append(label)
			.append(" | ≤ ")
			.append(Figures.duration(goal))
			.append(" (")
			.append(goalText)
			.append(") | ");
		timeCells(out, goal, off, phase, measure);
		out.append(" | ");
		timeCells(out, goal, on, phase, measure);
		out.append(" |\n");
	}

	private static void timeCells(StringBuilder out, long goal, List<Trial> trials,
			java.util.function.Function<Trial, PhaseResult> phase, java.util.function.Function<PhaseResult, Long> measure) {
		if (trials.isEmpty()) {
			out.append("– | – | –");
			return;
		}
		List<Long> values = trials.stream()
			.map(phase)
			.map(measure)
			.map((value) -> (value != null) ? value : Long.MAX_VALUE)
			.toList();
		long limit = trials.stream().map(phase).mapToLong(PhaseResult::limit).min().orElse(0);
		Stats stats = new Stats(values);
		long median = stats.percentile(50);
		long max = stats.max();
		long over = values.stream().filter((value) -> value > goal).count();
		out.append(timeText(median, limit))
			.append(" / ")
			.append(timeText(max, limit))
			.append(" | ")
			.append(goalRatio(median, goal, limit))
			.append(" / ")
			.append(goalRatio(max, goal, limit))
			.append(" | ")
			.append((over == 0) ? "yes" : "no (" + over + " of " + values.size() + " over)");
	}

	private static String timeText(long value, long limit) {
		return (value == Long.MAX_VALUE) ? "never within " + Figures.duration(limit) : Figures.duration(value);
	}

	private static String goalRatio(long value, long goal, long limit) {
		if (value == Long.MAX_VALUE) {
			return "> " + String.format(Locale.ROOT, "%.2f", (double) limit / goal);
		}
		return String.format(Locale.ROOT, "%.2f", (double) value / goal);
	}

	/** A row of counts with an upper bound as goal. */
	private static void countRow(StringBuilder out, String label, int goal, List<Trial> off, List<Trial> on,
			ToLongFunction<Trial> measure, java.util.function.Predicate<Trial> valid) {
		out.append("| ").append(label).append(" | ≤ ").append(goal).append(" | ");
		countCells(out, goal, off, measure, valid);
		out.append(" | ");
		countCells(out, goal, on, measure, valid);
		out.append(" |\n");
	}

	private static void countCells(StringBuilder out, int goal, List<Trial> trials, ToLongFunction<Trial> measure,
			java.util.function.Predicate<Trial> valid) {
		if (trials.isEmpty()) {
			out.append("– | – | –");
			return;
		}
		List<Long> values = trials.stream().map(measure::applyAsLong).toList();
		Stats stats = new Stats(values);
		long invalid = trials.stream().filter(valid.negate()).count();
		long over = trials.stream().filter((t) -> measure.applyAsLong(t) > goal || !valid.test(t)).count();
		out.append(stats.percentile(50))
			.append(" / ")
			.append(stats.max())
			.append(" | ")
			.append(String.format(Locale.ROOT, "%.2f", (double) stats.percentile(50) / goal))
			.append(" / ")
			.append(String.format(Locale.ROOT, "%.2f", (double) stats.max() / goal))
			.append(" | ")
			.append((over == 0) ? "yes" : "no (" + over + " of " + values.size() + " over"
					+ ((invalid > 0) ? "; " + invalid + " with some shard unled" : "") + ")");
	}

}
