package io.leaderelection.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;

import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @LeaderOnly} across replicas on the CRUD mock API server: a scheduled job over many
 * handovers, a gated lifecycle bean through a network cut, and shutdown draining.
 */
class LeaderOnlyIntegrationTests {

	private static final Activity activity = new Activity();

	private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(10);

	private final GateHistory history = new GateHistory();

	private final List<Replica> replicas = new ArrayList<>();

	/**
	 * A thread for every call and close the tests start at once: on a small machine the common
	 * pool has one worker (on JDK 25 CompletableFuture uses it even then), so a close queued
	 * behind a held call would not start until the call ended.
	 */
	private final ExecutorService threads = Executors.newCachedThreadPool();

	private CrudApiServer server;

	private NioReactor reactor;

	@BeforeEach
	void start() throws Exception {
		activity.clear();
		this.server = CrudApiServer.start();
		this.reactor = new NioReactor();
	}

	@AfterEach
	void stop() {
		HeldWork.release.countDown();
		this.threads.shutdown();
		this.replicas.forEach(Replica::close);
		this.reactor.close();
		this.server.close();
	}

	@Test
	void aScheduledJobRunsOnlyOnTheLeaderOverManyHandovers() {
		for (int i = 1; i <= 3; i++) {
			startReplica("job-" + i, Map.of(), ScheduledJob.class);
		}
		int handovers = 0;
		int restarts = 0;
		while (handovers < 22) {
			Replica leader = awaitLeader();
			long term = leader.elector().status("default").fencingToken();
			await().atMost(ELECTION_TIMEOUT).until(() -> activity.ranSince(leader.name(), term));
			if (handovers % 5 == 4) {
				leader.close();
				this.replicas.remove(leader);
				startReplica("job-restarted-" + ++restarts, Map.of(), ScheduledJob.class);
			}
			else {
				leader.elector().stepDown("default");
			}
			await().atMost(ELECTION_TIMEOUT).until(() -> {
				List<Replica> leaders = leaders();
				return leaders.size() == 1 && leaders.get(0).elector().status("default").fencingToken() != term;
			});
			handovers++;
		}
		Replica last = awaitLeader();
		long lastTerm = last.elector().status("default").fencingToken();
		await().atMost(ELECTION_TIMEOUT).until(() -> activity.ranSince(last.name(), lastTerm));
		this.replicas.forEach(Replica::close);
		this.replicas.clear();
		this.history.assertNoOverlap("default");
		List<Activity.Run> runs = activity.runs();
		assertThat(runs).hasSizeGreaterThan(22);
		for (Activity.Run run : runs) {
			// a call admitted while the gate was open may reach the body just after the gate closed:
			// its term's interval began before it, and no other replica's gate opened until it ended;
			// such a body finds no fencing token to record (UNKNOWN_TERM)
			assertThat(this.history.intervals()).as("%s began in its term's gate interval", run)
				.anyMatch((gate) -> gate.replica.equals(run.replica())
						&& (gate.fencingToken == run.term() || run.term() == Activity.UNKNOWN_TERM)
						&& gate.openedAt <= run.startedAt() && gate.closedAt != null);
			assertThat(this.history.intervals()).as("gates another replica opened while %s ran", run)
				.noneMatch((gate) -> !gate.replica.equals(run.replica()) && gate.openedAt >= run.startedAt()
						&& gate.openedAt < run.endedAt());
		}
		assertNoTwoReplicasRanAtOnce(runs);
		long termsWithRuns = runs.stream()
			.map(Activity.Run::term)
			.filter((term) -> term != Activity.UNKNOWN_TERM)
			.distinct()
			.count();
		assertThat(termsWithRuns).as("terms in which the job ran").isGreaterThanOrEqualTo(23);
	}

	@Test
	void aGatedLifecycleBeanFollowsLeadershipThroughANetworkCut() {
		for (int i = 1; i <= 3; i++) {
			startReplica("poller-" + i, Map.of(), GatedPoller.class);
		}
		Replica leader = awaitLeader();
		await().atMost(ELECTION_TIMEOUT).until(() -> poller(leader).isRunning());
		this.replicas.stream()
			.filter((replica) -> replica != leader)
			.forEach((follower) -> assertThat(poller(follower).isRunning()).isFalse());
		leader.blackHole();
		await().atMost(ELECTION_TIMEOUT).until(() -> leaders().size() == 1 && leaders().get(0) != leader);
		Replica successor = leaders().get(0);
		await().atMost(ELECTION_TIMEOUT).until(() -> poller(successor).isRunning());
		assertThat(poller(leader).isRunning()).isFalse();
		// Only the old leader's bean has stopped (more than once if a slow machine cost it a renewal
		// before the cut), and it had stopped before the successor's started.
		List<Activity.Run> stopped = activity.runs();
		assertThat(stopped).isNotEmpty().extracting(Activity.Run::replica).containsOnly(leader.name());
		long lastStop = stopped.stream().mapToLong(Activity.Run::endedAt).max().orElseThrow();
		assertThat(poller(successor).startedAt()).as("the successor's start").isGreaterThan(lastStop);
		leader.restoreNetwork();
		await().atMost(ELECTION_TIMEOUT)
			.untilAsserted(() -> assertThat(leader.elector().status("default").holderIdentity())
				.isEqualTo(successor.name()));
		assertThat(poller(leader).isRunning()).isFalse();
		assertThat(poller(successor).isRunning()).isTrue();
	}

	@Test
	void aCallStillRunningAtShutdownDelaysTheReleaseAndTheSuccessorRunsItOnlyAfterwards() throws Exception {
		HeldWork.reset();
		Replica first = startReplica("drain-1", Map.of(), HeldWork.class);
		Replica second = startReplica("drain-2", Map.of(), HeldWork.class);
		Replica leader = awaitLeader();
		Replica successor = (leader == first) ? second : first;
		HeldWork leaderWork = leader.context().getBean(HeldWork.class);
		LeaderOnlyInvocations leaderCounts = leader.context().getBean(LeaderOnlyInvocations.class);
		CompletableFuture<String> call = CompletableFuture.supplyAsync(leaderWork::hold, this.threads);
		assertThat(HeldWork.entered.await(5, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(leader::close, this.threads);
		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> !closing.isDone()
				&& !successor.isLeader() && leader.name().equals(successor.elector().status("default").holderIdentity()));
		assertThat(leaderWork.quick()).as("a new call while draining").isNull();
		assertThat(leaderCounts.count("default", Outcome.REFUSED)).isEqualTo(1);
		HeldWork.release.countDown();
		assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo(leader.name());
		closing.get(10, TimeUnit.SECONDS);
		this.replicas.remove(leader);
		await().atMost(ELECTION_TIMEOUT).until(successor::isLeader);
		assertThat(successor.context().getBean(HeldWork.class).hold()).isEqualTo(successor.name());
		List<Activity.Run> runs = activity.runs();
		assertThat(runs).extracting(Activity.Run::replica).containsExactly(leader.name(), successor.name());
		assertNoTwoReplicasRanAtOnce(runs);
	}

	@Test
	void shutdownWaitsForACallThatNeverEndsOnlyAsLongAsTheLifecycleTimeoutAllows() throws Exception {
		HeldWork.reset();
		Map<String, Object> shortShutdown = Map.of("spring.lifecycle.timeout-per-shutdown-phase", "3s");
		Replica first = startReplica("stuck-1", shortShutdown, HeldWork.class);
		Replica second = startReplica("stuck-2", shortShutdown, HeldWork.class);
		Replica leader = awaitLeader();
		Replica successor = (leader == first) ? second : first;
		CompletableFuture.supplyAsync(leader.context().getBean(HeldWork.class)::hold, this.threads);
		assertThat(HeldWork.entered.await(5, TimeUnit.SECONDS)).isTrue();
		long closingAt = System.nanoTime();
		leader.close();
		long closedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closingAt);
		this.replicas.remove(leader);
		// The drain budget is the 3s phase less the 1s renew deadline kept for the release.
		assertThat(closedAfter).isBetween(1_900L, 3_500L);
		await().atMost(ELECTION_TIMEOUT).until(successor::isLeader);
	}

	private static void assertNoTwoReplicasRanAtOnce(List<Activity.Run> runs) {
		List<Activity.Run> sorted = runs.stream().sorted(Comparator.comparingLong(Activity.Run::startedAt)).toList();
		for (int i = 1; i < sorted.size(); i++) {
			Activity.Run previous = sorted.get(i - 1);
			Activity.Run next = sorted.get(i);
			if (!previous.replica().equals(next.replica())) {
				assertThat(next.startedAt()).as("%s started before %s ended", next, previous)
					.isGreaterThan(previous.endedAt());
			}
		}
	}

	private static GatedPoller poller(Replica replica) {
		return replica.context().getBean(GatedPoller.class);
	}

	private Replica startReplica(String name, Map<String, Object> properties, Class<?> configuration) {
		Replica replica = Replica.start(name, this.server, this.reactor, this.history, properties, configuration);
		this.replicas.add(replica);
		return replica;
	}

	private Replica awaitLeader() {
		await().atMost(ELECTION_TIMEOUT).until(() -> leaders().size() == 1);
		return leaders().get(0);
	}

	private List<Replica> leaders() {
		List<Replica> leaders = this.replicas.stream().filter(Replica::isLeader).toList();
		assertThat(leaders).as("replicas whose gate is open").hasSizeLessThanOrEqualTo(1);
		return leaders;
	}

	/** What ran where and when, across every replica of a test. */
	static final class Activity {

		/** The term of a run whose body found the gate closed already: admitted just before it closed. */
		static final long UNKNOWN_TERM = -1;

		private final List<Run> runs = new ArrayList<>();

		synchronized void record(String replica, long term, long startedAt, long endedAt) {
			this.runs.add(new Run(replica, term, startedAt, endedAt));
		}

		synchronized boolean ranSince(String replica, long term) {
			return this.runs.stream().anyMatch((run) -> run.replica.equals(replica) && run.term == term);
		}

		synchronized List<Run> runs() {
			return List.copyOf(this.runs);
		}

		synchronized void clear() {
			this.runs.clear();
		}

		record Run(String replica, long term, long startedAt, long endedAt) {
		}

	}

	/** A job every replica schedules and only the leader runs. */
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class ScheduledJob {

		private final LeaderElector elector;

		ScheduledJob(LeaderElector elector) {
			this.elector = elector;
		}

		@Scheduled(fixedRate = 50)
		@LeaderOnly
		public void run() {
			long startedAt = System.nanoTime();
			Long term = this.elector.status("default").fencingToken();
			activity.record(this.elector.identity(), (term != null) ? term : Activity.UNKNOWN_TERM, startedAt,
					System.nanoTime());
		}

	}

	/** Stands for a message listener container or a poller. */
	@Configuration(proxyBeanMethods = false)
	@LeaderOnly
	static class GatedPoller implements SmartLifecycle {

		private final LeaderElector elector;

		private volatile boolean running;

		private volatile long startedAt;

		GatedPoller(LeaderElector elector) {
			this.elector = elector;
		}

		@Override
		public void start() {
			this.startedAt = System.nanoTime();
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			activity.record(this.elector.identity(), 0, this.startedAt, System.nanoTime());
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		public long startedAt() {
			return this.startedAt;
		}

	}

	/** Leader-only work the test holds open. */
	@Configuration(proxyBeanMethods = false)
	static class HeldWork {

		static volatile CountDownLatch entered = new CountDownLatch(1);

		static volatile CountDownLatch release = new CountDownLatch(1);

		private final LeaderElector elector;

		HeldWork(LeaderElector elector) {
			this.elector = elector;
		}

		static void reset() {
			entered = new CountDownLatch(1);
			release = new CountDownLatch(1);
		}

		@LeaderOnly
		public String hold() {
			long startedAt = System.nanoTime();
			entered.countDown();
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			activity.record(this.elector.identity(), 0, startedAt, System.nanoTime());
			return this.elector.identity();
		}

		@LeaderOnly
		public String quick() {
			return this.elector.identity();
		}

	}

}
