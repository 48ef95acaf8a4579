package io.leaderelection.benchmarks.poddeletion;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.Figures;
import io.leaderelection.benchmarks.harness.Log;
import io.leaderelection.benchmarks.harness.MarkdownSection;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.PodReplica;
import io.leaderelection.benchmarks.harness.SectionRun;
import io.leaderelection.benchmarks.harness.Stats;
import io.leaderelection.benchmarks.harness.Timings;
import io.leaderelection.benchmarks.harness.Waits;

/**
 * Takeover time after the leader's Pod goes, leader-for-life against lease mode, in the same run
 * with the same timings: three replicas per election (a leader and two followers), each in a Pod
 * of its own on fabric8's CRUD mock API server, which checks a deletion's preconditions here
 * ({@link ApiServer#startCheckingDeletions()}). The harness plays Kubernetes: it creates the
 * Pods, deletes them, sets an evicted Pod's phase, and, as the garbage collector, deletes the
 * Leases a deleted Pod owned.
 * <p>
 * Scenarios:
 * <ol>
 * <li>graceful: the leader's process gets SIGTERM and stops releasing ({@code engine.stop(true)});
 * then its Pod is deleted and collected. Measured from the stop's beginning.</li>
 * <li>crash: the leader's process is gone ({@code engine.stop(false)}, its threads and client
 * closed: nothing released, nothing more sent); then its Pod is deleted and, at once, collected.
 * Measured from the Pod's deletion.</li>
 * <li>evicted: the process is gone as in a crash, and the Pod's phase is set to Failed; the Pod
 * stays, so no garbage collector deletes anything. Measured from the phase's write.</li>
 * </ol>
 * Each to the moment a follower's gate opens, on the engine's clock
 * ({@code ElectionListener.granted}'s gateOpenedAt, {@link System#nanoTime()} with the default
 * threads). The two modes of a scenario run at the same time on separate Leases and Pods.
 * <p>
 * Run it with {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify
 * -Dbenchmarks.main=io.leaderelection.benchmarks.poddeletion.PodDeletionTakeovers}; it prints its section
 * and writes it into the file named by {@code benchmarks.output} (by default docs/benchmarks.md)
 * under {@value #HEADING}, replacing that section and nothing else. Arguments
 * ({@code -Dbenchmarks.args=...}): {@code trials=20}, {@code timings=15s/10s/2s},
 * {@code only=graceful,crash,evicted}, or {@code quick} (scaled timings, 3 trials, written to
 * target/pod-deletion-takeovers-quick.md).
 */
public final class PodDeletionTakeovers {

	static final String HEADING = "## Takeover after a Pod deletion: for-life against lease mode";

	/** The section of the benchmarks file this harness records. */
	public static final MarkdownSection SECTION = new MarkdownSection(HEADING);

	enum Scenario {

		GRACEFUL("graceful", "graceful deletion", "SIGTERM (stop begins)"),

		CRASH("crash", "process gone (crash, force-delete), Pod deleted", "Pod deleted"),

		EVICTED("evicted", "evicted (phase Failed, Pod kept, no GC)", "phase Failed written");

		final String key;

		final String title;

		final String from;

		Scenario(String key, String title, String from) {
			this.key = key;
			this.title = title;
			this.from = from;
		}

	}

	/**
	 * @param takeovers from the scenario's moment to the first follower's gate opening, in ns
	 * @param fromLockDeletion from the garbage collector's deletion of the lock being sent to the
	 * gate opening, where the lock went that way (for-life, crash), in ns
	 * @param gaps from the old leader's gate closing to the new one's opening, in ns; negative if
	 * both were open at once
	 * @param exitToScenario from the process's end beginning to the scenario's moment (crash,
	 * evicted: the kill comes just before the Pod's deletion or phase), in ns
	 * @param staleViews followers whose status named no holder, or another, while the leader held
	 * the lock, when a trial was about to begin
	 */
	record Result(Scenario scenario, boolean forLife, List<Long> takeovers, List<Long> fromLockDeletion,
			List<Long> gaps, List<Long> exitToScenario, List<String> staleViews, List<String> problems) {
	}

	private final ApiServer server;

	private final Kubernetes kubernetes;

	private final Timings timings;

	private PodDeletionTakeovers(ApiServer server, Timings timings) {
		this.server = server;
		this.kubernetes = new Kubernetes(server);
		this.timings = timings;
	}

	public static void main(String[] args) throws Exception {
		SectionRun run = new SectionRun(PodDeletionTakeovers.class, SECTION, args, "trials, timings, only");
		int trials = run.arguments().integer("trials", 20, 3);
		Timings timings = run.arguments().timings();
		List<Scenario> scenarios = new ArrayList<>();
		List<String> only = run.arguments().list("only", "graceful,crash,evicted");
		for (Scenario scenario : Scenario.values()) {
			if (only.contains(scenario.key)) {
				scenarios.add(scenario);
			}
		}
		List<Result> results = new ArrayList<>();
		try (ApiServer server = ApiServer.startCheckingDeletions()) {
			PodDeletionTakeovers harness = new PodDeletionTakeovers(server, timings);
			try {
				ExecutorService modes = Executors.newFixedThreadPool(2);
				try {
					for (Scenario scenario : scenarios) {
						Log.log("Pod deletion, " + scenario.key + ": " + trials + " trials per mode, " + timings);
						Future<Result> forLife = modes.submit(() -> harness.run(scenario, true, trials));
						Future<Result> lease = modes.submit(() -> harness.run(scenario, false, trials));
						results.add(forLife.get());
						results.add(lease.get());
					}
				}
				finally {
					modes.shutdownNow();
				}
			}
			finally {
				harness.kubernetes.close();
			}
		}
		run.record(section(run, results, timings, trials));
	}

	// ---- one scenario in one mode

	Result run(Scenario scenario, boolean forLife, int trials) throws InterruptedException {
		String key = scenario.key + "-" + (forLife ? "forlife" : "lease");
		Random random = new Random(42);
		List<Long> takeovers = new ArrayList<>();
		List<Long> fromLockDeletion = new ArrayList<>();
		List<Long> gaps = new ArrayList<>();
		List<Long> exitToScenario = new ArrayList<>();
		List<String> staleViews = new ArrayList<>();
		List<String> problems = new ArrayList<>();
		Duration timeout = this.timings.leaseDuration().multipliedBy(2).plus(this.timings.retryPeriod().multipliedBy(5));
		int[] generation = { 0 };
		Supplier<PodReplica> next = () -> {
			String pod = key + "-" + generation[0]++;
			this.kubernetes.runPod(pod);
			return new PodReplica(this.server, pod, key, this.timings, forLife).start();
		};
		List<PodReplica> all = new ArrayList<>();
		PodReplica leader = next.get();
		all.add(leader);
		List<PodReplica> followers = new ArrayList<>();
		try {
			if (Waits.await(leader.opened(), timeout) == null) {
				problems.add("the first leader did not lead within " + timeout.toSeconds() + " s");
				return new Result(scenario, forLife, takeovers, fromLockDeletion, gaps, exitToScenario, staleViews,
						problems);
			}
			for (int i = 0; i < 2; i++) {
				PodReplica follower = next.get();
				all.add(follower);
				followers.add(follower);
			}
			for (int trial = 0; trial < trials; trial++) {
				for (PodReplica follower : followers) {
					if (!awaitReady(follower, leader, forLife, timeout)) {
						staleViews.add("trial " + trial + ", " + follower.pod() + ": holder "
								+ follower.status().holderIdentity() + " while " + leader.holder() + " led");
					}
				}
				if (followers.stream().anyMatch((follower) -> follower.opened().isDone())) {
					problems.add("trial " + trial + ": a follower's gate opened before the trial, besides "
							+ leader.pod() + "'s");
					break;
				}
				Thread.sleep((long) (random.nextDouble() * 2.2 * this.timings.retryPeriod().toMillis()));
				long at;
				long lockDeletedAt = -1;
				switch (scenario) {
					case GRACEFUL -> {
						at = System.nanoTime();
						leader.stopReleasing();
					}
					case CRASH -> {
						long exit = System.nanoTime();
						leader.kill();
						at = System.nanoTime();
						exitToScenario.add(at - exit);
						lockDeletedAt = this.kubernetes.deletePodAndCollect(leader.pod());
					}
					default -> {
						long exit = System.nanoTime();
						leader.kill();
						Pod pod = this.kubernetes.pod(leader.pod());
						pod.getStatus().setPhase("Failed");
						at = System.nanoTime();
						exitToScenario.add(at - exit);
						this.kubernetes.update(pod);
					}
				}
				Long opened = firstOpened(followers, timeout);
				if (opened == null) {
					problems.add("trial " + trial + ": no takeover within " + timeout.toSeconds() + " s");
					break;
				}
				PodReplica successor = followers.stream()
					.filter((follower) -> follower.opened().isDone())
					.findFirst()
					.orElseThrow();
				takeovers.add(opened - at);
				if (lockDeletedAt >= 0) {
					fromLockDeletion.add(opened - lockDeletedAt);
				}
				Long closed = Waits.await(leader.closed(), Duration.ofSeconds(10));
				if (closed != null) {
					gaps.add(opened - closed);
				}
				else {
					problems.add("trial " + trial + ": the old leader never reported its gate closed");
				}
				Log.log(String.format(Locale.ROOT, "  %s %s trial %d: %s", key, this.timings, trial,
						Figures.duration(opened - at)));
				// the rest of what Kubernetes does, outside the measurement
				if (scenario == Scenario.GRACEFUL) {
					leader.close();
					this.kubernetes.deletePodAndCollect(leader.pod());
				}
				else if (scenario == Scenario.EVICTED) {
					if (!"Failed".equals(this.kubernetes.pod(leader.pod()).getStatus().getPhase())) {
						problems.add("trial " + trial + ": the Pod's phase was not stored as Failed");
					}
					this.kubernetes.deletePodAndCollect(leader.pod());
				}
				followers.remove(successor);
				leader = successor;
				PodReplica follower = next.get();
				all.add(follower);
				followers.add(follower);
				for (PodReplica other : followers) {
					if (other.opened().isDone()) {
						problems.add("trial " + trial + ": " + other.pod() + " opened its gate too");
					}
				}
			}
			// the last trial's other follower
			Thread.sleep(this.timings.retryPeriod().toMillis());
			for (PodReplica other : followers) {
				if (other.opened().isDone()) {
					problems.add(other.pod() + " opened its gate besides " + leader.pod());
				}
			}
		}
		catch (RuntimeException ex) {
			problems.add(String.valueOf(ex));
		}
		finally {
			for (PodReplica replica : all) {
				replica.close();
			}
		}
		return new Result(scenario, forLife, takeovers, fromLockDeletion, gaps, exitToScenario, staleViews,
				problems);
	}

	/**
	 * Until the follower has opened its watch and, after that, heard from the server: lease mode,
	 * a renewal of the leader through the watch (the mock server logs a watch request before it
	 * registers the watch); for-life, where the lock never changes, the read of the owner Pod its
	 * loop sends once the watch is open (its third Pod read: its own Pod at start, the owner after
	 * its first read of the lock, the owner again when the watch opened). Then until its status
	 * names the leader as holder, for at most two retry periods and a second.
	 * @return whether its status named the leader in that time: a follower that keeps a stale
	 * view still runs, with its watch open, and takes part in the trial
	 */
	private boolean awaitReady(PodReplica follower, PodReplica leader, boolean forLife, Duration timeout)
			throws InterruptedException {
		long deadline = Waits.deadline(timeout);
		until(() -> this.server.counts(follower.pod()).get(ApiServer.Kind.WATCH) > 0, deadline,
				follower.pod() + " opened no watch", follower);
		if (forLife) {
			until(() -> this.server.podReads(follower.pod()) >= 3, deadline,
					follower.pod() + " did not read the owner Pod with its watch open", follower);
		}
		else {
			Object seen = follower.lastSeenRenewal();
			until(() -> !Objects.equals(seen, follower.lastSeenRenewal()), deadline,
					follower.pod() + " saw no renewal", follower);
		}
		return Waits.within(() -> follower.sees(leader.holder()),
				Waits.deadline(this.timings.retryPeriod().multipliedBy(2).plusSeconds(1)));
	}

	private void until(BooleanSupplier condition, long deadline, String failure, PodReplica follower)
			throws InterruptedException {
		Waits.until(condition, deadline, () -> failure + " (its status: " + follower.status() + "; its requests: "
				+ this.server.counts(follower.pod()) + ", " + this.server.podReads(follower.pod()) + " Pod reads)");
	}

	/** When the first of the followers' gates opened; {@code null} if none did within the timeout. */
	private static Long firstOpened(List<PodReplica> followers, Duration timeout) throws InterruptedException {
		CompletableFuture<Object> first = CompletableFuture
			.anyOf(followers.stream().map(PodReplica::opened).toArray(CompletableFuture[]::new));
		Object opened = Waits.await(first, timeout);
		return (opened != null) ? (Long) opened : null;
	}

	// ---- the section

	static String section(SectionRun run, List<Result> results, Timings timings, int trials) {
		StringBuilder out = new StringBuilder();
		run.open(out, "scaled timings, few trials");
		out.append("- Timings ")
			.append(timings)
			.append(" (lease duration / renew deadline / retry period")
			.append(timings.equals(Timings.DEFAULT) ? ", client-go's defaults, as in the tables above" : "")
			.append(") for both modes; ")
			.append(trials)
			.append(" trials per scenario and mode; percentiles by nearest rank (p95 of 20 values is the 19th).\n");
		out.append("- Three replicas per election (a leader and two followers), each in a Pod of its own; for-life ")
			.append("and lease mode side by side in the same run.\n");
		out.append("- Ratios are for-life ÷ lease mode: below 1 means for-life took over sooner.\n\n");
		out.append("| scenario: takeover, from → a follower's gate open | for-life | lease mode | for-life ÷ lease |\n");
		out.append("|---|---|---|---|\n");
		for (Scenario scenario : Scenario.values()) {
			Result forLife = find(results, scenario, true);
			Result lease = find(results, scenario, false);
			if (forLife == null && lease == null) {
				continue;
			}
			String label = scenario.title + ": " + scenario.from + " → gate open"
					+ ((count(forLife) == trials && count(lease) == trials) ? ""
							: " (n=" + count(forLife) + ", " + count(lease) + ")");
			row(out, label + ", p50", forLife, lease, (stats) -> stats.percentile(50));
			row(out, label + ", p95", forLife, lease, (stats) -> stats.percentile(95));
			row(out, label + ", max", forLife, lease, Stats::max);
			row(out, label + ", min", forLife, lease, Stats::min);
		}
		out.append('\n');
		List<String> notes = new ArrayList<>();
		for (Result result : results) {
			String mode = result.forLife() ? "for-life" : "lease mode";
			String where = result.scenario().key + ", " + mode;
			if (!result.fromLockDeletion().isEmpty()) {
				Stats stats = new Stats(result.fromLockDeletion());
				notes.add(where + ": from the garbage collector's deletion of the lock to the gate opening: p50 "
						+ Figures.duration(stats.percentile(50)) + ", max " + Figures.duration(stats.max()) + " (n="
						+ stats.count() + ((stats.count() < result.takeovers().size()) ? " of "
								+ result.takeovers().size() + "; in the others a follower had replaced the lock first"
								: "")
						+ ")");
			}
			if (!result.gaps().isEmpty()) {
				Stats stats = new Stats(result.gaps());
				notes.add(where + ": old gate closed → new gate open, min " + Figures.duration(stats.min())
						+ ((stats.min() < 0) ? " (**both open at once**)" : "") + ", p50 "
						+ Figures.duration(stats.percentile(50)));
			}
			if (!result.exitToScenario().isEmpty()) {
				notes.add(where + ": the leader's exit (`stop(false)`, threads and client closed"
						+ ((result.scenario() == Scenario.EVICTED) ? ", then the read of its Pod" : "")
						+ ") began at most " + Figures.duration(new Stats(result.exitToScenario()).max())
						+ " before the measured moment");
			}
			if (!result.staleViews().isEmpty()) {
				notes.add(where + ": in " + result.staleViews().size() + " of " + result.takeovers().size()
						+ " trials a follower's status did not name the leader as holder when the trial began (it "
						+ "took part all the same); the first: " + result.staleViews().get(0));
			}
			for (String problem : result.problems()) {
				notes.add(where + ": **" + problem + "**");
			}
		}
		for (String note : notes) {
			out.append("- ").append(note).append('\n');
		}
		out.append("\nHow it is measured:\n\n");
		out.append("""
				- Each election has three replicas, a leader and two followers, each this project's \
				`ElectionEngine` as the auto-configuration builds it (its own `LeaderElectionThreads`, its \
				own fabric8 client with fabric8's defaults), in a Pod of its own that the harness creates \
				(phase Running) before the engine starts; for-life with \
				`ElectionSettings.forLife(new ForLife(podName, null))`, lease mode with the Pod name as \
				identity. All in the harness's JVM, on fabric8's CRUD mock server (`KubernetesMockServer` \
				7.3.1) on 127.0.0.1, which here also answers a deletion whose preconditions (uid, \
				resourceVersion) do not hold with 409, as the API server does (the CRUD dispatcher alone \
				ignores them, and for-life's followers and releasing leader rely on them). The for-life and \
				lease-mode elections of a scenario run at the same time, on separate Leases and Pods.
				- Each trial: every follower has opened its watch and heard from the server since (lease \
				mode: a renewal through the watch; for-life, where the lock never changes: the read of the \
				owner Pod its loop sends once the watch is open), and its status names the leader as holder \
				(waited for up to two retry periods and a second; a follower whose status does not is noted \
				below and takes part all the same); then a pause drawn uniformly from [0, 2.2 retry periods), the same sequence for both modes; then \
				the scenario. The first follower whose gate opens (`ElectionListener.granted`'s \
				gateOpenedAt, on the engine's clock, `System.nanoTime()`) ends the trial and leads the \
				next; a new replica in a new Pod joins as the second follower.
				- Graceful: the leader's `engine.stop(true)`, as on SIGTERM with release-on-shutdown (lease \
				mode: the release is written; for-life: the release is written, then the lock deleted), \
				then, once it returned, its Pod deleted and its Leases collected. Measured from the call \
				to `stop`: a follower takes over on the release, before the Pod is deleted.
				- Crash: the leader's process is gone, as a killed process or a force-deleted Pod leaves it: \
				`engine.stop(false)`, then its threads and client closed (nothing released, nothing more \
				sent, connections closed); then its Pod deleted and, as soon as that deletion is answered, \
				the harness plays the garbage collector: it lists the Leases and deletes each one owned by \
				that Pod's uid, with the uid as precondition. Measured from the Pod's deletion being sent. \
				Kubernetes' garbage collector deletes the lock only once it has learnt of the Pod's \
				deletion, a delay not measured here: for-life's figure lacks it; lease mode does not depend \
				on it.
				- Evicted: the process gone as in a crash, then the Pod's phase written as Failed, the Pod \
				kept (no deletion, no garbage collection: an evicted Pod stays in the API). Measured from \
				the phase's write being sent. Lease mode waits for expiry as after a crash; for-life \
				followers see the phase when they next read the owner Pod (every retry period, plus up to \
				20% jitter), then delete the lock with preconditions and create their own.
				- The harness's code: `PodDeletionTakeovers` and `PodReplica` in `benchmarks/`. Arguments: \
				`trials=`, `timings=`, `only=graceful,crash,evicted`; `quick` for a short trial (scaled \
				timings, 3 trials, written to benchmarks/target/pod-deletion-takeovers-quick.md). The section \
				is written into the file named by `-Dbenchmarks.output` (docs/benchmarks.md by default) in \
				place of its earlier version; the full benchmark run keeps it.
				""");
		return out.toString();
	}

	private static Result find(List<Result> results, Scenario scenario, boolean forLife) {
		return results.stream()
			.filter((result) -> result.scenario() == scenario && result.forLife() == forLife)
			.findFirst()
			.orElse(null);
	}

	private static int count(Result result) {
		return (result != null) ? result.takeovers().size() : 0;
	}

	private static void row(StringBuilder out, String label, Result forLife, Result lease,
			Function<Stats, Long> measure) {
		Long ours = (forLife != null && !forLife.takeovers().isEmpty()) ? measure.apply(new Stats(forLife.takeovers()))
				: null;
		Long theirs = (lease != null && !lease.takeovers().isEmpty()) ? measure.apply(new Stats(lease.takeovers()))
				: null;
		out.append("| ")
			.append(label)
			.append(" | ")
			.append((ours != null) ? Figures.duration(ours) : "–")
			.append(" | ")
			.append((theirs != null) ? Figures.duration(theirs) : "–")
			.append(" | ")
			.append((ours != null && theirs != null) ? Figures.ratio(ours, theirs) : "–")
			.append(" |\n");
	}

	// ---- Kubernetes, as far as these scenarios need it

	/** Creates, changes and deletes Pods, and collects the Leases a deleted Pod owned. */
	private static final class Kubernetes implements AutoCloseable {

		private final KubernetesClient client;

		private final Map<String, String> uids = new ConcurrentHashMap<>();

		Kubernetes(ApiServer server) {
			this.client = OurImplementation.client(server.port(), "kubernetes");
		}

		void runPod(String name) {
			Pod pod = this.client.pods()
				.inNamespace(ApiServer.NAMESPACE)
				.resource(new PodBuilder().withNewMetadata()
					.withName(name)
					.withNamespace(ApiServer.NAMESPACE)
					.endMetadata()
					.withNewStatus()
					.withPhase("Running")
					.endStatus()
					.build())
				.create();
			this.uids.put(name, pod.getMetadata().getUid());
		}

		Pod pod(String name) {
			return this.client.pods().inNamespace(ApiServer.NAMESPACE).withName(name).get();
		}

		void update(Pod pod) {
			this.client.pods().inNamespace(ApiServer.NAMESPACE).resource(pod).update();
		}

		/**
		 * Deletes the Pod, then, as the garbage collector, each Lease it owned, with the Lease's
		 * uid as precondition.
		 * @return when the deletion of its lock was sent; -1 when it owned none
		 */
		long deletePodAndCollect(String name) {
			String uid = this.uids.remove(name);
			this.client.pods().inNamespace(ApiServer.NAMESPACE).withName(name).delete();
			long lockDeletedAt = -1;
			for (Lease lease : this.client.leases().inNamespace(ApiServer.NAMESPACE).list().getItems()) {
				if (lease.getMetadata().getOwnerReferences() != null && lease.getMetadata()
					.getOwnerReferences()
					.stream()
					.anyMatch((owner) -> Objects.equals(uid, owner.getUid()))) {
					lockDeletedAt = System.nanoTime();
					delete(lease);
				}
			}
			return lockDeletedAt;
		}

		private void delete(Lease lease) {
			DeleteOptions options = new DeleteOptionsBuilder().withApiVersion("v1")
				.withKind("DeleteOptions")
				.withPropagationPolicy("Background")
				.withNewPreconditions()
				.withUid(lease.getMetadata().getUid())
				.endPreconditions()
				.build();
			String master = this.client.getMasterUrl().toString();
			String uri = (master.endsWith("/") ? master : master + "/") + "apis/coordination.k8s.io/v1/namespaces/"
					+ ApiServer.NAMESPACE + "/leases/" + lease.getMetadata().getName();
			HttpClient http = this.client.getHttpClient();
			HttpRequest request = http.newHttpRequestBuilder()
				.uri(uri)
				.delete("application/json", this.client.getKubernetesSerialization().asJson(options))
				.build();
			try {
				HttpResponse<String> response = http.sendAsync(request, String.class).get(10, TimeUnit.SECONDS);
				// 409: replaced by a follower since the listing; 404: deleted meanwhile
				if (response.code() != 200 && response.code() != 202 && response.code() != 404
						&& response.code() != 409) {
					throw new IllegalStateException("the garbage collector's deletion of "
							+ lease.getMetadata().getName() + " got " + response.code() + ": " + response.body());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new IllegalStateException("the garbage collector's deletion failed", ex);
			}
		}

		@Override
		public void close() {
			this.client.close();
		}

	}

}
