package io.leaderelection.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.leaderelection.chaos.ChaosOutcome.ElectionCounts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite on elected shards, balanced: five replicas campaign in the 32 shards of one
 * election (four in 16 in the short run), each shard on its Lease, spread over them by balancing (none holds more than
 * ceil(32/M) of M live members; members find each other through labelled member Leases on the
 * same API server, followed by an informer). The faults are those of the lease runs, and
 * replicas joining (a new process with a new identity, in a slot of its own, then stopped or
 * killed) and leaving (stopped or killed, then a new process in their place), mixed at once as in
 * the other runs: {@link FaultMix#SHARDED}. Every shard runs leader-only jobs of varied length.
 * <p>
 * Every check of {@link LeaderElectionChaosTests} holds over the run, and shard by shard: no gate
 * overlap, no fencing token regression, no overlap of cooperative steps, no opaque job overlap
 * after a voluntary end (a hand-over to balance the group is one), no fence violation. How
 * evenly the live replicas held the shards (the spread) is reported per fault window, and not
 * checked.
 * <p>
 * The short run, part of every build, goes on until every kind of the mix was injected and
 * {@value #SHORT_TRANSITIONS} transitions happened (82 s in a CI run on two cores here, 36
 * faults); it fails after five minutes: the build runs it beside the Spring modules' tests, which
 * keep both cores busy, and then it waits longer for each shard's leader after each fault (11 of its
 * 21 kinds in two minutes, in one such run). The long one, {@code ./mvnw -B -o test -pl leader-election-chaos-tests -am
 * -Dtest='BalancedShardsChaosTests#longBalancedShardsRun' -Dchaos.long=true
 * -Dsurefire.failIfNoSpecifiedTests=false}, goes on until 2,000 transitions
 * ({@code -Dchaos.shards.transitions}) and writes {@code target/chaos-report-shards.md}
 * (recorded in {@code docs/chaos-report.md}). {@code -Dchaos.seed} sets the seed, and for the
 * short run {@code -Dchaos.seeds} several, each run on its own.
 */
@QuietChaosLogging
class BalancedShardsChaosTests {

	private static final int REPLICAS = 5;

	private static final int SHARDS = 32;

	/**
	 * The short run's replicas and shards: fewer than the long run's, so that the mock server and
	 * five replicas' clients, all in the build's process on two cores, still answer within the
	 * run's scaled-down deadlines (at 5 x 32 a busy machine's answers came late enough that no
	 * shard kept a leader).
	 */
	private static final int SHORT_REPLICAS = 4;

	private static final int SHORT_SHARDS = 16;

	private static final int SHORT_TRANSITIONS = 200;

	private static final Duration SHORT_TIME_LIMIT = Duration.ofMinutes(5);

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("shortRunSeeds")
	void shortBalancedShardsRunNeverOpensTwoGatesAtOnceInAnyShard(long seed) {
		ChaosSettings settings = ChaosSettings.balancedShards(seed, SHORT_REPLICAS, SHORT_SHARDS, SHORT_TRANSITIONS,
				SHORT_TIME_LIMIT);
		ChaosOutcome outcome = new ChaosRun(new EngineElector(), settings).run();
		System.out.println(ChaosReport.markdown(List.of(outcome)));
		assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(SHORT_TRANSITIONS);
		assertNeverTwoLeadersInAnyShard(outcome, settings);
		assertThat(outcome.faults()).as("kinds of fault injected").containsOnlyKeys(FaultMix.SHARDED.kinds());
		assertThat(outcome.faultsHeldTogether()).as("faults injected while another was held").isPositive();
	}

	@Test
	@EnabledIfSystemProperty(named = "chaos.long", matches = "true")
	void longBalancedShardsRun() throws IOException {
		int transitions = Integer.getInteger("chaos.shards.transitions", 2000);
		ChaosSettings settings = ChaosSettings.balancedShards(LeaderElectionChaosTests.seed(), REPLICAS, SHARDS,
				transitions, Duration.ofMinutes(30));
		ChaosOutcome outcome = new ChaosRun(new EngineElector(), settings).run();
		String markdown = ChaosReport.markdown(List.of(outcome));
		System.out.println(markdown);
		Path report = Path.of("target", "chaos-report-shards.md");
		Files.writeString(report, markdown);
		System.out.println("Written to " + report.toAbsolutePath());
		assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(transitions);
		assertNeverTwoLeadersInAnyShard(outcome, settings);
		assertThat(outcome.faults()).as("kinds of fault injected").containsOnlyKeys(FaultMix.SHARDED.kinds());
	}

	/**
	 * The seed of the short run: one run a build, of the default seed, within the build's time for
	 * it (one round of every kind takes most of it); others with {@code -Dchaos.seeds}.
	 */
	static List<Long> shortRunSeeds() {
		return LeaderElectionChaosTests.seeds(List.of(LeaderElectionChaosTests.seed()));
	}

	/**
	 * Every check of the lease runs, over the run and shard by shard; and the shards were
	 * balanced: some terms were handed over, and the spread was sampled.
	 */
	private static void assertNeverTwoLeadersInAnyShard(ChaosOutcome outcome, ChaosSettings settings) {
		LeaderElectionChaosTests.assertNeverTwoLeaders(outcome);
		assertThat(outcome.elections()).as("shards").containsOnlyKeys(settings.electionNames());
		assertThat(outcome.elections()).as("shards with a check failed").allSatisfy((shard, counts) -> {
			assertThat(counts.gateOverlaps()).as("%s: gate overlaps", shard).isZero();
			assertThat(counts.tokenRegressions()).as("%s: fencing token regressions", shard).isZero();
			assertThat(counts.stepOverlaps()).as("%s: cooperative step overlaps", shard).isZero();
			assertThat(counts.opaqueOverlapsAfterVoluntaryEnd()).as("%s: opaque job overlaps after a voluntary end",
					shard).isZero();
			assertThat(counts.fenceViolations()).as("%s: fence violations", shard).isZero();
			assertThat(counts.grants()).as("%s: grants", shard).isPositive();
		});
		assertThat(outcome.elections().values().stream().mapToInt(ElectionCounts::handedOver).sum())
			.as("terms handed over to balance the shards").isPositive();
		assertThat(outcome.spread()).as("spread sampled").isNotNull();
	}

}
