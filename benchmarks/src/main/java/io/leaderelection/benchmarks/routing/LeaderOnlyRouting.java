package io.leaderelection.benchmarks.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderElector;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Figures;
import io.leaderelection.benchmarks.harness.HarnessArguments;
import io.leaderelection.benchmarks.harness.Log;
import io.leaderelection.benchmarks.harness.MarkdownSection;
import io.leaderelection.benchmarks.harness.SectionRun;
import io.leaderelection.benchmarks.harness.Stats;
import io.leaderelection.benchmarks.harness.Timings;
import org.netcrusher.core.reactor.NioReactor;

/**
 * The leader-only Service over a long run of handovers: replicas of a Spring Boot web application
 * route their leader-only traffic through the EndpointSlice of a Service without selector, while
 * clients send requests along the route the slice named a kube-proxy delay before, and the leader
 * hands over in turn by a step-down, a rolling restart (a new replica starts, then the leader shuts
 * down) and a kill (its web server stops and its API traffic is black-holed: it neither withdraws
 * its route nor releases its Lease).
 * <p>
 * Measured: the time from each handover to the slice naming the new leader; the time the slice
 * named a replica whose gate was closed, and named none; the slice's versions and samples naming
 * two addresses; the leader-only requests served by a replica whose gate was closed (checked
 * against every gate interval, on the JVM's monotonic clock); the API calls each handover cost.
 * <p>
 * Run it with {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify
 * -Dbenchmarks.main=io.leaderelection.benchmarks.routing.LeaderOnlyRouting}; it prints its section and
 * writes it into the file named by {@code benchmarks.output} (by default docs/benchmarks.md) under
 * {@value #HEADING}, replacing that section and nothing else. Arguments
 * ({@code -Dbenchmarks.args=...}): {@code duration=600} (seconds of handovers), {@code timings=15s/10s/2s},
 * {@code replicas=3}, {@code pause=10} (seconds between a handover settling and the next),
 * {@code proxy-delay=1000} (ms), {@code clients=4}, or {@code quick} (a 60 s run with timings
 * 4s/3s/500ms and 3 s pauses, written to target/leader-only-routing-quick.md).
 */
public final class LeaderOnlyRouting {

	static final String HEADING = "## Leader-only routing";

	/** The section of the benchmarks file this harness records. */
	public static final MarkdownSection SECTION = new MarkdownSection(HEADING);

	private static final String OBSERVER = "observer";

	/** How a leader hands over. */
	enum Kind {

		STEP_DOWN("step-down"), ROLLING_RESTART("rolling restart"), KILL("kill");

		final String label;

		Kind(String label) {
			this.label = label;
		}

	}

	/**
	 * One handover.
	 * @param toNewLeader from the handover to the slice naming the new leader
	 * @param staleAfterGateClosed from the old leader's gate closing to the slice no longer naming it
	 * @param sliceReads reads of the slice by the two leaders meanwhile
	 * @param sliceWrites writes of the slice (create, update) by them
	 * @param labelWrites patches of their Pods' labels
	 */
	record Handover(Kind kind, long toNewLeader, long staleAfterGateClosed, long sliceReads, long sliceWrites,
			long labelWrites) {

	}

	private final ApiServer server;

	private final NioReactor reactor;

	private final KubernetesClient client;

	private final Timings timings;

	private final RoutedReplica.Served served = new RoutedReplica.Served();

	/** Every replica started, closed ones included, for their gate intervals. */
	private final List<RoutedReplica> started = new CopyOnWriteArrayList<>();

	/** The replicas running now. */
	private final List<RoutedReplica> running = new CopyOnWriteArrayList<>();

	private final List<CompletableFuture<Void>> closing = new ArrayList<>();

	private int lastIndex;

	private LeaderOnlyRouting(ApiServer server, NioReactor reactor, KubernetesClient client, Timings timings) {
		this.server = server;
		this.reactor = reactor;
		this.client = client;
		this.timings = timings;
	}

	public static void main(String[] args) throws Exception {
		SectionRun run = new SectionRun(LeaderOnlyRouting.class, SECTION, args,
				"duration, timings, replicas, pause, proxy-delay, clients");
		HarnessArguments arguments = run.arguments();
		Duration duration = arguments.seconds("duration", 600, 60);
		Timings timings = Timings.parse(arguments.value("timings", HarnessArguments.STANDARD_TIMINGS, "4s/3s/500ms"));
		int replicas = arguments.integer("replicas", 3, 3);
		Duration pause = arguments.seconds("pause", 10, 3);
		Duration proxyDelay = Duration.ofMillis(arguments.integer("proxy-delay", 1000, 1000));
		int clients = arguments.integer("clients", 4, 4);
		String section;
		try (ApiServer server = ApiServer.start(); KubernetesClient client = observer(server)) {
			NioReactor reactor = new NioReactor();
			try {
				LeaderOnlyRouting harness = new LeaderOnlyRouting(server, reactor, client, timings);
				section = harness.run(run, replicas, duration, pause, proxyDelay, clients);
			}
			finally {
				reactor.close();
			}
		}
		run.record(section);
	}

	private static KubernetesClient observer(ApiServer server) {
		return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + server.port())
			.withNamespace(ApiServer.NAMESPACE)
			.withHttp2Disable(true)
			.withCustomHeaders(Map.of(ApiServer.CLIENT_HEADER, OBSERVER))
			.build()).build();
	}

	private String run(SectionRun run, int replicas, Duration duration, Duration pause, Duration proxyDelay,
			int clients) throws Exception {
		this.client.services()
			.inNamespace(ApiServer.NAMESPACE)
			.resource(new ServiceBuilder().withNewMetadata()
				.withName(RoutedReplica.SERVICE)
				.endMetadata()
				.withNewSpec()
				.addNewPort()
				.withName("http")
				.withPort(80)
				.endPort()
				.endSpec()
				.build())
			.create();
		List<Handover> handovers = new ArrayList<>();
		RouteClients load;
		long runStart;
		long runEnd;
		try (SliceTimeline timeline = new SliceTimeline(this.client)) {
			Log.log("starting " + replicas + " replicas, timings " + this.timings);
			for (int i = 0; i < replicas; i++) {
				startReplica();
			}
			awaitLeader(timeline, this.timings.leaseDuration().multipliedBy(4).plusSeconds(60));
			load = new RouteClients(timeline, proxyDelay, clients);
			runStart = System.nanoTime();
			Log.log("handovers for " + duration.toSeconds() + " s, a pause of " + pause.toSeconds()
					+ " s after each; kube-proxy delay " + proxyDelay.toMillis() + " ms, " + clients + " clients");
			for (int i = 0; System.nanoTime() - runStart < duration.toNanos(); i++) {
				Kind kind = Kind.values()[i % Kind.values().length];
				Handover handover = handover(kind, timeline);
				handovers.add(handover);
				Log.log(String.format(Locale.ROOT, "%s: slice names the new leader after %s, named the "
						+ "old one %s after its gate closed; slice reads %d, writes %d, label writes %d", kind.label,
						Figures.duration(handover.toNewLeader()), Figures.duration(handover.staleAfterGateClosed()),
						handover.sliceReads(), handover.sliceWrites(), handover.labelWrites()));
				Thread.sleep(pause.toMillis());
			}
			runEnd = System.nanoTime();
			load.close();
			Analysis analysis = analyse(timeline, runStart, runEnd);
			Log.log("closing the replicas");
			this.running.forEach((replica) -> this.closing.add(CompletableFuture.runAsync(replica::close)));
			CompletableFuture.allOf(this.closing.toArray(CompletableFuture[]::new)).join();
			return section(run, handovers, analysis, load, timeline, replicas, duration, pause, proxyDelay,
					clients);
		}
	}

	private RoutedReplica startReplica() {
		int index = ++this.lastIndex;
		this.client.pods()
			.inNamespace(ApiServer.NAMESPACE)
			.resource(new PodBuilder().withNewMetadata().withName(RoutedReplica.podName(index)).endMetadata().build())
			.create();
		RoutedReplica replica = RoutedReplica.start(index, this.server, this.reactor, this.timings, this.served);
		this.started.add(replica);
		this.running.add(replica);
		return replica;
	}

	/** Waits until one running replica leads and the slice names it. */
	private RoutedReplica awaitLeader(SliceTimeline timeline, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() - deadline < 0) {
			for (RoutedReplica replica : this.running) {
				if (replica.isLeader() && replica.address().equals(timeline.address())) {
					return replica;
				}
			}
			Thread.sleep(10);
		}
		throw new IllegalStateException("no replica led with the slice naming it within " + timeout.toSeconds() + " s");
	}

	private Handover handover(Kind kind, SliceTimeline timeline) throws Exception {
		Duration limit = this.timings.leaseDuration().multipliedBy(4).plusSeconds(60);
		RoutedReplica leader = awaitLeader(timeline, limit);
		if (kind == Kind.ROLLING_RESTART) {
			// as a rolling update with surge: the new Pod is up before the old one stops
			RoutedReplica surge = startReplica();
			await(() -> label(surge).equals("follower") ? Boolean.TRUE : null, limit);
		}
		List<String> involved = this.running.stream().map(RoutedReplica::name).toList();
		long[][] before = counts(involved);
		int intervalsBefore = leader.gateIntervals().size();
		long handoverAt = System.nanoTime();
		switch (kind) {
			case STEP_DOWN -> leader.elector().stepDown(LeaderElector.DEFAULT_ELECTION);
			case ROLLING_RESTART -> {
				this.running.remove(leader);
				this.closing.add(CompletableFuture.runAsync(leader::close));
			}
			case KILL -> {
				leader.kill();
				this.running.remove(leader);
			}
		}
		Long named = await(() -> timeline.namedOtherThan(leader.address(), handoverAt), limit);
		long[] closedInterval = await(() -> {
			List<long[]> intervals = leader.gateIntervals();
			long[] last = intervals.get(intervalsBefore - 1);
			return (last[1] != Long.MAX_VALUE) ? last : null;
		}, limit);
		Long stale = await(() -> timeline.stoppedNaming(leader.address(), closedInterval[1]), limit);
		RoutedReplica successor = awaitLeader(timeline, limit);
		// the labels settled, and a moment for writes still on their way
		await(() -> label(successor).equals("leader") && (kind == Kind.KILL || !this.running.contains(leader)
				|| label(leader).equals("follower")) ? Boolean.TRUE : null, limit);
		Thread.sleep(1000);
		long[][] after = counts(involved);
		if (kind == Kind.KILL) {
			this.closing.add(CompletableFuture.runAsync(leader::close));
			startReplica();
		}
		return new Handover(kind, named - handoverAt, stale - closedInterval[1], delta(before, after, 0),
				delta(before, after, 1), delta(before, after, 2));
	}

	private String label(RoutedReplica replica) {
		Map<String, String> labels = this.client.pods()
			.inNamespace(ApiServer.NAMESPACE)
			.withName(RoutedReplica.podName(Integer.parseInt(replica.name().substring("replica-".length()))))
			.get()
			.getMetadata()
			.getLabels();
		return (labels != null) ? String.valueOf(labels.get("leaderelection.io/default")) : "none";
	}

	/** Slice reads, slice writes and label writes of each named replica so far. */
	private long[][] counts(List<String> replicas) {
		long[][] counts = new long[replicas.size()][3];
		for (int i = 0; i < replicas.size(); i++) {
			ApiServer.Counts slices = this.server.counts(replicas.get(i), "endpointslices");
			ApiServer.Counts pods = this.server.counts(replicas.get(i), "pods");
			counts[i][0] = slices.get(ApiServer.Kind.GET);
			counts[i][1] = slices.get(ApiServer.Kind.PUT) + slices.get(ApiServer.Kind.POST);
			counts[i][2] = pods.get(ApiServer.Kind.PATCH);
		}
		return counts;
	}

	private static long delta(long[][] before, long[][] after, int column) {
		long delta = 0;
		for (int i = 0; i < before.length; i++) {
			delta += after[i][column] - before[i][column];
		}
		return delta;
	}

	private interface Probe<T> {

		T poll() throws Exception;

	}

	private static <T> T await(Probe<T> probe, Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			T value = probe.poll();
			if (value != null) {
				return value;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("not within " + timeout.toSeconds() + " s");
			}
			Thread.sleep(5);
		}
	}

	// ---- what the run shows

	/**
	 * @param namedClosedGate how long the slice named a replica whose gate was closed
	 * @param namedNone how long it named none
	 * @param servedWithGateClosed leader-only requests a replica served with its gate closed
	 */
	record Analysis(long runNanos, long namedClosedGate, long namedNone, long servedWithGateClosed, long servedTotal) {

	}

	private Analysis analyse(SliceTimeline timeline, long runStart, long runEnd) {
		Map<String, RoutedReplica> byAddress = new java.util.HashMap<>();
		Map<String, RoutedReplica> byName = new java.util.HashMap<>();
		for (RoutedReplica replica : this.started) {
			byAddress.put(replica.address(), replica);
			byName.put(replica.name(), replica);
		}
		long namedClosedGate = 0;
		long namedNone = 0;
		List<SliceTimeline.Version> versions = timeline.versions();
		for (int i = 0; i < versions.size(); i++) {
			long from = Math.max(versions.get(i).at(), runStart);
			long to = Math.min((i + 1 < versions.size()) ? versions.get(i + 1).at() : runEnd, runEnd);
			if (to - from <= 0) {
				continue;
			}
			String address = versions.get(i).address();
			if (address == null) {
				namedNone += to - from;
				continue;
			}
			long open = 0;
			for (long[] interval : byAddress.get(address).gateIntervals()) {
				open += Math.max(0, Math.min(to, interval[1]) - Math.max(from, interval[0]));
			}
			namedClosedGate += (to - from) - open;
		}
		long servedWithGateClosed = 0;
		List<RoutedReplica.Served.Request> requests = this.served.all();
		for (RoutedReplica.Served.Request request : requests) {
			boolean open = byName.get(request.replica())
				.gateIntervals()
				.stream()
				.anyMatch((interval) -> request.at() - interval[0] >= 0 && interval[1] - request.at() > 0);
			if (!open) {
				servedWithGateClosed++;
			}
		}
		return new Analysis(runEnd - runStart, namedClosedGate, namedNone, servedWithGateClosed, requests.size());
	}

	private String section(SectionRun run, List<Handover> handovers, Analysis analysis, RouteClients load,
			SliceTimeline timeline, int replicas, Duration duration, Duration pause, Duration proxyDelay,
			int clients) {
		StringBuilder out = new StringBuilder();
		run.open(out, "a 60 s run, scaled timings, few handovers of each kind");
		out.append("- ")
			.append(replicas)
			.append(" replicas of a Spring Boot web application (Spring MVC on Tomcat) with the starter, each its ")
			.append("own context, fabric8 client, identity, Pod and address (192.0.2.N, reached at 127.0.0.1 and its ")
			.append("port), in one JVM, electing on ")
			.append("one Lease with timings ")
			.append(this.timings)
			.append(" and routing `leader.election.routing.service` to a Service without selector; API server: ")
			.append("fabric8's `KubernetesMockServer` 7.3.1 in CRUD mode on 127.0.0.1, requests counted by a ")
			.append("header each client sends.\n");
		out.append("- Handovers for ")
			.append(duration.toSeconds())
			.append(" s in turn: step-down (`stepDown`), rolling restart (a new replica started, then the leader's ")
			.append("context closed: drain, withdraw, release) and kill (the leader's web server stopped and its API ")
			.append("traffic black-holed: no withdrawal, no release, a replacement started afterwards); ")
			.append(pause.toSeconds())
			.append(" s after each settled.\n");
		out.append("- ")
			.append(clients)
			.append(" clients send a leader-only request every 20 ms each along the route the slice named ")
			.append(proxyDelay.toMillis())
			.append(" ms before (as a watch delivered it): kube-proxy applying the slice late.\n");
		out.append("- Percentiles by nearest rank: with fewer than 100 samples p99 is the maximum.\n\n");

		out.append("| handover | n | to the slice naming the new leader, p50 | p99 | old gate closed → slice no longer ")
			.append("names it, p50 | p99 | slice reads | slice writes | Pod label writes |\n");
		out.append("|---|---|---|---|---|---|---|---|---|\n");
		for (Kind kind : Kind.values()) {
			List<Handover> ofKind = handovers.stream().filter((handover) -> handover.kind() == kind).toList();
			if (ofKind.isEmpty()) {
				continue;
			}
			Stats toNew = new Stats(ofKind.stream().map(Handover::toNewLeader).toList());
			Stats stale = new Stats(ofKind.stream().map(Handover::staleAfterGateClosed).toList());
			out.append("| ")
				.append(kind.label)
				.append(" | ")
				.append(ofKind.size())
				.append(" | ")
				.append(Figures.duration(toNew.percentile(50)))
				.append(" | ")
				.append(Figures.duration(toNew.percentile(99)))
				.append(" | ")
				.append(Figures.duration(stale.percentile(50)))
				.append(" | ")
				.append(Figures.duration(stale.percentile(99)))
				.append(" | ")
				.append(mean(ofKind, Handover::sliceReads))
				.append(" | ")
				.append(mean(ofKind, Handover::sliceWrites))
				.append(" | ")
				.append(mean(ofKind, Handover::labelWrites))
				.append(" |\n");
		}
		out.append("\nSlice reads and writes, and Pod label writes: the mean per handover of the replicas' requests ")
			.append("to `endpointslices` and `pods` from the handover until both labels had settled and a second ")
			.append("more; a killed leader's requests never reach the server.\n\n");

		double seconds = analysis.runNanos() / 1e9;
		out.append("| over the run (")
			.append(String.format(Locale.ROOT, "%.0f", seconds))
			.append(" s, ")
			.append(handovers.size())
			.append(" handovers) | measured |\n|---|---|\n");
		out.append("| time the slice named a replica whose gate was closed | ")
			.append(Figures.duration(analysis.namedClosedGate()))
			.append(String.format(Locale.ROOT, " (%.2f %%)", 100.0 * analysis.namedClosedGate() / analysis.runNanos()))
			.append(" |\n");
		out.append("| time the slice named no replica | ")
			.append(Figures.duration(analysis.namedNone()))
			.append(String.format(Locale.ROOT, " (%.2f %%)", 100.0 * analysis.namedNone() / analysis.runNanos()))
			.append(" |\n");
		out.append("| slice versions naming two addresses (every version, from a watch) | ")
			.append(timeline.versionsNamingTwo())
			.append(" of ")
			.append(timeline.versions().size())
			.append(" |\n");
		out.append("| slice samples naming two addresses (a read every ")
			.append(SliceTimeline.SAMPLE_MILLIS)
			.append(" ms) | ")
			.append(timeline.samplesNamingTwo())
			.append(" of ")
			.append(timeline.samples())
			.append(" |\n");
		out.append("| leader-only requests served by a replica whose gate was closed | ")
			.append(analysis.servedWithGateClosed())
			.append(" of ")
			.append(analysis.servedTotal())
			.append(" served |\n");
		out.append("| clients' requests: served (200) / refused (503) / no answer / not sent (no route) | ")
			.append(load.served.sum())
			.append(" / ")
			.append(load.refused.sum())
			.append(" / ")
			.append(load.failed.sum() + load.otherStatus.sum())
			.append(" / ")
			.append(load.noRoute.sum())
			.append(" |\n\n");
		out.append("The slice is written by the leader's work lane once its term began and withdrawn when its gate ")
			.append("closed, so after every handover it names the old leader for a moment with its gate closed: ")
			.append("the withdrawal's latency after a step-down or a restart, and after a kill until the ")
			.append("successor (a lease duration later) overwrites it. Requests reaching a replica whose gate is ")
			.append("closed in that time, or through kube-proxy's delay, are the 503s; a killed replica does not ")
			.append("answer at all. Served with a closed gate is checked request by request: the time the handler ")
			.append("began against every interval that replica's gate was open.\n");
		return out.toString();
	}

	private static String mean(List<Handover> handovers, java.util.function.ToLongFunction<Handover> count) {
		return String.format(Locale.ROOT, "%.1f", handovers.stream().mapToLong(count).average().orElse(0));
	}

}
