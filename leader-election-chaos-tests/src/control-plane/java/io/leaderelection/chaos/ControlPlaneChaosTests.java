package io.leaderelection.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.leaderelection.controlplane.AuditLog;
import io.leaderelection.controlplane.DocumentedRoles;
import io.leaderelection.controlplane.Fabric8ElectorRole;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite's faults on the real control plane of the control-plane tests instead of the
 * mock server ({@link ControlPlaneChaosServer}): five replicas in {@value #ELECTIONS} elections,
 * the faults a real API server allows ({@link FaultMix#CONTROL_PLANE}) one at a time, now and then
 * a few held together, as {@link LeaderElectionChaosTests}'s long run injects them; this project's
 * elector on the Role of docs/operations.md, then fabric8's {@code LeaderElector} 7.3.1 on its own
 * ({@code Fabric8ElectorRole}), with the same seed, each until {@value #TRANSITIONS} transitions
 * and every kind of the mix injected. On demand:
 * {@code ./mvnw -B verify -pl leader-election-chaos-tests -am -Pcontrol-plane -Dtest=ControlPlaneChaosTests
 * -Dchaos.long=true -Dsurefire.failIfNoSpecifiedTests=false}; {@code -Dchaos.seed},
 * {@code -Dchaos.transitions}, {@code -Dchaos.elections} and {@code -Dchaos.electors} (of
 * {@code ours,fabric8-7.3.1,fabric8-7.8.0}) change it. It writes
 * {@code target/chaos-report-control-plane.md}: the suite's tables, and every request of the
 * replicas the API server refused (403, 422). It fails on what the long run fails on, for this
 * project's elector, and on any request of it refused.
 */
@QuietChaosLogging
@EnabledIfSystemProperty(named = "chaos.long", matches = "true")
class ControlPlaneChaosTests {

	private static final int REPLICAS = 5;

	/**
	 * Half the long run's: with fabric8's followers polling each Lease every retry period, eight
	 * elections kept the real API server (and its audit log) on two shared cores too busy for the
	 * run's scaled deadlines.
	 */
	private static final int ELECTIONS = 4;

	private static final int TRANSITIONS = 200;

	private static final Duration TIME_LIMIT = Duration.ofMinutes(20);

	@Test
	void faultMixBesideFabric8() throws IOException {
		ChaosSettings settings = new ChaosSettings(LeaderElectionChaosTests.seed(), REPLICAS,
				Integer.getInteger("chaos.elections", ELECTIONS), Integer.getInteger("chaos.transitions", TRANSITIONS),
				TIME_LIMIT);
		List<ChaosOutcome> outcomes = new ArrayList<>();
		Map<String, List<AuditLog.Request>> refused = new LinkedHashMap<>();
		Map<String, List<AuditLog.Request>> refusedWhileStarting = new LinkedHashMap<>();
		for (Supplier<Elector> electors : LeaderElectionChaosTests.electors("ours,fabric8-7.3.1")) {
			Elector elector = electors.get();
			List<PolicyRule> rules = (elector instanceof EngineElector) ? DocumentedRoles.LEASES.rules()
					: Fabric8ElectorRole.rules();
			AtomicReference<ControlPlaneChaosServer> server = new AtomicReference<>();
			ChaosOutcome outcome = new ChaosRun(elector, settings, () -> {
				server.set(ControlPlaneChaosServer.start(rules));
				return server.get();
			}, FaultMix.CONTROL_PLANE).run();
			outcomes.add(outcome);
			refused.put(outcome.elector(), server.get().refused());
			refusedWhileStarting.put(outcome.elector(), server.get().refusedWhileStarting());
			System.out.println(markdown(outcomes, refused, refusedWhileStarting));
		}
		Path report = Path.of("target", "chaos-report-control-plane.md");
		Files.writeString(report, markdown(outcomes, refused, refusedWhileStarting));
		System.out.println("Written to " + report.toAbsolutePath());
		for (ChaosOutcome outcome : outcomes) {
			if (outcome.elector().equals(new EngineElector().name())) {
				assertThat(outcome.transitions()).as("transitions").isGreaterThanOrEqualTo(settings.transitions());
				LeaderElectionChaosTests.assertNeverTwoLeaders(outcome);
				assertThat(refused.get(outcome.elector())).as("requests the API server refused").isEmpty();
			}
		}
	}

	/** The suite's tables, then the requests the API server refused, per elector. */
	private static String markdown(List<ChaosOutcome> outcomes, Map<String, List<AuditLog.Request>> refused,
			Map<String, List<AuditLog.Request>> refusedWhileStarting) {
		StringBuilder markdown = new StringBuilder(ChaosReport.markdown(outcomes));
		markdown.append("\nRequests of the replicas the API server refused (403 or 422), from its audit log: while it ")
			.append("was starting again after a kill (from the kill to its first ready answer), and at any other ")
			.append("time.\n\n");
		markdown.append("| elector | refused while starting | the first ones | refused otherwise | the first ones |\n")
			.append("|---|---|---|---|---|\n");
		refused.forEach((elector, requests) -> markdown.append("| ")
			.append(elector)
			.append(" | ")
			.append(refusedWhileStarting.get(elector).size())
			.append(" | ")
			.append(first(refusedWhileStarting.get(elector)))
			.append(" | ")
			.append(requests.size())
			.append(" | ")
			.append(first(requests))
			.append(" |\n"));
		return markdown.toString();
	}

	private static String first(List<AuditLog.Request> requests) {
		return requests.isEmpty() ? "–"
				: String.join("; ", requests.stream().limit(ChaosOutcome.EXAMPLES).map(Object::toString).toList());
	}

}
