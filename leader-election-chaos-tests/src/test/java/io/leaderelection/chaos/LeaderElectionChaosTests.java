package io.leaderelection.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import io.leaderelection.chaos.ChaosOutcome.LeaderWork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite: five replicas, each in several elections and running leader-only jobs in
 * each, on the CRUD API server while faults are injected one at a time, now and then a few at
 * once (see {@link ChaosRun}).
 * <p>
 * The short lease-mode runs, on demand with {@code -Dchaos.leaseShortRuns=true} (no longer in every
 * build: the deterministic simulation, {@code io.leaderelection.simulation.SimulationTests}, puts the
 * engine's lease mode through thousands of seeds of mixed faults in the time one of them took; the
 * for-life and balanced short runs keep real sockets and the fabric8 client under faults in every
 * build), run this project's elector in eight elections, one run
 * per seed: {@link #SHORT_RUN_SEEDS} and one drawn for the build, each shown in the test's name
 * and the run's log ({@code -Dchaos.seeds=N,M} runs those instead). Each goes on until every kind
 * of fault was injected (one round, the gaps across an absence twice, after one or two such gaps
 * at the start) and {@value #SHORT_TRANSITIONS} transitions happened; it fails after four minutes
 * (the build runs it beside the Spring modules' tests, which keep both cores busy).
 * The long run,
 * {@code ./mvnw -B test -pl leader-election-chaos-tests -am
 * -Dtest='LeaderElectionChaosTests#longRunBesideFabric8' -Dchaos.long=true
 * -Dsurefire.failIfNoSpecifiedTests=false}, runs this project's elector and fabric8's, 7.3.1 from
 * the test class path and 7.8.0 from the jars the fabric8-baseline module lists, until 2,000
 * transitions each, and writes {@code target/chaos-report.md} (recorded in
 * {@code docs/chaos-report.md}). Set the seed with {@code -Dchaos.seed}, the transitions with
 * {@code -Dchaos.transitions}, and the electors with {@code -Dchaos.electors} (a comma-separated
 * subset of {@code ours,fabric8-7.3.1,fabric8-7.8.0}).
 * <p>
 * Leader-for-life runs this project's elector with every election for life, each process in a
 * Pod, and the for-life mix of faults ({@link FaultMix#FOR_LIFE}), in sixteen elections: a
 * for-life leader is moved only by what ends its term (a stop, a kill, an eviction, a container
 * restart, a step-down, a deletion of its lock), not by what only delays it, so sixteen
 * elections give the transitions a short run needs within its budget. The short for-life run,
 * part of every build, goes on until every kind of its mix was injected and 50 transitions
 * (about 30 s, 50 to 70 transitions; it fails after four minutes); the long one,
 * {@code -Dtest='LeaderElectionChaosTests#longForLifeRun' -Dchaos.long=true}, until 1,000
 * transitions ({@code -Dchaos.forLife.transitions}), and writes
 * {@code target/chaos-report-for-life.md}. {@code -Dchaos.engineLog=INFO} (or {@code DEBUG}, which
 * also logs every Lease version stored) shows the electors' log.
 * <p>
 * A user's cluster, on demand: {@code ./mvnw -B test -pl leader-election-chaos-tests -am
 * -Dtest='LeaderElectionChaosTests#usersClusterRunBesideFabric8' -Dchaos.long=true -Dchaos.seeds=7,8
 * -Dsurefire.failIfNoSpecifiedTests=false} runs four replicas of an application with one election
 * for a minute ({@code -Dchaos.cluster.seconds}), the faults of {@link FaultMix#USERS_CLUSTER}
 * coming at random moments, one every two seconds on average, held together, one replica cut off
 * or frozen at the start once it saw the Lease missing; this project's elector and fabric8's, one
 * after the other with each seed ({@code -Dchaos.electors}), and writes
 * {@code target/chaos-report-users-cluster.md}.
 */
@QuietChaosLogging
class LeaderElectionChaosTests {

	private static final long DEFAULT_SEED = 20261121L;

	private static final int REPLICAS = 5;

	private static final int ELECTIONS = 8;

	private static final int FOR_LIFE_ELECTIONS = 16;

	/** The seeds every build runs a short run with, beside one drawn for the build. */
	private static final List<Long> SHORT_RUN_SEEDS = List.of(7L, 12L);

	/**
	 * A short run goes on until every kind of fault was injected, in one round
	 * ({@link FaultMix#round()}), and at least this many transitions happened: 55 to 86 by then here.
	 */
	private static final int SHORT_TRANSITIONS = 40;

	/** Only a short run that has not done its part within this time fails. */
	private static final Duration SHORT_TIME_LIMIT = Duration.ofMinutes(4);

	/** A user's cluster: four replicas of an application with one election, for a minute. */
	private static final int USERS_CLUSTER_REPLICAS = 4;

	private static final int USERS_CLUSTER_ELECTIONS = 1;

	private static final Duration USERS_CLUSTER_TIME = Duration.ofSeconds(60);

	/** How often, on average, a fault strikes the user's cluster, whatever else is held. */
	private static final Duration USERS_CLUSTER_FAULT_EVERY = Duration.ofSeconds(2);

	/** A little under what the run reaches once it has injected every kind of its mix (51 to 67 here). */
	private static final int FOR_LIFE_SHORT_TRANSITIONS = 50;

	/**
	 * The run takes about 30 s here; on a loaded machine it may take longer, and only a run that
	 * has not done its part within four minutes fails.
	 */
	private static final Duration FOR_LIFE_SHORT_TIME_LIMIT = Duration.ofMinutes(4);

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("shortRunSeeds")
	@EnabledIfSystemProperty(named = "chaos.leaseShortRuns", matches = "true")
	void shortRunNeverOpensTwoGatesAtOnce(long seed) {
		ChaosSettings settings = new ChaosSettings(seed, REPLICAS, ELECTIONS, SHORT_TRANSITIONS, SHORT_TIME_LIMIT);
		ChaosOutcome outcome = new ChaosRun(new EngineElector(), settings).run();
		System.out.println(ChaosReport.markdown(List.of(outcome)));
		assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(SHORT_TRANSITIONS);
		assertNeverTwoLeaders(outcome);
		assertThat(outcome.faults()).as("kinds of fault injected").containsOnlyKeys(FaultMix.LEASE.kinds());
		assertThat(outcome.faultsHeldTogether()).as("faults injected while another was held").isPositive();
	}

	@Test
	void shortForLifeRunNeverOpensTwoGatesAtOnce() {
		ChaosSettings settings = new ChaosSettings(seed(), REPLICAS, FOR_LIFE_ELECTIONS, FOR_LIFE_SHORT_TRANSITIONS,
				FOR_LIFE_SHORT_TIME_LIMIT);
		ChaosOutcome outcome = new ChaosRun(EngineElector.forLifeElector(), settings).run();
		System.out.println(ChaosReport.markdown(List.of(outcome)));
		assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(FOR_LIFE_SHORT_TRANSITIONS);
		assertNeverTwoLeaders(outcome);
		assertThat(outcome.faults()).as("kinds of fault injected").containsOnlyKeys(FaultMix.FOR_LIFE.kinds());
	}

	@Test
	@EnabledIfSystemProperty(named = "chaos.long", matches = "true")
	void longForLifeRun() throws IOException {
		int transitions = Integer.getInteger("chaos.forLife.transitions", 1000);
		ChaosSettings settings = new ChaosSettings(seed(), REPLICAS, FOR_LIFE_ELECTIONS, transitions,
				Duration.ofMinutes(30));
		ChaosOutcome outcome = new ChaosRun(EngineElector.forLifeElector(), settings).run();
		String markdown = ChaosReport.markdown(List.of(outcome));
		System.out.println(markdown);
		Path report = Path.of("target", "chaos-report-for-life.md");
		Files.writeString(report, markdown);
		System.out.println("Written to " + report.toAbsolutePath());
		assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(transitions);
		assertNeverTwoLeaders(outcome);
		assertThat(outcome.faults()).as("kinds of fault injected").containsOnlyKeys(FaultMix.FOR_LIFE.kinds());
	}

	@Test
	@EnabledIfSystemProperty(named = "chaos.long", matches = "true")
	void longRunBesideFabric8() throws IOException {
		int transitions = Integer.getInteger("chaos.transitions", 2000);
		ChaosSettings settings = new ChaosSettings(seed(), REPLICAS, ELECTIONS, transitions, Duration.ofMinutes(45));
		List<ChaosOutcome> outcomes = new ArrayList<>();
		for (Supplier<Elector> elector : electors()) {
			outcomes.add(new ChaosRun(elector.get(), settings).run());
			System.out.println(ChaosReport.markdown(outcomes));
		}
		Path report = Path.of("target", "chaos-report.md");
		Files.writeString(report, ChaosReport.markdown(outcomes));
		System.out.println("Written to " + report.toAbsolutePath());
		outcomes.stream().filter(LeaderElectionChaosTests::ofThisProject).forEach((outcome) -> {
			assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(transitions);
			assertNeverTwoLeaders(outcome);
		});
	}

	@Test
	@EnabledIfSystemProperty(named = "chaos.long", matches = "true")
	void usersClusterRunBesideFabric8() throws IOException {
		Duration time = Duration.ofSeconds(Long.getLong("chaos.cluster.seconds", USERS_CLUSTER_TIME.toSeconds()));
		StringBuilder markdown = new StringBuilder();
		List<ChaosOutcome> ours = new ArrayList<>();
		for (long seed : seeds(List.of(seed()))) {
			ChaosSettings settings = ChaosSettings.usersCluster(seed, USERS_CLUSTER_REPLICAS, USERS_CLUSTER_ELECTIONS,
					time, USERS_CLUSTER_FAULT_EVERY);
			List<ChaosOutcome> outcomes = new ArrayList<>();
			for (Supplier<Elector> elector : electors()) {
				outcomes.add(new ChaosRun(elector.get(), settings).run());
			}
			String run = ChaosReport.markdown(outcomes);
			System.out.println(run);
			markdown.append(run).append(System.lineSeparator());
			outcomes.stream().filter(LeaderElectionChaosTests::ofThisProject).forEach(ours::add);
		}
		Path report = Path.of("target", "chaos-report-users-cluster.md");
		Files.writeString(report, markdown);
		System.out.println("Written to " + report.toAbsolutePath());
		ours.forEach(LeaderElectionChaosTests::assertNeverTwoLeaders);
	}

	/**
	 * No two gates open at once, no two cooperative steps at once, no opaque job of a successor
	 * while a job of a term given up still runs, no release while a job of the releasing replica
	 * still runs, fencing tokens that always rise, also from one job to the next, and no write that
	 * undoes what others wrote.
	 */
	static void assertNeverTwoLeaders(ChaosOutcome outcome) {
		LeaderWork work = outcome.work();
		assertThat(outcome.gateOverlaps().count()).as("gate overlaps: %s", outcome.overlapTimelines()).isZero();
		assertThat(work.stepOverlaps().count()).as("cooperative step overlaps: %s", work.stepOverlaps().examples())
			.isZero();
		assertThat(work.opaqueOverlapsAfterVoluntaryEnd().count())
			.as("opaque job overlaps after a voluntary end: %s", work.opaqueOverlapsAfterVoluntaryEnd().examples())
			.isZero();
		assertThat(work.fenceViolations().count()).as("fence violations: %s", work.fenceViolations().examples())
			.isZero();
		assertThat(outcome.tokenRegressions()).as("fencing token regressions").isZero();
		assertThat(work.jobTokenRegressions().count())
			.as("jobs that began with a lower fencing token: %s", work.jobTokenRegressions().examples())
			.isZero();
		assertThat(work.releasesDuringJobs().count())
			.as("releases while a job ran: %s", work.releasesDuringJobs().examples())
			.isZero();
		assertThat(outcome.leaseWrites().revertedForeignEdits().count())
			.as("reverted foreign edits: %s", outcome.leaseWrites().revertedForeignEdits().examples())
			.isZero();
		assertThat(outcome.leaseWrites().clearedPreferredHolders().count())
			.as("cleared preferredHolder or strategy: %s", outcome.leaseWrites().clearedPreferredHolders().examples())
			.isZero();
	}

	private static List<Supplier<Elector>> electors() {
		return electors("ours,fabric8-7.3.1,fabric8-7.8.0");
	}

	/** The electors {@code -Dchaos.electors} names, else those given: of {@code ours,fabric8-7.3.1,fabric8-7.8.0}. */
	static List<Supplier<Elector>> electors(String otherwise) {
		Map<String, Supplier<Elector>> all = new LinkedHashMap<>();
		all.put("ours", EngineElector::new);
		all.put("fabric8-7.3.1", () -> fabric8("7.3.1", Fabric8Elector.onTestClassPath()));
		all.put("fabric8-7.8.0", () -> fabric8("7.8.0", Fabric8Elector.isolated(fabric8ClassPath())));
		String chosen = System.getProperty("chaos.electors", otherwise);
		return Arrays.stream(chosen.split(",")).map(String::trim).map((name) -> {
			assertThat(all).as("electors").containsKey(name);
			return all.get(name);
		}).toList();
	}

	/** The elector, once checked to run the fabric8 version it is meant to. */
	private static Elector fabric8(String version, Fabric8Elector elector) {
		assertThat(elector.version()).as("fabric8 version loaded").isEqualTo(version);
		return elector;
	}

	/** The file listing fabric8 7.8.0's jars, written by the fabric8-baseline module. */
	private static Path fabric8ClassPath() {
		String file = System.getProperty("fabric8-baseline.classpath");
		assertThat(file).as("fabric8-baseline.classpath: run through Maven, which sets it").isNotNull();
		return Path.of(file);
	}

	static long seed() {
		return Long.getLong("chaos.seed", DEFAULT_SEED);
	}

	/**
	 * The seeds of the short runs, each run on its own: those of {@code -Dchaos.seeds} (or the one
	 * of {@code -Dchaos.seed}); by default {@link #SHORT_RUN_SEEDS} and one drawn for this build,
	 * which the test's name shows, so that any run can be repeated.
	 */
	static List<Long> shortRunSeeds() {
		List<Long> seeds = new ArrayList<>(SHORT_RUN_SEEDS);
		seeds.add(new Random().nextLong() & Long.MAX_VALUE);
		return seeds(seeds);
	}

	/** The seeds of {@code -Dchaos.seeds}, comma-separated, or the one of {@code -Dchaos.seed}; else those given. */
	static List<Long> seeds(List<Long> otherwise) {
		String seeds = System.getProperty("chaos.seeds");
		if (seeds != null) {
			return Arrays.stream(seeds.split(",")).map(String::trim).map(Long::valueOf).toList();
		}
		return (System.getProperty("chaos.seed") != null) ? List.of(seed()) : otherwise;
	}

	private static boolean ofThisProject(ChaosOutcome outcome) {
		return outcome.elector().equals(new EngineElector().name());
	}

}
