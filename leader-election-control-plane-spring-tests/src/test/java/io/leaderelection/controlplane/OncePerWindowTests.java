package io.leaderelection.controlplane;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.shedlock.ElectionLockCounts;
import io.leaderelection.autoconfigure.window.CurrentRun;
import io.leaderelection.autoconfigure.window.WindowedStarts.Outcome;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Once-per-window jobs on the real control plane (docs/once-per-window.md), three replicas, each a
 * Spring context with its own client as a ServiceAccount bound to the Role of docs/operations.md,
 * each with its own timer calling the job every second on its own phase: a
 * {@code @LeaderOnly(atMostEvery)} method, and a {@code @SchedulerLock} job on the starter's
 * ShedLock provider. Across a step-down and a shutdown of the leader, at most one start per window
 * is recorded in the Lease, each by the leader under its term, and the job ran only where a start
 * was recorded; no two gates were open at once, and the API server refused nothing.
 */
class OncePerWindowTests {

	private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(30);

	/** The jobs' window, a little shorter than their timers' period of a second, as the docs advise. */
	private static final Duration WINDOW = Duration.ofMillis(900);

	/**
	 * How far two recorded starts' wall-clock times may be off the monotonic times the engines
	 * counted the window from: each replica turns one into the other at its own moment.
	 */
	private static final Duration CLOCK_SLACK = Duration.ofMillis(10);

	private static final String LEASE = "jobs-leader";

	private final ControlPlane controlPlane = ControlPlane.shared();

	private final Terms terms = new Terms("default");

	private final Runs runs = new Runs();

	private final List<SpringReplica> replicas = new ArrayList<>();

	private TestNamespace namespace;

	private TestNamespace.ServiceAccount account;

	private LeaseStarts recorded;

	@BeforeEach
	void createNamespace() {
		this.namespace = this.controlPlane.namespace("once-per-window");
		this.account = this.namespace.serviceAccount("elector", DocumentedRoles.rules(DocumentedRoles.LEASES));
		this.recorded = LeaseStarts.watch(this.controlPlane, this.namespace.name(), LEASE);
	}

	@AfterEach
	void stop() {
		this.replicas.forEach(SpringReplica::close);
		this.recorded.close();
		this.namespace.close();
	}

	@Test
	void anAtMostEveryJobStartsOncePerWindowUnderTheLeadersTermAcrossAStepDownAndAShutdown() {
		startReplicas(WindowedJob.class);
		handOverTwiceWhileTheJobRuns("windowedJob.publish");

		List<Run> all = this.runs.all();
		List<LeaseStarts.Start> starts = this.recorded.starts("windowedJob.publish");
		assertOncePerWindowUnderTheTerms(all, starts);
	}

	@Test
	void shedLockGrantsEachLockOnlyToTheLeaderOncePerRunAcrossAStepDownAndAShutdown() {
		startReplicas(LockedJob.class);
		Map<String, ElectionLockCounts> counts = new LinkedHashMap<>();
		this.replicas.forEach((replica) -> counts.put(replica.identity(), replica.bean(ElectionLockCounts.class)));
		handOverTwiceWhileTheJobRuns("report");

		List<Run> all = this.runs.all();
		List<LeaseStarts.Start> starts = this.recorded.starts("report");
		assertOncePerWindowUnderTheTerms(all, starts);
		assertThat(all).as("runs in which ShedLock's LockAssert found the lock held").allMatch(Run::locked);
		// one lock taken per run, across the replicas: each granted lock is one recorded start
		long granted = counts.values().stream().mapToLong((count) -> count.count("default", Outcome.STARTED)).sum();
		assertThat(granted).as("locks granted on all replicas, against %d runs and %d starts recorded", all.size(),
				starts.size())
			.isEqualTo(all.size());
		counts.forEach((replica, count) -> {
			long leaderTerms = this.terms.all().stream().filter((term) -> term.replica.equals(replica)).count();
			if (leaderTerms == 0) {
				assertThat(count.count("default", Outcome.STARTED)).as("locks granted to %s, which never led", replica)
					.isZero();
			}
			assertThat(count.count("default", Outcome.NOT_LEADER) + count.count("default", Outcome.STARTED))
				.as("locks %s asked for", replica)
				.isPositive();
		});
		assertThat(counts.values().stream().mapToLong((count) -> count.count("default", Outcome.NOT_LEADER)).sum())
			.as("locks the followers' timers asked for, refused without a request")
			.isPositive();
	}

	private void startReplicas(Class<?> job) {
		for (int i = 1; i <= 3; i++) {
			this.replicas.add(SpringReplica.start("replica-" + i, this.account.config(this.controlPlane.apiServer()),
					this.namespace.name(), Map.of("leader.election.lease-name", LEASE),
					List.of(this.terms.recorderFor("replica-" + i), this.runs), job));
		}
	}

	/**
	 * While the job runs on every replica's timer: three runs on the first leader, a step-down,
	 * three on the next, a shutdown of it, three on the last.
	 */
	private void handOverTwiceWhileTheJobRuns(String job) {
		SpringReplica first = awaitLeader(null);
		awaitRuns(first, 3);
		first.elector().stepDown(LeaderElector.DEFAULT_ELECTION);
		SpringReplica second = awaitLeader(first);
		awaitRuns(second, 3);
		second.close();
		this.replicas.remove(second);
		SpringReplica third = awaitLeader(second);
		awaitRuns(third, 3);
		// the Lease's versions up to now are in: the last run's start was recorded before it ran
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> this.recorded.starts(job).size() >= this.runs.all().size());
		this.replicas.forEach(SpringReplica::close);
		this.replicas.clear();
		System.out.printf("once per window on the real control plane, %s: %d runs by %s, %d starts recorded%n", job,
				this.runs.all().size(), List.of(first, second, third), this.recorded.starts(job).size());
	}

	private void assertOncePerWindowUnderTheTerms(List<Run> all, List<LeaseStarts.Start> starts) {
		this.terms.assertSafe();
		List<Terms.Term> terms = this.terms.all();
		assertThat(terms).as("terms").hasSizeGreaterThanOrEqualTo(3);
		// every run: under a term of its replica, with that term's token, begun after its gate opened
		// and before any later term's gate opened (a step-down closes the gate, then drains the run)
		for (Run run : all) {
			Terms.Term term = terms.stream()
				.filter((candidate) -> candidate.replica.equals(run.replica())
						&& run.fencingToken().equals(OptionalLong.of(candidate.fencingToken)))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no term of " + run + " in " + terms));
			assertThat(run.at()).as("start of %s, in term %s of %s", run, term, terms)
				.isGreaterThanOrEqualTo(term.openedAt);
			assertThat(terms).as("terms begun after %s's term and before it ran", run)
				.noneMatch((later) -> later.openedAt > term.openedAt && later.openedAt <= run.at());
		}
		// every start the Lease recorded: written by its holder, with its term's token
		for (LeaseStarts.Start start : starts) {
			assertThat(start.holder()).as("holder of the version that recorded %s", start).isEqualTo(start.startedBy());
			assertThat(terms).as("the term of %s", start)
				.anyMatch((term) -> term.replica.equals(start.startedBy()) && term.fencingToken == start.fencingToken());
		}
		// no run without its start recorded (a start recorded may go unrun: its gate closed before)
		Map<String, Long> runsPerTerm = countBy(all, (run) -> run.replica() + "#" + run.fencingToken().getAsLong());
		Map<String, Long> startsPerTerm = countBy(starts, (start) -> start.startedBy() + "#" + start.fencingToken());
		runsPerTerm.forEach((term, count) -> assertThat(startsPerTerm.getOrDefault(term, 0L))
			.as("starts recorded in term %s, which ran %d times", term, count)
			.isGreaterThanOrEqualTo(count));
		// at most one start per window across the replicas, handovers included
		List<LeaseStarts.Start> ordered = starts.stream().sorted(Comparator.comparing(LeaseStarts.Start::startedAt)).toList();
		List<String> gaps = new ArrayList<>();
		for (int i = 1; i < ordered.size(); i++) {
			gaps.add(Duration.between(ordered.get(i - 1).startedAt(), ordered.get(i).startedAt()).toMillis()
					+ (ordered.get(i).startedBy().equals(ordered.get(i - 1).startedBy()) ? "" : " (handover)"));
		}
		System.out.printf("once per window on the real control plane, ms between recorded starts: %s%n", gaps);
		for (int i = 1; i < ordered.size(); i++) {
			assertThat(Duration.between(ordered.get(i - 1).startedAt(), ordered.get(i).startedAt()))
				.as("between recorded starts %s and %s", ordered.get(i - 1), ordered.get(i))
				.isGreaterThanOrEqualTo(WINDOW.minus(CLOCK_SLACK));
		}
		assertThat(runsPerTerm).as("terms that ran the job").hasSizeGreaterThanOrEqualTo(3);
		this.namespace.assertNothingRefused();
	}

	private SpringReplica awaitLeader(SpringReplica other) {
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> this.replicas.stream()
				.anyMatch((replica) -> replica != other && replica.isLeader(LeaderElector.DEFAULT_ELECTION)));
		return this.replicas.stream()
			.filter((replica) -> replica != other && replica.isLeader(LeaderElector.DEFAULT_ELECTION))
			.findFirst()
			.orElseThrow();
	}

	/** Until the leader has run the job the given number of times in its current term. */
	private void awaitRuns(SpringReplica leader, int count) {
		OptionalLong term = OptionalLong.of(leader.elector().status(LeaderElector.DEFAULT_ELECTION).fencingToken());
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> this.runs.all()
				.stream()
				.filter((run) -> run.replica().equals(leader.identity()) && run.fencingToken().equals(term))
				.count() >= count);
	}

	private static <T> Map<String, Long> countBy(List<T> items, Function<T, String> key) {
		Map<String, Long> counts = new LinkedHashMap<>();
		items.forEach((item) -> counts.merge(key.apply(item), 1L, Long::sum));
		return counts;
	}

	/** One run of a job's body: where, under which token, when on the JVM's monotonic clock. */
	record Run(String replica, OptionalLong fencingToken, long at, boolean locked) {

		@Override
		public String toString() {
			return this.replica + "#" + this.fencingToken + "@" + this.at;
		}

	}

	/** The runs of every replica's job, shared by the replicas' contexts. */
	static final class Runs {

		private final List<Run> runs = new CopyOnWriteArrayList<>();

		void ran(String replica, boolean locked) {
			this.runs.add(new Run(replica, CurrentRun.fencingToken(), System.nanoTime(), locked));
		}

		List<Run> all() {
			return List.copyOf(this.runs);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class WindowedJob {

		@Bean
		Publisher windowedJob(LeaderElector elector, Runs runs) {
			return new Publisher(elector, runs);
		}

	}

	static class Publisher {

		private final LeaderElector elector;

		private final Runs runs;

		Publisher(LeaderElector elector, Runs runs) {
			this.elector = elector;
			this.runs = runs;
		}

		@Scheduled(fixedRate = 1000)
		@LeaderOnly(atMostEvery = "900ms")
		public void publish() {
			this.runs.ran(this.elector.identity(), false);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "PT10S")
	static class LockedJob {

		@Bean
		Reports lockedJob(LeaderElector elector, Runs runs) {
			return new Reports(elector, runs);
		}

	}

	static class Reports {

		private final LeaderElector elector;

		private final Runs runs;

		Reports(LeaderElector elector, Runs runs) {
			this.elector = elector;
			this.runs = runs;
		}

		@Scheduled(fixedRate = 1000)
		@SchedulerLock(name = "report", lockAtLeastFor = "PT0.9S", lockAtMostFor = "PT10S")
		public void report() {
			boolean locked;
			try {
				LockAssert.assertLocked();
				locked = true;
			}
			catch (IllegalStateException ex) {
				locked = false;
			}
			this.runs.ran(this.elector.identity(), locked);
		}

	}

	/**
	 * Every start of a job that the election's Lease recorded (its annotation
	 * {@code leaderelection.io/windows}), from every version an administrator's watch of the Lease
	 * delivered, with the holder of the version that first recorded it.
	 */
	static final class LeaseStarts implements Watcher<Lease>, AutoCloseable {

		private static final ObjectMapper JSON = new ObjectMapper();

		private final List<Start> starts = new CopyOnWriteArrayList<>();

		private Watch watch;

		static LeaseStarts watch(ControlPlane controlPlane, String namespace, String lease) {
			LeaseStarts starts = new LeaseStarts();
			starts.watch = controlPlane.admin().leases().inNamespace(namespace).withName(lease).watch(starts);
			return starts;
		}

		@Override
		public void eventReceived(Action action, Lease lease) {
			if (action == Action.DELETED || lease.getMetadata().getAnnotations() == null) {
				return;
			}
			String windows = lease.getMetadata().getAnnotations().get("leaderelection.io/windows");
			if (windows == null) {
				return;
			}
			try {
				JSON.readTree(windows).fields().forEachRemaining((job) -> {
					JsonNode fields = job.getValue();
					Start start = new Start(job.getKey(), fields.path("startedBy").asText(),
							fields.path("fencingToken").asLong(), Instant.parse(fields.path("startedAt").asText()),
							lease.getSpec().getHolderIdentity(), lease.getMetadata().getResourceVersion());
					synchronized (this.starts) {
						if (this.starts.stream().noneMatch(start::same)) {
							this.starts.add(start);
						}
					}
				});
			}
			catch (Exception ex) {
				throw new IllegalStateException("annotation of " + lease.getMetadata().getName() + ": " + windows, ex);
			}
		}

		@Override
		public void onClose(WatcherException cause) {
		}

		List<Start> starts(String job) {
			return this.starts.stream().filter((start) -> start.job().equals(job)).toList();
		}

		@Override
		public void close() {
			this.watch.close();
		}

		record Start(String job, String startedBy, long fencingToken, Instant startedAt, String holder,
				String resourceVersion) {

			boolean same(Start other) {
				return this.job.equals(other.job) && this.startedBy.equals(other.startedBy)
						&& this.fencingToken == other.fencingToken && this.startedAt.equals(other.startedAt);
			}

			@Override
			public String toString() {
				return this.job + " by " + this.startedBy + "#" + this.fencingToken + " at " + this.startedAt
						+ " (version " + this.resourceVersion + " held by " + this.holder + ")";
			}

		}

	}

}
