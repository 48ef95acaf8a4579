package io.leaderelection.migration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.leaderelection.RevocationCause;
import io.leaderelection.migration.LeadershipIntervals.Interval;
import io.leaderelection.migration.LeadershipIntervals.Overlap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.env.PropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A rollout from spring-cloud-kubernetes 3.3's ConfigMap leader election (the old protocol) to
 * this starter in migration mode ({@code leader.election.config-map-migration.enabled=true}):
 * real old replicas ({@link OldProtocolReplica}) beside new ones ({@link NewProtocolReplica}, a
 * Spring context of this starter each), on one API server, each with its own client and its own
 * Pod whose {@code Ready} condition the test sets as a kubelet would. Every replica reports its
 * terms to one {@link LeadershipIntervals}: an old one from its {@code OnGrantedEvent} to its
 * {@code OnRevokedEvent}, a new one from its gate's opening to its closing.
 * <p>
 * What is checked, in every scenario: an old and a new replica never lead at the same instant,
 * but for the one case the old protocol leaves open (below). Two old replicas may: when a live
 * old leader's Pod turns not Ready, it and its old successor can both lead for a few tens of
 * milliseconds, and an old replica can deadlock (see {@link OldProtocolReplicaTests}); those are
 * flaws of the old protocol among its own replicas, counted and reported, never failures here.
 * <p>
 * <b>What the old protocol cannot promise.</b> When the Pod of a new leader turns not Ready while
 * its process lives on, an old replica takes the key at once (on the Pod's watch event) and
 * starts leading as soon as its write returns. The new leader learns of it only at its next look
 * at the key, which it takes every retry period: its gate closes then, with
 * {@link RevocationCause#MIGRATION_KEY_LOST}. The two lead together meanwhile, for about a retry
 * period and two round trips; {@link #readinessFlipsOfEitherSidesLeader()} measures that overlap
 * and asserts it stays below the new replica's renew deadline, instead of zero, as a machine
 * this busy may delay a look. (While the look that found its own Pod not Ready did not tell the
 * election at once, the gate closed only at the next renewal, and the overlap came to 565 ms.)
 * A new replica could narrow that window, not close it: it learns that its Pod turned not Ready
 * no sooner than the old replicas do, which write at once and leave nothing the new one could
 * fence them with.
 * <p>
 * Timings are scaled down: old replicas check every 300 ms (60 s by default), new ones have a
 * lease duration of 1.5 s, a renew deadline of 1 s and a retry period of 100 ms (those of the
 * sample app, ten elections each, 3 s, 2 s and 400 ms).
 */
class ConfigMapMigrationRolloutTests {

	private static final Logger logger = LoggerFactory.getLogger(ConfigMapMigrationRolloutTests.class);

	@RegisterExtension
	static final MigrationApiServer server = MigrationApiServer.start();

	private static final AtomicInteger namespaces = new AtomicInteger();

	/** What the scenarios measured, logged once the class has run. */
	private static final Queue<String> report = new ConcurrentLinkedQueue<>();

	private static final String CONFIG_MAP = "leaders";

	/** The old replicas' periodic check, scaled down from 60 s. */
	private static final Duration UPDATE_PERIOD = Duration.ofMillis(300);

	/**
	 * Long enough that no periodic check of an old replica comes in the way: every check comes
	 * from a watch event (the ConfigMap, its own Pod, the leader's Pod). A periodic check under
	 * way when the leader's Pod changes readiness is what can deadlock an old replica.
	 */
	private static final Duration QUIET_UPDATE_PERIOD = Duration.ofSeconds(30);

	private static final Duration LEASE_DURATION = Duration.ofMillis(1500);

	private static final Duration RETRY_PERIOD = Duration.ofMillis(100);

	/** The new replicas' renew deadline, as {@link NewProtocolReplica} sets it. */
	private static final Duration RENEW_DEADLINE = Duration.ofMillis(1000);

	/** The most an old and a new replica may lead together after the new one's Pod turned not Ready. */
	private static final Duration INHERENT_OVERLAP_BOUND = RENEW_DEADLINE;

	/**
	 * The timings of the sample app's replicas, scaled down from its 15 s / 10 s / 2 s less than
	 * the others': each replica runs ten elections, on a machine that may be busy.
	 */
	private static final Duration SAMPLE_LEASE_DURATION = Duration.ofSeconds(3);

	private static final Duration SAMPLE_RENEW_DEADLINE = Duration.ofSeconds(2);

	private static final Duration SAMPLE_RETRY_PERIOD = Duration.ofMillis(400);

	/** How often {@link LeaderSamples} looks at who leads. */
	private static final long SAMPLE_MILLIS = 10;

	/** Long enough for any takeover here, on a busy machine. */
	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private final String namespace = "rollout-" + namespaces.incrementAndGet();

	private final LeadershipIntervals intervals = new LeadershipIntervals();

	/** Every replica's requests, and the test's steps, for failure messages. */
	private final RequestTimeline timeline = new RequestTimeline();

	/** Thread-safe, as the new ones: {@link LeaderSamples} reads them. */
	private final List<OldProtocolReplica> olds = new CopyOnWriteArrayList<>();

	private final List<NewProtocolReplica> news = new CopyOnWriteArrayList<>();

	/** When each new replica's Pod was set not Ready while it led: the overlaps the old protocol allows. */
	private final List<Flip> newLeaderFlips = new ArrayList<>();

	private String role = "orders";

	private long started;

	@AfterEach
	void stopReplicas() {
		this.news.forEach(NewProtocolReplica::kill);
		this.olds.forEach(OldProtocolReplica::kill);
		logger.info("{}: terms{}", this.namespace, this.intervals);
	}

	@AfterAll
	static void logReport() {
		StringBuilder text = new StringBuilder("ConfigMap migration rollout, measured:");
		report.forEach((line) -> text.append(System.lineSeparator()).append("  ").append(line));
		logger.info("{}", text);
	}

	/**
	 * Three old replicas, one leading; then, one Pod at a time, a new replica joins and an old
	 * one stops gracefully (its Pod deleted after): a follower first, then the leader twice, so
	 * that the key passes from old to old and, the last old one gone, to a new replica, after it
	 * saw the key free for a whole lease duration. At the end exactly one new replica leads and
	 * the key names its Pod; never did an old and a new replica lead together.
	 */
	@Test
	void rolloutOnePodAtATime() {
		begin();
		rollOutOnePodAtATime(this::startNew, (joined) -> {
			// nothing more to check than the terms
		});
		assertNoOldAndNewLeaderTogether("rollout one pod at a time");
	}

	/**
	 * The migration step of docs/migration.md applied as written to the sample app: its own
	 * configuration ({@link SampleAppConfiguration}: a default election, {@code reports},
	 * {@code orders} in 8 shards) with {@code leader.election.config-map-migration.enabled=true},
	 * rolled out as {@link #rolloutOnePodAtATime()} over replicas of an application on
	 * spring-cloud-kubernetes' leader with its default role. The default election takes the old
	 * leader's place: never two leaders of it, in the terms or in samples of who leads, taken
	 * every {@value #SAMPLE_MILLIS} ms. The named elections take no part: the new replicas lead
	 * them while an old replica still leads, and no key but the default election's is written.
	 */
	@Test
	void theMigrationStepRollsTheSampleAppOutWithOneLeader() {
		this.role = null;
		begin();
		List<String> named = new ArrayList<>();
		try (LeaderSamples samples = sampleLeaders()) {
			rollOutOnePodAtATime((pod) -> startSample(pod, SampleAppConfiguration.withMigrationStep()), (joined) -> {
				if (named.isEmpty()) {
					named.addAll(electionsBesideTheDefault(joined));
				}
				await().atMost(TIMEOUT).until(() -> named.stream().allMatch(this::oneNewReplicaLeads));
				assertThat(leaders()).as("who leads the default election").singleElement()
					.matches(ConfigMapMigrationRolloutTests::isOld);
			});
			samples.close();
			report.add(String.format("the migration step on the sample app (%s): %s", this.namespace, samples));
			assertThat(samples.withTwoLeaders()).as("samples with two leaders of the default election").isZero();
		}
		assertThat(named).containsExactly("reports", "orders-0-of-8", "orders-1-of-8", "orders-2-of-8",
				"orders-3-of-8", "orders-4-of-8", "orders-5-of-8", "orders-6-of-8", "orders-7-of-8");
		await().atMost(TIMEOUT).until(() -> named.stream().allMatch(this::oneNewReplicaLeads));
		assertThat(server.configMap(this.namespace, CONFIG_MAP).getData())
			.isEqualTo(Map.of("leader.id.leader", leaders().get(0)));
		assertNoOldAndNewLeaderTogether("the migration step on the sample app");
	}

	/**
	 * The measure of {@link #theMigrationStepRollsTheSampleAppOutWithOneLeader()}, without the
	 * migration step: the sample's new replicas elect a leader of their own beside the old one,
	 * and the samples see two leaders.
	 */
	@Test
	void withoutTheMigrationStepTheSampleAppRollsOutWithTwoLeaders() {
		this.role = null;
		begin();
		try (LeaderSamples samples = sampleLeaders()) {
			for (int i = 0; i < 3; i++) {
				startOld("old-" + i, UPDATE_PERIOD);
			}
			awaitOneLeader();
			for (int i = 0; i < 3; i++) {
				startSample("new-" + i, SampleAppConfiguration.asIs());
				stopOld(i != 0);
				await().atMost(TIMEOUT)
					.until(() -> this.news.stream().anyMatch(NewProtocolReplica::isLeader)
							&& (liveOlds().findAny().isEmpty() || liveOlds().anyMatch(OldProtocolReplica::isLeader)));
			}
			samples.close();
			report.add(String.format("the sample app without the migration step (%s): %s", this.namespace, samples));
			assertThat(samples.withTwoLeaders()).as("samples with two leaders of the default election").isPositive();
		}
		assertThat(this.intervals.overlaps()).as("two leaders of the default election at once")
			.anyMatch((overlap) -> isOld(overlap.first().holder()) != isOld(overlap.second().holder()));
	}

	/**
	 * Three old replicas, one leading; then, one Pod at a time, a new replica joins and an old
	 * one stops gracefully (its Pod deleted after): a follower first, then the leader twice. At
	 * the end exactly one new replica leads and the key names its Pod.
	 * @param startNew starts a new replica in the Pod of the given name
	 * @param joined told of each new replica once it started, while an old replica leads
	 */
	private void rollOutOnePodAtATime(Function<String, NewProtocolReplica> startNew,
			Consumer<NewProtocolReplica> joined) {
		for (int i = 0; i < 3; i++) {
			startOld("old-" + i, UPDATE_PERIOD);
		}
		String first = awaitOneLeader();
		assertThat(isOld(first)).as("an old replica leads first").isTrue();

		for (int i = 0; i < 3; i++) {
			joined.accept(startNew.apply("new-" + i));
			// a follower first (the key stays), then the leader (the key passes on)
			long stoppedAt = System.nanoTime();
			OldProtocolReplica leaving = stopOld(i != 0);
			String leader = awaitOneLeader();
			boolean oldsLeft = liveOlds().findAny().isPresent();
			logger.info("{}: {} stopped{}; {} leads", this.namespace, leaving.name(), (i != 0) ? " (leader)" : "",
					leader);
			assertThat(isOld(leader)).as("an old replica leads while one is left").isEqualTo(oldsLeft);
			if (!oldsLeft) {
				assertWaitedALeaseDuration(newReplica(leader), stoppedAt, "after the last old leader stopped");
			}
		}

		// and it stays so
		String last = awaitOneLeader();
		await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(last)));
		assertThat(isOld(last)).isFalse();
		assertThat(keyValue()).isEqualTo(last);
		assertThat(this.news).hasSize(3).allSatisfy((replica) -> assertThat(replica.hasEnded()).isFalse());
	}

	/**
	 * Leaders die, each side's in turn, as a crashed process does: nothing is released and the
	 * key keeps naming the dead leader's Pod until the Pod goes away or stops being Ready.
	 * <ol>
	 * <li>the old leader dies and its Pod is deleted: the other old replica takes over (the new
	 * ones wait a lease duration, the old one checks every 300 ms);</li>
	 * <li>that one dies and its Pod turns not Ready: a new replica takes over, a lease duration
	 * after the Pod changed at the earliest;</li>
	 * <li>an old replica joins, follows; the new leader dies (engine stopped without release)
	 * and its Pod is deleted: the old replica takes over;</li>
	 * <li>it dies and its Pod is deleted: the other new replica takes over, a lease duration
	 * later at the earliest, on the Lease the dead new leader never released.</li>
	 * </ol>
	 */
	@Test
	void killsOfEitherSidesLeader() {
		this.role = null;
		begin();
		startOld("old-0", UPDATE_PERIOD);
		startOld("old-1", UPDATE_PERIOD);
		String firstOld = awaitOneLeader();
		startNew("new-0");
		startNew("new-1");
		// the new replicas never take a key naming a Ready Pod
		await().during(LEASE_DURATION).atMost(TIMEOUT).until(() -> leaders().equals(List.of(firstOld)));

		// 1. the old leader dies, its Pod deleted
		step("kill " + firstOld + ", delete its Pod");
		oldReplica(firstOld).kill();
		server.deletePod(this.namespace, firstOld);
		String secondOld = awaitOneLeader();
		assertThat(isOld(secondOld)).as("the other old replica takes over first").isTrue();

		// 2. that one dies, its Pod not Ready: no old replica is left to take the key
		step("kill " + secondOld + ", set its Pod not Ready");
		oldReplica(secondOld).kill();
		long unready = System.nanoTime();
		server.setPodReady(this.namespace, secondOld, false);
		String firstNew = awaitOneLeader();
		assertThat(isOld(firstNew)).isFalse();
		assertWaitedALeaseDuration(newReplica(firstNew), unready, "after the dead old leader's Pod turned not Ready");

		// 3. an old replica joins and follows; the new leader dies, its Pod deleted
		OldProtocolReplica joined = startOld("old-2", UPDATE_PERIOD);
		await().atMost(TIMEOUT).until(() -> firstNew.equals(joined.leaderSeen()));
		NewProtocolReplica dying = newReplica(firstNew);
		step("kill " + firstNew + " (engine stopped without release)");
		dying.kill();
		assertThat(dying.revocations()).containsExactly(RevocationCause.SHUTDOWN);
		assertThat(keyValue()).as("a dead new leader's key stays").isEqualTo(firstNew);
		step("delete " + firstNew + "'s Pod");
		server.deletePod(this.namespace, firstNew);
		String thirdOld = awaitOneLeader();
		assertThat(thirdOld).isEqualTo(joined.name());

		// 4. it dies, its Pod deleted: the last new replica takes over
		step("kill " + thirdOld + ", delete its Pod");
		joined.kill();
		long deleted = System.nanoTime();
		server.deletePod(this.namespace, thirdOld);
		String secondNew = awaitOneLeader();
		assertThat(isOld(secondNew)).isFalse();
		assertThat(secondNew).isNotEqualTo(firstNew);
		assertWaitedALeaseDuration(newReplica(secondNew), deleted, "after the dead old leader's Pod was deleted");

		assertNoOldAndNewLeaderTogether("kills of either side's leader");
	}

	/**
	 * Pods change readiness while their processes live on. A new replica leads; two old ones
	 * and another new one follow.
	 * <ol>
	 * <li>the new leader's Pod turns not Ready: an old replica takes the key at once, and the
	 * new leader's gate closes at its next look at the key ({@code MIGRATION_KEY_LOST}): the
	 * overlap the old protocol allows, measured and bounded; back to Ready, it follows;</li>
	 * <li>the old leader's Pod turns not Ready: it removes its key and the other old replica
	 * takes over (they may overlap, an old-protocol matter);</li>
	 * <li>that one's Pod turns not Ready: no old replica is Ready, and a new replica takes the
	 * key a lease duration later at the earliest, with no overlap;</li>
	 * <li>the old Pods turn Ready again and their replicas follow; the new leader's Pod turns
	 * not Ready: as in 1.</li>
	 * </ol>
	 */
	@Test
	void readinessFlipsOfEitherSidesLeader() {
		begin();
		startNew("new-0");
		String newLeader = awaitOneLeader();
		assertThat(newLeader).isEqualTo("new-0");
		OldProtocolReplica old0 = startOld("old-0", QUIET_UPDATE_PERIOD);
		OldProtocolReplica old1 = startOld("old-1", QUIET_UPDATE_PERIOD);
		startNew("new-1");
		awaitFollowing(newLeader, old0, old1);

		// 1. the new leader's Pod turns not Ready
		String oldLeader = flipNewLeaderNotReady(newLeader);
		step("set " + newLeader + "'s Pod Ready");
		server.setPodReady(this.namespace, newLeader, true);
		await().during(RETRY_PERIOD.multipliedBy(5)).atMost(TIMEOUT).until(() -> leaders().equals(List.of(oldLeader)));
		assertThat(keyValue()).isEqualTo(oldLeader);

		// 2. the old leader's Pod turns not Ready: the other old replica takes over
		OldProtocolReplica other = (oldLeader.equals(old0.name())) ? old1 : old0;
		await().atMost(TIMEOUT).until(() -> oldLeader.equals(other.leaderSeen()));
		step("set " + oldLeader + "'s Pod not Ready");
		server.setPodReady(this.namespace, oldLeader, false);
		String secondOld = awaitOneLeader(other.name()::equals);
		endIfDeadlocked(other);

		// 3. that one's Pod turns not Ready: a new replica takes the key, after a lease duration
		step("set " + secondOld + "'s Pod not Ready");
		long unready = System.nanoTime();
		server.setPodReady(this.namespace, secondOld, false);
		String secondNew = awaitOneLeader((leader) -> !isOld(leader));
		assertWaitedALeaseDuration(newReplica(secondNew), unready,
				"after the last Ready old leader's Pod turned not Ready");

		// 4. the old Pods turn Ready again and follow; the new leader's Pod turns not Ready
		step("set " + oldLeader + "'s and " + secondOld + "'s Pods Ready");
		server.setPodReady(this.namespace, oldLeader, true);
		server.setPodReady(this.namespace, secondOld, true);
		awaitFollowing(secondNew, liveOlds().toArray(OldProtocolReplica[]::new));
		await().during(RETRY_PERIOD.multipliedBy(5)).atMost(TIMEOUT).until(() -> leaders().equals(List.of(secondNew)));
		flipNewLeaderNotReady(secondNew);

		assertNoOldAndNewLeaderTogether("readiness flips of either side's leader");
	}

	/**
	 * A new replica whose Pod is not Ready leaves the key alone, as an old replica does: the old
	 * replicas take at once a key that names a Pod not Ready, and a new replica that wrote it
	 * would lead beside the old one that took it until its next look at the key. Once its Pod is
	 * Ready, it takes the key, and the old replica follows it.
	 * <p>
	 * The key stays free long enough for that when an old leader dies and its Pod is deleted
	 * while the other old replicas' periodic check is far off: spring-cloud-kubernetes checks every
	 * 60 s by default, and the deletion of a Pod triggers no check.
	 */
	@Test
	void aNewReplicaWhosePodIsNotReadyLeavesTheKeyAlone() {
		this.role = null;
		begin();
		OldProtocolReplica dying = startOld("old-0", UPDATE_PERIOD);
		assertThat(awaitOneLeader()).isEqualTo(dying.name());
		OldProtocolReplica follower = startOld("old-1", QUIET_UPDATE_PERIOD);
		awaitFollowing(dying.name(), follower);
		NewProtocolReplica replica = startNew("new-0", false);
		step("kill old-0, delete its Pod");
		dying.kill();
		server.deletePod(this.namespace, dying.name());
		// the key names a Pod that is gone, for two lease durations: the new replica leaves it
		Throwable tookTheKey = catchThrowable(() -> await().during(LEASE_DURATION.multipliedBy(2))
			.atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> replica.grants() == 0 && dying.name().equals(keyValue())));
		assertNoOldAndNewLeaderTogether("a new replica whose Pod is not Ready");
		assertThat(tookTheKey).as("%s, its Pod not Ready, took the key; terms:%s", replica.name(), this.intervals)
			.isNull();

		step("set new-0's Pod Ready");
		server.setPodReady(this.namespace, replica.name(), true);
		assertThat(awaitOneLeader()).isEqualTo(replica.name());
		awaitFollowing(replica.name(), follower);
		assertNoOldAndNewLeaderTogether("a new replica whose Pod is not Ready, then Ready");
	}

	// ---- steps

	/**
	 * Sets the new leader's Pod not Ready; an old replica takes the key and leads, the new
	 * leader's gate closes for the key lost; the overlap is measured.
	 * @return the old replica that took over
	 */
	private String flipNewLeaderNotReady(String newLeader) {
		NewProtocolReplica replica = newReplica(newLeader);
		int revocations = replica.revocations().size();
		long flippedAt = System.nanoTime();
		this.newLeaderFlips.add(new Flip(newLeader, flippedAt));
		step("set " + newLeader + "'s Pod not Ready");
		server.setPodReady(this.namespace, newLeader, false);
		// an old replica takes the key of a new leader whose Pod is not Ready
		String oldLeader = awaitOneLeader(ConfigMapMigrationRolloutTests::isOld);
		await().atMost(TIMEOUT).until(() -> replica.revocations().size() > revocations);
		assertThat(replica.revocations().get(revocations)).isEqualTo(RevocationCause.MIGRATION_KEY_LOST);
		Interval newTerm = lastTerm(newLeader);
		Interval oldTerm = lastTerm(oldLeader);
		long overlap = newTerm.to() - oldTerm.from();
		report.add(String.format("%s: new leader %s's Pod not Ready -> %s granted %.1f ms after the flip; %s's gate "
				+ "closed %.1f ms after the flip: overlap %.1f ms (bound %d ms)", this.namespace, newLeader, oldLeader,
				millis(oldTerm.from() - flippedAt), newLeader, millis(newTerm.to() - flippedAt), millis(overlap),
				INHERENT_OVERLAP_BOUND.toMillis()));
		assertThat(Duration.ofNanos(Math.max(0, overlap)))
			.as("how long %s led beside %s after its Pod turned not Ready; terms:%s", newLeader, oldLeader,
					this.intervals)
			.isLessThan(INHERENT_OVERLAP_BOUND);
		return oldLeader;
	}

	/**
	 * Stops an old replica gracefully, as a rollout does, then deletes its Pod.
	 * @param leader whether to stop the leader, or a follower
	 */
	private OldProtocolReplica stopOld(boolean leader) {
		OldProtocolReplica leaving = liveOlds().filter((old) -> old.isLeader() == leader).findFirst().orElseThrow();
		step("stop " + leaving.name() + (leader ? " (leader)" : "") + ", then delete its Pod");
		leaving.stop();
		server.deletePod(this.namespace, leaving.name());
		return leaving;
	}

	/** Samples how many replicas lead the default election, old and new. */
	private LeaderSamples sampleLeaders() {
		return LeaderSamples.every(Duration.ofMillis(SAMPLE_MILLIS), () -> leaders().size());
	}

	/** The elections of the replica's application but the default one, a sharded one by its shards. */
	private static List<String> electionsBesideTheDefault(NewProtocolReplica replica) {
		return replica.engine()
			.statuses()
			.keySet()
			.stream()
			.filter((election) -> !election.equals(NewProtocolReplica.ELECTION))
			.toList();
	}

	/** Whether exactly one live new replica leads the election. */
	private boolean oneNewReplicaLeads(String election) {
		return this.news.stream()
			.filter((replica) -> !replica.hasEnded() && replica.engine().isLeader(election))
			.count() == 1;
	}

	/** An old replica found deadlocked is ended as a crash: it would lead on for good otherwise. */
	private void endIfDeadlocked(OldProtocolReplica replica) {
		if (replica.isStuck()) {
			logger.warn("{}: {} is deadlocked (a flaw of the old protocol); ended as a crashed process",
					this.namespace, replica.name());
			replica.kill();
		}
	}

	// ---- the assertion of every scenario

	/**
	 * No old and new replica led at the same instant, but after a new leader's Pod was set not
	 * Ready (bounded, checked where that happens); overlaps of old replicas are counted only.
	 */
	private void assertNoOldAndNewLeaderTogether(String scenario) {
		List<Overlap> overlaps = this.intervals.overlaps();
		List<Overlap> oldAndOld = overlaps.stream()
			.filter((overlap) -> isOld(overlap.first().holder()) && isOld(overlap.second().holder()))
			.toList();
		List<Overlap> oldAndNew = overlaps.stream()
			.filter((overlap) -> isOld(overlap.first().holder()) != isOld(overlap.second().holder()))
			.toList();
		List<Overlap> inherent = oldAndNew.stream().filter(this::followsANewLeadersFlip).toList();
		List<Overlap> unexpected = new ArrayList<>(oldAndNew);
		unexpected.removeAll(inherent);
		List<Overlap> newAndNew = overlaps.stream()
			.filter((overlap) -> !isOld(overlap.first().holder()) && !isOld(overlap.second().holder()))
			.toList();
		report.add(String.format("%s (%s, %.1f s): old/new overlaps %d unexpected, %d after a new leader's Pod "
				+ "turned not Ready %s; old/old overlaps %d %s; old replicas deadlocked %d; new/new overlaps %d",
				scenario, this.namespace, millis(System.nanoTime() - this.started) / 1000, unexpected.size(),
				inherent.size(), lengths(inherent), oldAndOld.size(), lengths(oldAndOld),
				this.olds.stream().filter((old) -> old.wasStuck() || old.isStuck()).count(), newAndNew.size()));
		assertThat(unexpected).as("an old and a new replica led together; terms (ms from the first):%s%nrequests "
				+ "answered and terms around the first overlap (ms from the scenario's start):%s", this.intervals,
				(unexpected.isEmpty()) ? "" : around(unexpected.get(0))).isEmpty();
		assertThat(newAndNew).as("two new replicas led together; terms:%s", this.intervals).isEmpty();
		assertThat(this.intervals.anomalies()).isEmpty();
	}

	/**
	 * Whether the new replica of the overlap led first, and its Pod was set not Ready while it
	 * led, before the old replica began leading: the overlap the old protocol allows.
	 */
	private boolean followsANewLeadersFlip(Overlap overlap) {
		Interval newTerm = isOld(overlap.first().holder()) ? overlap.second() : overlap.first();
		Interval oldTerm = isOld(overlap.first().holder()) ? overlap.first() : overlap.second();
		return newTerm.from() < oldTerm.from() && this.newLeaderFlips.stream()
			.anyMatch((flip) -> flip.pod().equals(newTerm.holder()) && newTerm.from() < flip.at()
					&& flip.at() < oldTerm.from());
	}

	/** The timeline from 300 ms before the overlap to 300 ms after it. */
	private String around(Overlap overlap) {
		long from = Math.max(overlap.first().from(), overlap.second().from());
		long to = Math.min(overlap.first().to(), overlap.second().to());
		long margin = Duration.ofMillis(300).toNanos();
		return this.timeline.describe(from - margin, (to == Long.MAX_VALUE) ? Long.MAX_VALUE : to + margin,
				this.started, this.intervals);
	}

	/** Notes a step of the test in the timeline. */
	private void step(String text) {
		this.timeline.note("test: " + text);
	}

	private static String lengths(List<Overlap> overlaps) {
		return overlaps.stream()
			.map((overlap) -> String.format("%.1f ms", millis(overlap.length().toNanos())))
			.toList()
			.toString();
	}

	/**
	 * A new replica took the key only after seeing it free for a whole lease duration (its own),
	 * counted from just before the test made it free.
	 */
	private void assertWaitedALeaseDuration(NewProtocolReplica leader, long freedBefore, String when) {
		long waited = leader.lastGateOpenedAt() - freedBefore;
		Duration leaseDuration = leader.settings().leaseDuration();
		report.add(String.format("%s: %s's gate opened %.1f ms %s (lease duration %d ms)", this.namespace,
				leader.name(), millis(waited), when, leaseDuration.toMillis()));
		assertThat(Duration.ofNanos(waited)).as("how long after the key was freed %s led", leader.name())
			.isGreaterThanOrEqualTo(leaseDuration);
	}

	// ---- replicas

	private void begin() {
		this.started = System.nanoTime();
		server.recordRequests(this.namespace, this.timeline);
	}

	private OldProtocolReplica startOld(String pod, Duration updatePeriod) {
		server.createPod(this.namespace, pod, true);
		OldProtocolReplica replica = OldProtocolReplica.create(server,
				OldProtocolReplica.Settings.of(this.namespace, pod).withRole(this.role).withUpdatePeriod(updatePeriod),
				this.intervals);
		this.olds.add(replica);
		replica.start();
		return replica;
	}

	private NewProtocolReplica startNew(String pod) {
		return startNew(pod, true);
	}

	private NewProtocolReplica startNew(String pod, boolean ready) {
		return startNew(pod, ready, NewProtocolReplica.Settings.of(this.namespace, pod, effectiveRole()));
	}

	/** A new replica of the sample app, in a Ready Pod, with the given configuration. */
	private NewProtocolReplica startSample(String pod, List<PropertySource<?>> configuration) {
		return startNew(pod, true, NewProtocolReplica.Settings.of(this.namespace, pod, configuration)
			.withTimings(SAMPLE_LEASE_DURATION, SAMPLE_RENEW_DEADLINE, SAMPLE_RETRY_PERIOD));
	}

	private NewProtocolReplica startNew(String pod, boolean ready, NewProtocolReplica.Settings settings) {
		server.createPod(this.namespace, pod, ready);
		NewProtocolReplica replica = NewProtocolReplica.start(server, settings, this.intervals);
		this.news.add(replica);
		return replica;
	}

	private String effectiveRole() {
		return (this.role == null) ? "leader" : this.role;
	}

	private Stream<OldProtocolReplica> liveOlds() {
		return this.olds.stream().filter((replica) -> !replica.hasEnded());
	}

	private OldProtocolReplica oldReplica(String name) {
		return this.olds.stream().filter((replica) -> replica.name().equals(name)).findFirst().orElseThrow();
	}

	private NewProtocolReplica newReplica(String name) {
		return this.news.stream().filter((replica) -> replica.name().equals(name)).findFirst().orElseThrow();
	}

	private static boolean isOld(String name) {
		return name.startsWith("old-");
	}

	/** The live replicas that lead, by name, old and new. */
	private List<String> leaders() {
		List<String> leaders = new ArrayList<>();
		liveOlds().filter(OldProtocolReplica::isLeader).forEach((replica) -> leaders.add(replica.name()));
		this.news.stream().filter(NewProtocolReplica::isLeader).forEach((replica) -> leaders.add(replica.name()));
		return leaders;
	}

	/**
	 * Waits until exactly one live replica leads, the recorder agrees (its grant was told), and
	 * the key names it.
	 */
	private String awaitOneLeader() {
		return awaitOneLeader((leader) -> true);
	}

	/**
	 * Waits as {@link #awaitOneLeader()} for a leader the predicate accepts: after a readiness
	 * change, the leader from before may still lead alone for a while, as the replicas learn of
	 * the change only from their watches.
	 * @return the leader that was found, as it was found
	 */
	private String awaitOneLeader(Predicate<String> expected) {
		AtomicReference<String> found = new AtomicReference<>();
		await().atMost(TIMEOUT).untilAsserted(() -> {
			List<String> leaders = leaders();
			assertThat(leaders).as("leaders; terms:%s", this.intervals).hasSize(1);
			assertThat(leaders.get(0)).as("the one leader; terms:%s", this.intervals).matches(expected);
			assertThat(this.intervals.leaders()).containsExactlyElementsOf(leaders);
			assertThat(keyValue()).isEqualTo(leaders.get(0));
			found.set(leaders.get(0));
		});
		return found.get();
	}

	/** Waits until the old replicas' last check saw the key name the leader's Pod, which they watch. */
	private void awaitFollowing(String leader, OldProtocolReplica... followers) {
		for (OldProtocolReplica follower : followers) {
			await().atMost(TIMEOUT).until(() -> leader.equals(follower.leaderSeen()));
		}
	}

	private Interval lastTerm(String holder) {
		List<Interval> terms = this.intervals.intervals()
			.stream()
			.filter((interval) -> interval.holder().equals(holder))
			.toList();
		assertThat(terms).as("terms of %s", holder).isNotEmpty();
		return terms.get(terms.size() - 1);
	}

	private String keyValue() {
		return server.configMapValue(this.namespace, CONFIG_MAP, "leader.id." + effectiveRole());
	}

	private static double millis(long nanos) {
		return nanos / 1_000_000.0;
	}

	/** A new leader's Pod set not Ready at the given {@link System#nanoTime()}. */
	private record Flip(String pod, long at) {
	}

}
