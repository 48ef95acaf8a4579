package io.leaderelection.benchmarks.exittakeover;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Fabric8Implementation;
import io.leaderelection.benchmarks.harness.Figures;
import io.leaderelection.benchmarks.harness.Log;
import io.leaderelection.benchmarks.harness.MarkdownSection;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.PodReplica;
import io.leaderelection.benchmarks.harness.Replica;
import io.leaderelection.benchmarks.harness.SectionRun;
import io.leaderelection.benchmarks.harness.Timings;
import io.leaderelection.benchmarks.harness.Waits;
import org.netcrusher.core.reactor.NioReactor;

/**
 * Crash failover on the kubelet's word (exit takeover, issue 38): the leader's process is killed
 * and, 0.5 to 1.5 s later, its Pod's status says its container terminated, as a kubelet writes it.
 * This project with exit takeover on, the same with it off, and fabric8's {@code LeaderElector}
 * 7.3.1 side by side, each on a Lease of its own, each replica in a Pod of its own on fabric8's CRUD
 * mock API server; then the requests exit takeover adds per leader and per follower.
 * <p>
 * Run it with {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify
 * -Dbenchmarks.main=io.leaderelection.benchmarks.exittakeover.ExitTakeovers}; it prints its section and writes it
 * into the file named by {@code benchmarks.output} (by default docs/benchmarks.md) under
 * {@value #HEADING}, replacing that section and nothing else. Arguments
 * ({@code -Dbenchmarks.args=...}): {@code trials=20}, {@code timings=15s/10s/2s}, or {@code quick}
 * (scaled timings, 3 trials, written to target/exit-takeovers-quick.md).
 */
public final class ExitTakeovers {

	static final String HEADING = "## Crash failover on the kubelet's word";

	/** The section of the benchmarks file this harness records. */
	public static final MarkdownSection SECTION = new MarkdownSection(HEADING);

	private static final String CONTAINER = "app";

	/** How long requests are counted, once a leader and a follower are settled. */
	private static final Duration REQUEST_WINDOW = Duration.ofSeconds(30);

	enum Side {

		PROOF("this project, exit takeover on"), WAIT("this project, exit takeover off"),
		FABRIC8("fabric8 7.3.1");

		final String label;

		Side(String label) {
			this.label = label;
		}

	}

	/**
	 * @param fromKill kill to the successor's gate opening, in ns
	 * @param fromStatus the status update to the successor's gate opening, in ns
	 */
	record Result(Side side, List<Long> fromKill, List<Long> fromStatus, List<String> problems) {
	}

	/** Requests of one replica in the window, by resource. */
	record Requests(Side side, String role, long leases, long pods, String detail) {
	}

	private final ApiServer server;

	private final KubernetesClient kubelet;

	private final Timings timings;

	private final NioReactor reactor;

	private ExitTakeovers(ApiServer server, Timings timings, NioReactor reactor) {
		this.server = server;
		this.kubelet = OurImplementation.client(server.port(), "kubelet");
		this.timings = timings;
		this.reactor = reactor;
	}

	public static void main(String[] args) throws Exception {
		SectionRun run = new SectionRun(ExitTakeovers.class, SECTION, args, "trials, timings");
		int trials = run.arguments().integer("trials", 20, 3);
		Timings timings = run.arguments().timings();
		List<Result> results = new ArrayList<>();
		List<Requests> requests = new ArrayList<>();
		NioReactor reactor = new NioReactor();
		try (ApiServer server = ApiServer.start()) {
			ExitTakeovers harness = new ExitTakeovers(server, timings, reactor);
			ExecutorService sides = Executors.newFixedThreadPool(Side.values().length);
			try {
				Log.log("Exit takeover: " + trials + " kills per side, " + timings);
				List<Future<Result>> running = new ArrayList<>();
				for (Side side : Side.values()) {
					running.add(sides.submit(() -> harness.failovers(side, trials)));
				}
				for (Future<Result> result : running) {
					results.add(result.get());
				}
				Log.log("Exit takeover: requests in " + REQUEST_WINDOW.toSeconds() + " s");
				List<Future<List<Requests>>> counting = new ArrayList<>();
				for (Side side : List.of(Side.PROOF, Side.WAIT)) {
					counting.add(sides.submit(() -> harness.requests(side)));
				}
				for (Future<List<Requests>> counted : counting) {
					requests.addAll(counted.get());
				}
			}
			finally {
				sides.shutdownNow();
				harness.kubelet.close();
			}
		}
		finally {
			reactor.close();
		}
		run.record(section(run, results, requests, timings, trials));
	}

	// ---- failovers

	/** One side's kills, each followed by the kubelet's report of the container's end. */
	Result failovers(Side side, int trials) throws InterruptedException {
		String lease = "exit-" + side.name().toLowerCase(Locale.ROOT);
		Random random = new Random(42);
		List<Long> fromKill = new ArrayList<>();
		List<Long> fromStatus = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		Duration timeout = this.timings.leaseDuration().multipliedBy(2).plus(this.timings.retryPeriod().multipliedBy(5));
		int[] generation = { 0 };
		Function<Integer, Elector> next = (ignored) -> elector(side, lease + "-" + generation[0]++, lease);
		Elector leader = next.apply(0);
		Elector follower = null;
		try {
			if (leader.awaitOpened(timeout) == null) {
				problems.add("the first leader did not lead within " + timeout.toSeconds() + " s");
				return new Result(side, fromKill, fromStatus, problems);
			}
			follower = next.apply(0);
			for (int trial = 0; trial < trials; trial++) {
				awaitReady(side, follower, leader, lease, timeout);
				Thread.sleep((long) (random.nextDouble() * 2.2 * this.timings.retryPeriod().toMillis()));
				long statusDelay = 500 + (long) (random.nextDouble() * 1000);
				long killed = System.nanoTime();
				leader.kill();
				Thread.sleep(Math.max(0, statusDelay - Duration.ofNanos(System.nanoTime() - killed).toMillis()));
				long reported = terminated(leader.pod);
				Long opened = follower.awaitOpened(timeout);
				if (opened == null) {
					problems.add("trial " + trial + ": no takeover within " + timeout.toSeconds() + " s");
					break;
				}
				fromKill.add(opened - killed);
				fromStatus.add(opened - reported);
				Log.log(String.format(Locale.ROOT, "  %s %s trial %d: %s after the kill, %s after the status",
						side.label, this.timings, trial, Figures.duration(opened - killed),
						Figures.duration(opened - reported)));
				leader.close();
				leader = follower;
				follower = next.apply(0);
			}
		}
		catch (RuntimeException ex) {
			problems.add(String.valueOf(ex));
		}
		finally {
			leader.close();
			if (follower != null) {
				follower.close();
			}
		}
		return new Result(side, fromKill, fromStatus, problems);
	}

	/**
	 * Until the follower has opened its watch and heard a renewal through it (this project), or
	 * sent its first read (fabric8, which polls); with exit takeover, until the Lease names the
	 * leader's run and the follower has opened its watch of the leader's Pod.
	 */
	private void awaitReady(Side side, Elector follower, Elector leader, String lease, Duration timeout)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		if (side == Side.FABRIC8) {
			until(() -> this.server.counts(follower.pod).get(ApiServer.Kind.GET) > 0, deadline, follower.pod);
			return;
		}
		until(() -> this.server.counts(follower.pod).get(ApiServer.Kind.WATCH) > 0, deadline, follower.pod);
		Object seen = follower.ours.lastSeenRenewal();
		until(() -> !Objects.equals(seen, follower.ours.lastSeenRenewal()), deadline, follower.pod);
		if (side == Side.PROOF) {
			until(() -> namesRun(lease, leader.pod), deadline, leader.pod + "'s run in the Lease");
			until(() -> this.server.counts(follower.pod, "pods").get(ApiServer.Kind.WATCH) >= 2, deadline,
					follower.pod + "'s watch of the leader's Pod");
		}
	}

	private boolean namesRun(String lease, String pod) {
		Lease stored = this.kubelet.leases().inNamespace(ApiServer.NAMESPACE).withName(lease).get();
		String annotation = (stored != null && stored.getMetadata().getAnnotations() != null)
				? stored.getMetadata().getAnnotations().get("leaderelection.io/holder-instance") : null;
		return annotation != null && annotation.contains("\"pod\":\"" + pod + "\"");
	}

	private static void until(BooleanSupplier condition, long deadline, String what) throws InterruptedException {
		Waits.until(condition, deadline, () -> "not ready in time: " + what);
	}

	// ---- requests

	/**
	 * The requests of a leader in its first {@link #REQUEST_WINDOW} (its start included: its own
	 * Pod's read and watch, the Lease's read, watch and create, the wait of a lease duration and the
	 * claim), then of a follower in its first one, then of both in the next, settled.
	 */
	List<Requests> requests(Side side) throws InterruptedException {
		String lease = "requests-" + side.name().toLowerCase(Locale.ROOT);
		long leaderStarted = System.nanoTime();
		Elector leader = elector(side, lease + "-leader", lease);
		List<Requests> counted = new ArrayList<>();
		try {
			if (leader.awaitOpened(REQUEST_WINDOW) == null) {
				throw new IllegalStateException(side + ": no leader within " + REQUEST_WINDOW);
			}
			Thread.sleep(Math.max(0, REQUEST_WINDOW.toMillis()
					- Duration.ofNanos(System.nanoTime() - leaderStarted).toMillis()));
			counted.add(counted(side, "leader, its first 30 s", leader.pod, new long[12]));
			Elector follower = elector(side, lease + "-follower", lease);
			try {
				Thread.sleep(REQUEST_WINDOW.toMillis());
				counted.add(counted(side, "follower, its first 30 s", follower.pod, new long[12]));
				long[] leaderSettled = snapshot(leader.pod);
				long[] followerSettled = snapshot(follower.pod);
				Thread.sleep(REQUEST_WINDOW.toMillis());
				counted.add(counted(side, "leader, settled", leader.pod, leaderSettled));
				counted.add(counted(side, "follower, settled", follower.pod, followerSettled));
			}
			finally {
				follower.close();
			}
		}
		finally {
			leader.close();
		}
		return counted;
	}

	/** Requests to Leases (GET, PUT, POST, WATCH...) then to Pods, by kind, as counted so far. */
	private long[] snapshot(String client) {
		long[] leases = this.server.counts(client, "leases").snapshot();
		long[] pods = this.server.counts(client, "pods").snapshot();
		long[] both = new long[12];
		System.arraycopy(leases, 0, both, 0, Math.min(6, leases.length));
		System.arraycopy(pods, 0, both, 6, Math.min(6, pods.length));
		return both;
	}

	private Requests counted(Side side, String role, String client, long[] before) {
		long[] now = snapshot(client);
		long leases = 0;
		long pods = 0;
		List<String> kinds = new ArrayList<>();
		ApiServer.Kind[] names = ApiServer.Kind.values();
		for (int i = 0; i < 12; i++) {
			long delta = now[i] - before[i];
			if (i < 6) {
				leases += delta;
			}
			else {
				pods += delta;
			}
			if (delta > 0 && i % 6 < names.length) {
				kinds.add(((i < 6) ? "Lease " : "Pod ") + names[i % 6] + " " + delta);
			}
		}
		return new Requests(side, role, leases, pods, String.join(", ", kinds));
	}

	// ---- the replicas and their Pods

	private Elector elector(Side side, String pod, String lease) {
		runPod(pod);
		if (side == Side.FABRIC8) {
			Replica replica = Replica.proxied(Fabric8Implementation.onOwnClasspath("fabric8-7.3.1"), pod, this.server,
					this.reactor, lease, this.timings, false);
			replica.candidate.start();
			return new Elector(pod, null, replica);
		}
		return new Elector(pod, new PodReplica(this.server, pod, lease, this.timings, false, side == Side.PROOF).start(),
				null);
	}

	/** A Pod whose only container the kubelet reports running. */
	private void runPod(String name) {
		this.kubelet.pods()
			.inNamespace(ApiServer.NAMESPACE)
			.resource(new PodBuilder().withNewMetadata()
				.withName(name)
				.withNamespace(ApiServer.NAMESPACE)
				.endMetadata()
				.withNewSpec()
				.addNewContainer()
				.withName(CONTAINER)
				.withImage("app")
				.endContainer()
				.endSpec()
				.withNewStatus()
				.withPhase("Running")
				.withContainerStatuses(new ContainerStatusBuilder().withName(CONTAINER)
					.withRestartCount(0)
					.withNewState()
					.withNewRunning()
					.withStartedAt(Instant.now().toString())
					.endRunning()
					.endState()
					.build())
				.endStatus()
				.build())
			.create();
	}

	/**
	 * The kubelet reports the container terminated, its process having exited.
	 * @return when the status was sent, after the read of the Pod it is written on
	 */
	private long terminated(String name) {
		Pod pod = this.kubelet.pods().inNamespace(ApiServer.NAMESPACE).withName(name).get();
		pod.getStatus()
			.setContainerStatuses(List.of(new ContainerStatusBuilder().withName(CONTAINER)
				.withRestartCount(0)
				.withNewState()
				.withNewTerminated()
				.withExitCode(137)
				.withReason("Error")
				.withFinishedAt(Instant.now().toString())
				.endTerminated()
				.endState()
				.build()));
		pod.getStatus().setPhase("Failed");
		long sent = System.nanoTime();
		this.kubelet.pods().inNamespace(ApiServer.NAMESPACE).resource(pod).update();
		return sent;
	}

	/** This project's replica, or fabric8's behind a proxy that black-holes it when killed. */
	private static final class Elector implements AutoCloseable {

		final String pod;

		final PodReplica ours;

		final Replica fabric8;

		Elector(String pod, PodReplica ours, Replica fabric8) {
			this.pod = pod;
			this.ours = ours;
			this.fabric8 = fabric8;
		}

		Long awaitOpened(Duration timeout) throws InterruptedException {
			if (this.fabric8 != null) {
				return this.fabric8.gates.awaitOpened(timeout);
			}
			return Waits.await(this.ours.opened(), timeout);
		}

		/** The process is gone: it sends nothing more (fabric8's: cut off, as it cannot be killed alone). */
		void kill() {
			if (this.fabric8 != null) {
				this.fabric8.blackHole();
			}
			else {
				this.ours.kill();
			}
		}

		@Override
		public void close() {
			if (this.fabric8 != null) {
				this.fabric8.close();
			}
			else {
				this.ours.close();
			}
		}

	}

	// ---- the section

	static String section(SectionRun run, List<Result> results, List<Requests> requests, Timings timings,
			int trials) {
		StringBuilder out = new StringBuilder();
		run.open(out, "scaled timings, few kills");
		out.append("- Timings ").append(timings).append(" (lease duration / renew deadline / retry period); ")
			.append(trials)
			.append(" kills per side; the leader's Pod status written terminated 0.5 to 1.5 s after the kill "
					+ "(uniformly drawn, the same sequence for every side); percentiles by nearest rank (with fewer "
					+ "than 100 kills p99 is the maximum).\n\n");
		out.append("| measure |");
		results.forEach((result) -> out.append(' ').append(result.side().label).append(" (n=")
			.append(result.fromKill().size()).append(") |"));
		out.append("\n|---|");
		results.forEach((result) -> out.append("---|"));
		out.append('\n');
		row(out, "kill → new gate open, p50", results, Result::fromKill, 50);
		row(out, "kill → new gate open, p99", results, Result::fromKill, 99);
		row(out, "status update → new gate open, p50", results, Result::fromStatus, 50);
		row(out, "status update → new gate open, p99", results, Result::fromStatus, 99);
		row(out, "status update → new gate open, max", results, Result::fromStatus, 100);
		for (Result result : results) {
			for (String problem : result.problems()) {
				out.append("\n- ").append(result.side().label).append(": **").append(problem).append("**");
			}
		}
		out.append("\n\nRequests of one leader and one follower on one Lease, counted at the server over ")
			.append(REQUEST_WINDOW.toSeconds())
			.append(" s (a watch counts once, when it is opened):\n\n");
		out.append("| replica | Lease requests | Pod requests | by kind |\n|---|---|---|---|\n");
		for (Requests counted : requests) {
			out.append("| ").append(counted.side().label).append(", ").append(counted.role()).append(" | ")
				.append(counted.leases()).append(" | ").append(counted.pods()).append(" | ").append(counted.detail())
				.append(" |\n");
		}
		out.append("""

				How it is measured:

				- Each side has a leader and a follower on a Lease of its own, each replica in a Pod of its own \
				whose only container the harness reports running; all on fabric8's CRUD mock server \
				(`KubernetesMockServer` 7.3.1) on 127.0.0.1, in the harness's JVM, the three sides at the same \
				time. This project: `ElectionEngine` as the auto-configuration builds it (`PodReplica`), with \
				`KubernetesLeaseStores.takeOverOnExit` (on) or without (off). fabric8: `LeaderElector` 7.3.1 \
				with a `LeaseLock`, cut off by its TCP proxy when killed (it cannot be killed alone in one JVM).
				- Each kill: the follower is ready (its watch open and a renewal heard through it; with exit \
				takeover, the Lease names the leader's run and the follower watches the leader's Pod; \
				fabric8's follower has sent its first read); a pause drawn from [0, 2.2 retry periods); the \
				leader killed (`engine.stop(false)`, its threads and client closed); 0.5 to 1.5 s later the \
				harness writes the leader's Pod status as a kubelet does when the container's process has \
				exited (`state.terminated`, exit code 137, phase Failed). Measured to the follower's gate \
				opening (`ElectionListener.granted`'s gateOpenedAt; fabric8: `onStartLeading`), from the kill \
				and from the status update being sent (after the harness's read of the Pod it writes it on). The follower leads the next kill; a new follower joins.
				- Requests: counted at the server by the client header each replica sends, by resource.
				- The harness's code: `ExitTakeovers` in `benchmarks/`.
				""");
		return out.toString();
	}

	private static void row(StringBuilder out, String label, List<Result> results, Function<Result, List<Long>> values,
			double percentile) {
		out.append("| ").append(label).append(" |");
		for (Result result : results) {
			out.append(' ').append(Figures.percentile(values.apply(result), percentile)).append(" |");
		}
		out.append('\n');
	}

}
