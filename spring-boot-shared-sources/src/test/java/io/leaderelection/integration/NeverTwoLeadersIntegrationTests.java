package io.leaderelection.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.actuate.WebReplica;
import io.leaderelection.actuate.health.LeaderElectionHealthIndicator;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.integration.GateHistory.Interval;
import io.leaderelection.integration.LeaderOnlyIntegrationTests.Activity;
import io.leaderelection.integration.LeaderOnlyIntegrationTests.Activity.Run;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.netcrusher.core.reactor.NioReactor;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The three ways to two leaders of issue 10, each reproduced with replicas that are Spring
 * contexts of their own (own client, identity and TCP proxy) on one CRUD mock API server, and
 * judged on recorded timelines: every gate-open interval ({@link GateHistory}) and every run of
 * a {@code @LeaderOnly} job ({@link Activity}), all on {@link System#nanoTime()}.
 * <ol>
 * <li>The Lease deleted under a leader whose traffic is black-holed: a follower, or a replica
 * started after the deletion, creates it again only after a lease duration, with a higher
 * fencing token.</li>
 * <li>A voluntary release ({@code stepDown}, {@code Context.yield()}, {@code DELETE
 * /actuator/leader/default}) while a {@code @LeaderOnly} job runs hands over only after the job
 * ended; a shutdown whose drain times out does not release at all.</li>
 * <li>Two replicas given one identity never lead at once, and the one kept out says so in its
 * health.</li>
 * </ol>
 * Written against the public API only ({@link LeaderElector}, {@code @LeaderOnly}, leader events,
 * the actuator), so that it compiles, and fails, on the code from before the fix as well.
 */
class NeverTwoLeadersIntegrationTests {

	private static final String ELECTION = LeaderElector.DEFAULT_ELECTION;

	/** The Lease of the default election: {@link Replica} names the application {@code it}. */
	private static final String LEASE_NAME = "it-leader";

	private static final Duration LEASE_DURATION = timing("leader.election.lease-duration");

	private static final Duration RETRY_PERIOD = timing("leader.election.retry-period");

	private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(10);

	/** What the scheduled leader-only jobs of every replica did, across the replicas of a test. */
	private static final Activity ticks = new Activity();

	/** The gates of every replica of the running test, web replicas included. */
	private static volatile GateHistory gates;

	/** Holds {@link LeaderJobs#heldJob()} until the test lets it end. */
	private static volatile CountDownLatch heldJobRelease;

	private final List<Replica> replicas = new ArrayList<>();

	private final List<WebReplica> webReplicas = new ArrayList<>();

	private final List<Replica> cutOff = new ArrayList<>();

	private CrudApiServer server;

	private NioReactor reactor;

	/** The test's own client, as {@code kubectl} would use it. */
	private KubernetesClient kubectl;

	@BeforeEach
	void startServer() throws Exception {
		ticks.clear();
		LeaderJobs.contexts.clear();
		gates = new GateHistory();
		heldJobRelease = new CountDownLatch(1);
		YieldOnFirstGrantWhileTheJobRuns.armed.set(false);
		YieldOnFirstGrantWhileTheJobRuns.yielder = null;
		this.server = CrudApiServer.start();
		this.reactor = new NioReactor();
		this.kubectl = this.server.client("kubectl");
	}

	@AfterEach
	void stopEverything() {
		heldJobRelease.countDown();
		this.cutOff.forEach(Replica::restoreNetwork);
		this.replicas.forEach(Replica::close);
		this.webReplicas.forEach(WebReplica::close);
		this.kubectl.close();
		this.reactor.close();
		this.server.close();
	}

	// ---- 1. the Lease deleted under a leader that is cut off

	/**
	 * {@code kubectl delete lease} while the leader is cut off from the API server: its gate stays
	 * open until its renew deadline, so a follower that created the Lease as soon as it saw it
	 * gone would lead beside it. Proves that the followers wait a lease duration after the
	 * deletion, that no two gates and no two replicas' jobs overlap, and that the new term's
	 * fencing token is above the cut-off leader's.
	 */
	@Test
	void aLeaseDeletedUnderACutOffLeaderIsCreatedAgainOnlyAfterALeaseDuration() {
		startReplica("deleted-1", Map.of(), LeaderJobs.class);
		startReplica("deleted-2", Map.of(), LeaderJobs.class);
		startReplica("deleted-3", Map.of(), LeaderJobs.class);
		Replica leader = awaitLeader();
		long leaderToken = leader.elector().status(ELECTION).fencingToken();
		await().atMost(ELECTION_TIMEOUT).until(() -> ticks.ranSince(leader.name(), leaderToken));
		// the followers know the leader, so they have a version to lose
		await().atMost(ELECTION_TIMEOUT).until(() -> this.replicas.stream()
			.allMatch((replica) -> leader.name().equals(replica.elector().status(ELECTION).holderIdentity())));

		cutOff(leader);
		long deletionSentAt = System.nanoTime();
		deleteLease();

		Replica successor = awaitLeaderOtherThan(leader);
		await().atMost(ELECTION_TIMEOUT).until(() -> ranAJob(successor.name(), deletionSentAt));
		Interval takeover = gateOpenedSince(successor.name(), deletionSentAt);
		System.out.printf("deletion under cut-off %s -> %s's gate: %d ms, token %d -> %d%n", leader, successor,
				millis(takeover.openedAt - deletionSentAt), leaderToken, takeover.fencingToken);
		SoftAssertions.assertSoftly((softly) -> {
			softly.check(() -> gates.assertNoOverlap(ELECTION));
			assertNoTwoReplicasRanAtOnce(softly, ticks.runs());
			softly.assertThat(Duration.ofNanos(takeover.openedAt - deletionSentAt))
				.as("time from the deletion to %s's gate opening", successor)
				.isGreaterThanOrEqualTo(LEASE_DURATION);
			softly.assertThat(takeover.fencingToken)
				.as("fencing token of %s after the deletion, against %s's %d", successor, leader, leaderToken)
				.isGreaterThan(leaderToken);
		});
	}

	/**
	 * A replica started after the Lease was deleted under a cut-off leader reads 404: it must wait
	 * a lease duration from its start, as if it had seen the Lease vanish, and its token must be
	 * above the cut-off leader's although it never saw the Lease that leader held.
	 */
	@Test
	void aReplicaStartedAfterTheDeletionWaitsALeaseDurationAndTakesAHigherToken() {
		Replica leader = startReplica("cut-off", Map.of(), LeaderJobs.class);
		await().atMost(ELECTION_TIMEOUT).until(leader::isLeader);
		long leaderToken = leader.elector().status(ELECTION).fencingToken();
		await().atMost(ELECTION_TIMEOUT).until(() -> ticks.ranSince(leader.name(), leaderToken));

		cutOff(leader);
		deleteLease();
		startReplica("late", Map.of(), LeaderJobs.class);
		long firstAskedAt = await().atMost(ELECTION_TIMEOUT)
			.until(() -> this.server.firstLeaseRequestAt("late"), Objects::nonNull);
		Replica late = this.replicas.get(this.replicas.size() - 1);

		await().atMost(ELECTION_TIMEOUT).until(late::isLeader);
		await().atMost(ELECTION_TIMEOUT).until(() -> ranAJob(late.name(), firstAskedAt));
		Interval takeover = gateOpenedSince(late.name(), firstAskedAt);
		System.out.printf("first request of the late replica -> its gate: %d ms, token %d -> %d%n",
				millis(takeover.openedAt - firstAskedAt), leaderToken, takeover.fencingToken);
		SoftAssertions.assertSoftly((softly) -> {
			softly.check(() -> gates.assertNoOverlap(ELECTION));
			assertNoTwoReplicasRanAtOnce(softly, ticks.runs());
			softly.assertThat(Duration.ofNanos(takeover.openedAt - firstAskedAt))
				.as("time from the late replica's first request about the Lease to its gate opening")
				.isGreaterThanOrEqualTo(LEASE_DURATION);
			softly.assertThat(takeover.fencingToken)
				.as("fencing token of the late replica, against the cut-off leader's %d", leaderToken)
				.isGreaterThan(leaderToken);
		});
	}

	// ---- 2. a voluntary release while a @LeaderOnly job runs

	/**
	 * {@code stepDown()} while a one-second {@code @LeaderOnly} job runs on the leader: the gate
	 * closes at once, but the Lease is released only when the job has ended, so the successor's
	 * gate, and its jobs, start only after the old leader's job ended.
	 */
	@Test
	void aStepDownDuringAJobHandsOverOnlyAfterTheJobEnded() {
		startReplica("step-1", Map.of(), LeaderJobs.class);
		startReplica("step-2", Map.of(), LeaderJobs.class);
		Replica leader = awaitLeader();
		LeaderJobs leaderJobs = jobs(leader);
		onItsOwnThread(leaderJobs::oneSecondJob);
		assertThat(leaderJobs.awaitLongJobEntered()).as("the one-second job started on the leader").isTrue();

		leader.elector().stepDown(ELECTION);

		Replica successor = awaitLeaderOtherThan(leader);
		assertHandedOverOnlyAfterTheJobEnded(leader.name(), leaderJobs, successor.name());
	}

	/**
	 * The same through Spring Integration's {@code Context.yield()}, called from an
	 * {@code OnGrantedEvent} listener that has just started the one-second job. Three replicas, so
	 * that once every one of them follows, the first leader steps down (and stays out) and the
	 * grant that yields has a third replica waiting to take over.
	 */
	@Test
	void aYieldFromAGrantListenerDuringAJobHandsOverOnlyAfterTheJobEnded() {
		startReplica("yield-1", Map.of(), LeaderJobs.class, YieldOnFirstGrantWhileTheJobRuns.class);
		startReplica("yield-2", Map.of(), LeaderJobs.class, YieldOnFirstGrantWhileTheJobRuns.class);
		startReplica("yield-3", Map.of(), LeaderJobs.class, YieldOnFirstGrantWhileTheJobRuns.class);
		Replica first = awaitLeader();
		await().atMost(ELECTION_TIMEOUT).until(() -> this.replicas.stream()
			.allMatch((replica) -> first.name().equals(replica.elector().status(ELECTION).holderIdentity())));
		YieldOnFirstGrantWhileTheJobRuns.armed.set(true);
		first.elector().stepDown(ELECTION);

		await("a grant that yields").atMost(ELECTION_TIMEOUT)
			.until(() -> YieldOnFirstGrantWhileTheJobRuns.yielder != null);
		Replica yielder = this.replicas.stream()
			.filter((replica) -> replica.name().equals(YieldOnFirstGrantWhileTheJobRuns.yielder))
			.findFirst()
			.orElseThrow();
		Replica successor = awaitLeaderOtherThan(yielder);
		assertHandedOverOnlyAfterTheJobEnded(yielder.name(), jobs(yielder), successor.name());
	}

	/**
	 * The same through {@code DELETE /actuator/leader/default} on a web replica: the answer says
	 * the release waits for the job, and names it; the Lease stays with the leader until the job
	 * ended, and only then does the successor take over.
	 */
	@Test
	void aStepDownThroughTheEndpointDuringAJobAnswersThatItWaitsAndHandsOverOnlyAfterTheJobEnded() {
		// The web replicas' timings (renew deadline 3s): a web context starting beside the leader
		// must not delay its renewals past the deadline, or the step-down would find no leader.
		Map<String, Object> web = new HashMap<>(WebReplica.TIMINGS);
		web.put("spring.application.name", "it");
		web.put("management.endpoint.leader.access", "unrestricted");
		web.put("spring.main.sources", LeaderJobs.class.getName() + "," + RecordGates.class.getName());
		WebReplica leader = WebReplica.start("web-leader", this.server.client("web-leader"), web);
		this.webReplicas.add(leader);
		await().atMost(ELECTION_TIMEOUT).until(() -> leader.elector().isLeader());
		Replica follower = startReplica("web-follower", WebReplica.TIMINGS, LeaderJobs.class);
		await().atMost(ELECTION_TIMEOUT)
			.until(() -> "web-leader".equals(follower.elector().status(ELECTION).holderIdentity()));
		LeaderJobs leaderJobs = LeaderJobs.of("web-leader");
		CompletableFuture<Void> job = onItsOwnThread(leaderJobs::heldJob);
		assertThat(leaderJobs.awaitLongJobEntered()).as("the held job started on the leader").isTrue();

		ResponseEntity<String> stepDown = leader.delete("/actuator/leader/" + ELECTION);

		JsonNode answer = WebReplica.parse(stepDown.getBody());
		String holderWhileTheJobRuns = lease().getSpec().getHolderIdentity();
		heldJobRelease.countDown();
		await().atMost(ELECTION_TIMEOUT).until(job::isDone);
		await().atMost(ELECTION_TIMEOUT).until(follower::isLeader);
		SoftAssertions.assertSoftly((softly) -> {
			softly.assertThat(stepDown.getStatusCode()).isEqualTo(HttpStatus.OK);
			softly.assertThat(answer.at("/leader").asBoolean()).as("leader in the answer").isFalse();
			softly.assertThat(answer.at("/release").asText()).as("release in the answer %s", answer)
				.isEqualTo("WAITING_FOR_CALLS");
			softly.assertThat(answer.at("/callsUnderWay").toString())
				.as("calls under way in the answer %s", answer)
				.isEqualTo("[\"LeaderJobs.heldJob() on thread long-job\"]");
			softly.assertThat(holderWhileTheJobRuns).as("the Lease's holder while the job still ran")
				.isEqualTo("web-leader");
		});
		assertHandedOverOnlyAfterTheJobEnded("web-leader", leaderJobs, follower.name());
	}

	/**
	 * Closing the leader's context while a job runs that outlasts the drain timeout (a 2s
	 * shutdown phase leaves 1s to drain): the Lease is not released while the job runs; it is left
	 * to expire, so the successor takes over only a lease duration after the last renewal.
	 */
	@Test
	void aShutdownWhoseDrainTimesOutLeavesTheLeaseToExpireInsteadOfReleasingIt() throws Exception {
		Map<String, Object> shortShutdown = Map.of("spring.lifecycle.timeout-per-shutdown-phase", "2s");
		startReplica("drain-1", shortShutdown, LeaderJobs.class);
		startReplica("drain-2", shortShutdown, LeaderJobs.class);
		Replica leader = awaitLeader();
		Replica successor = this.replicas.stream().filter((replica) -> replica != leader).findFirst().orElseThrow();
		LeaderJobs leaderJobs = jobs(leader);
		CompletableFuture<Void> job = onItsOwnThread(leaderJobs::heldJob);
		assertThat(leaderJobs.awaitLongJobEntered()).as("the held job started on the leader").isTrue();
		LeaseTimeline timeline = new LeaseTimeline();
		try (Watch watch = this.kubectl.leases()
			.inNamespace(CrudApiServer.NAMESPACE)
			.withName(LEASE_NAME)
			.watch(timeline)) {
			long closingAt = System.nanoTime();
			leader.close();
			this.replicas.remove(leader);

			await().atMost(ELECTION_TIMEOUT).until(successor::isLeader);
			await().atMost(ELECTION_TIMEOUT).until(() -> ranAJob(successor.name(), closingAt));
			boolean jobRanPastTheTakeover = !job.isDone();
			heldJobRelease.countDown();
			await().atMost(ELECTION_TIMEOUT).until(job::isDone);
			Interval takeover = gateOpenedSince(successor.name(), closingAt);
			long jobEndedAt = leaderJobs.longJobEndedAt();
			List<LeaseTimeline.Version> releasesWhileTheJobRan = timeline.versions()
				.stream()
				.filter((version) -> version.seenAt() - closingAt >= 0 && version.seenAt() - jobEndedAt < 0)
				.filter((version) -> version.holder() == null || version.holder().isEmpty())
				.toList();
			long lastRenewalSeenAt = timeline.versions()
				.stream()
				.filter((version) -> leader.name().equals(version.holder()))
				.mapToLong(LeaseTimeline.Version::seenAt)
				.max()
				.orElseThrow();
			System.out.printf("shutdown of %s: last renewal seen -> %s's gate: %d ms, releases while the job ran: %d%n",
					leader, successor, millis(takeover.openedAt - lastRenewalSeenAt), releasesWhileTheJobRan.size());
			assertThat(jobRanPastTheTakeover).as("the job still ran when the successor took over").isTrue();
			SoftAssertions.assertSoftly((softly) -> {
				softly.check(() -> gates.assertNoOverlap(ELECTION));
				assertNoTwoReplicasRanAtOnce(softly, ticks.runs());
				softly.assertThat(releasesWhileTheJobRan)
					.as("releases of the Lease written after the close while the job still ran")
					.isEmpty();
				// the successor saw the last renewal no earlier than this test's watch did, less the
				// difference between their deliveries of the same event
				softly.assertThat(Duration.ofNanos(takeover.openedAt - lastRenewalSeenAt))
					.as("time from the last renewal by %s to %s's gate opening", leader, successor)
					.isGreaterThanOrEqualTo(LEASE_DURATION.minus(RETRY_PERIOD));
				softly.assertThat(runStartedSince(successor.name(), closingAt).startedAt())
					.as("start of %s's first job, against the last renewal plus a lease duration", successor)
					.isGreaterThanOrEqualTo(lastRenewalSeenAt + LEASE_DURATION.minus(RETRY_PERIOD).toNanos());
			});
		}
	}

	// ---- 3. two replicas given one identity

	/**
	 * Two replicas given the same {@code leader.election.identity}: each could take the other's
	 * writes for its own and renew on them. Proves that over two lease durations and more their
	 * gates are never open at once, and that the one kept out reports it: health DOWN naming the
	 * identity and the Lease.
	 */
	@Test
	void twoReplicasGivenOneIdentityNeverLeadAtOnceAndTheOneKeptOutIsDown() {
		Replica first = startReplica("twin-1", Map.of("leader.election.identity", "twin"));
		Replica second = startReplica("twin-2", Map.of("leader.election.identity", "twin"));
		await().atMost(ELECTION_TIMEOUT).until(() -> first.isLeader() || second.isLeader());
		Duration observed = LEASE_DURATION.multipliedBy(2).plus(RETRY_PERIOD.multipliedBy(2));
		observed = (observed.compareTo(Duration.ofSeconds(4)) > 0) ? observed : Duration.ofSeconds(4);

		await().during(observed)
			.atMost(observed.plusSeconds(2))
			.untilAsserted(() -> assertThat(first.isLeader() && second.isLeader()).as("both gates open").isFalse());

		Replica keptOut = first.isLeader() ? second : first;
		SoftAssertions.assertSoftly((softly) -> {
			softly.check(() -> gates.assertNoOverlap(ELECTION));
			softly.check(() -> await().atMost(ELECTION_TIMEOUT).untilAsserted(() -> {
				var health = keptOut.context()
					.getBean("leaderElectionHealthIndicator", LeaderElectionHealthIndicator.class)
					.health();
				assertThat(health.getStatus().getCode()).as("health of %s: %s", keptOut, health).isEqualTo("DOWN");
				assertThat(String.valueOf(health.getDetails().get("reason"))).contains("'twin'",
						"Lease " + CrudApiServer.NAMESPACE + "/" + LEASE_NAME);
			}));
		});
	}

	// ---- helpers

	/**
	 * The successor's gate opened, and its first job started, only after the old leader's long
	 * job ended; no two gates and no two replicas' jobs overlapped.
	 */
	private void assertHandedOverOnlyAfterTheJobEnded(String leader, LeaderJobs leaderJobs, String successor) {
		await().atMost(ELECTION_TIMEOUT).until(() -> leaderJobs.longJobEndedAt() != 0);
		await().atMost(ELECTION_TIMEOUT).until(() -> ranAJob(successor, leaderJobs.longJobStartedAt()));
		long jobStartedAt = leaderJobs.longJobStartedAt();
		long jobEndedAt = leaderJobs.longJobEndedAt();
		Interval takeover = gateOpenedSince(successor, jobStartedAt);
		System.out.printf("end of %s's job -> %s's gate: %d ms%n", leader, successor,
				millis(takeover.openedAt - jobEndedAt));
		SoftAssertions.assertSoftly((softly) -> {
			softly.check(() -> gates.assertNoOverlap(ELECTION));
			assertNoTwoReplicasRanAtOnce(softly, ticks.runs());
			softly.assertThat(Duration.ofNanos(takeover.openedAt - jobEndedAt))
				.as("from the end of %s's job to the opening of %s's gate (negative: opened while the job ran)",
						leader, successor)
				.isPositive();
			softly.assertThat(Duration.ofNanos(runStartedSince(successor, jobStartedAt).startedAt() - jobEndedAt))
				.as("from the end of %s's job to the start of %s's first job", leader, successor)
				.isPositive();
		});
	}

	/** Runs of different replicas never overlap in time. */
	private static void assertNoTwoReplicasRanAtOnce(SoftAssertions softly, List<Run> runs) {
		Map<String, Run> lastEndedOfEachReplica = new LinkedHashMap<>();
		for (Run run : runs.stream().sorted(Comparator.comparingLong(Run::startedAt)).toList()) {
			lastEndedOfEachReplica.forEach((replica, earlier) -> {
				if (!replica.equals(run.replica())) {
					softly.assertThat(run.startedAt() - earlier.endedAt())
						.as("%s started before %s ended", run, earlier)
						.isPositive();
				}
			});
			lastEndedOfEachReplica.merge(run.replica(), run,
					(earlier, later) -> (later.endedAt() - earlier.endedAt() > 0) ? later : earlier);
		}
	}

	/** The first gate the replica opened at or after the given time. */
	private static Interval gateOpenedSince(String replica, long since) {
		return gates.intervals()
			.stream()
			.filter((interval) -> interval.replica.equals(replica) && interval.openedAt - since >= 0)
			.findFirst()
			.orElseThrow(() -> new AssertionError(replica + " opened no gate since " + since + ": "
					+ gates.intervals()));
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private static boolean ranAJob(String replica, long since) {
		return ticks.runs().stream().anyMatch((run) -> run.replica().equals(replica) && run.startedAt() - since >= 0);
	}

	/** The first run of the replica's scheduled job that started at or after the given time. */
	private static Run runStartedSince(String replica, long since) {
		return ticks.runs()
			.stream()
			.filter((run) -> run.replica().equals(replica) && run.startedAt() - since >= 0)
			.min(Comparator.comparingLong(Run::startedAt))
			.orElseThrow(() -> new AssertionError(replica + " ran no job since " + since));
	}

	private Replica startReplica(String name, Map<String, Object> properties, Class<?>... configurations) {
		Replica replica = Replica.start(name, this.server, this.reactor, gates, properties, configurations);
		this.replicas.add(replica);
		return replica;
	}

	private Replica awaitLeader() {
		await("a leader").atMost(ELECTION_TIMEOUT).until(() -> this.replicas.stream().anyMatch(Replica::isLeader));
		return this.replicas.stream().filter(Replica::isLeader).findFirst().orElseThrow();
	}

	private Replica awaitLeaderOtherThan(Replica previous) {
		await("a leader other than " + previous).atMost(ELECTION_TIMEOUT)
			.until(() -> this.replicas.stream().anyMatch((replica) -> replica != previous && replica.isLeader()));
		return this.replicas.stream()
			.filter((replica) -> replica != previous && replica.isLeader())
			.findFirst()
			.orElseThrow();
	}

	private void cutOff(Replica replica) {
		replica.blackHole();
		this.cutOff.add(replica);
	}

	private void deleteLease() {
		assertThat(this.kubectl.leases().inNamespace(CrudApiServer.NAMESPACE).withName(LEASE_NAME).delete())
			.as("deleted Leases")
			.hasSize(1);
	}

	private Lease lease() {
		return this.kubectl.leases().inNamespace(CrudApiServer.NAMESPACE).withName(LEASE_NAME).get();
	}

	private static LeaderJobs jobs(Replica replica) {
		return LeaderJobs.of(replica.name());
	}

	private static Duration timing(String property) {
		return DurationStyle.detectAndParse((String) Replica.FAST_TIMINGS.get(property));
	}

	/** Runs the job on a thread of its own named {@code long-job}; completes when it returned. */
	static CompletableFuture<Void> onItsOwnThread(Runnable job) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				job.run();
				done.complete(null);
			}
			catch (Throwable ex) {
				done.completeExceptionally(ex);
			}
		}, "long-job");
		thread.setDaemon(true);
		thread.start();
		return done;
	}

	/**
	 * Leader-only work of every replica: a job every 10 ms that records its runs in
	 * {@link #ticks}, and long jobs the tests start on a leader.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class LeaderJobs {

		/** The context of each replica of the running test, by identity, web replicas included. */
		static final Map<String, ApplicationContext> contexts = new ConcurrentHashMap<>();

		private final LeaderElector elector;

		private final CountDownLatch longJobEntered = new CountDownLatch(1);

		private volatile long longJobStartedAt;

		private volatile long longJobEndedAt;

		LeaderJobs(LeaderElector elector, ApplicationContext context) {
			this.elector = elector;
			contexts.put(elector.identity(), context);
		}

		/** The jobs of the given replica, through the proxy that gates them. */
		static LeaderJobs of(String identity) {
			return contexts.get(identity).getBean(LeaderJobs.class);
		}

		@Scheduled(fixedDelay = 10)
		@LeaderOnly
		public void tick() {
			long startedAt = System.nanoTime();
			Long token = this.elector.status(ELECTION).fencingToken();
			ticks.record(this.elector.identity(), (token != null) ? token : -1, startedAt, System.nanoTime());
		}

		/** Takes a second. */
		@LeaderOnly
		public void oneSecondJob() {
			this.longJobStartedAt = System.nanoTime();
			this.longJobEntered.countDown();
			try {
				Thread.sleep(1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.longJobEndedAt = System.nanoTime();
			}
		}

		/** Runs until the test lets it end (at most 30 seconds). */
		@LeaderOnly
		public void heldJob() {
			this.longJobStartedAt = System.nanoTime();
			this.longJobEntered.countDown();
			try {
				heldJobRelease.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.longJobEndedAt = System.nanoTime();
			}
		}

		boolean awaitLongJobEntered() {
			try {
				return this.longJobEntered.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		/** When the long job started; 0 before it ran. */
		long longJobStartedAt() {
			return this.longJobStartedAt;
		}

		/** When the long job ended; 0 while it runs or before it ran. */
		long longJobEndedAt() {
			return this.longJobEndedAt;
		}

	}

	/**
	 * On the first grant once armed, on any replica: starts the one-second job and, once it runs,
	 * yields through the event's {@code Context}.
	 */
	@Configuration(proxyBeanMethods = false)
	static class YieldOnFirstGrantWhileTheJobRuns {

		static final AtomicBoolean armed = new AtomicBoolean();

		static volatile String yielder;

		private final LeaderJobs jobs;

		private final LeaderElector elector;

		YieldOnFirstGrantWhileTheJobRuns(LeaderJobs jobs, LeaderElector elector) {
			this.jobs = jobs;
			this.elector = elector;
		}

		@EventListener
		void granted(OnGrantedEvent event) {
			if (armed.compareAndSet(true, false)) {
				onItsOwnThread(this.jobs::oneSecondJob);
				if (this.jobs.awaitLongJobEntered()) {
					event.getContext().yield();
					yielder = this.elector.identity();
				}
			}
		}

	}

	/** Records the gates of a web replica, which registers no recorder of its own, in {@link #gates}. */
	@Configuration(proxyBeanMethods = false)
	static class RecordGates {

		@Bean
		ElectionListener gateRecorder(@Value("${leader.election.identity}") String identity) {
			return gates.recorderFor(identity);
		}

	}

	/** Every version of the Lease the test's own watch saw, with when it saw it. */
	static final class LeaseTimeline implements Watcher<Lease> {

		private final List<Version> versions = new CopyOnWriteArrayList<>();

		@Override
		public void eventReceived(Action action, Lease lease) {
			this.versions.add(new Version(System.nanoTime(), action, lease.getSpec().getHolderIdentity(),
					lease.getSpec().getLeaseDurationSeconds(), lease.getMetadata().getResourceVersion()));
		}

		@Override
		public void onClose(WatcherException cause) {
		}

		List<Version> versions() {
			return List.copyOf(this.versions);
		}

		record Version(long seenAt, Action action, String holder, Integer leaseDurationSeconds,
				String resourceVersion) {
		}

	}

}
