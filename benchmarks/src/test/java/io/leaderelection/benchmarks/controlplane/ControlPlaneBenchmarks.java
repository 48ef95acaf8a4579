package io.leaderelection.benchmarks.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.leaderelection.benchmarks.comparison.BenchmarkMain;
import io.leaderelection.benchmarks.comparison.Report;
import io.leaderelection.benchmarks.harness.Fabric8Implementation;
import io.leaderelection.benchmarks.harness.HarnessArguments;
import io.leaderelection.benchmarks.harness.Implementation;
import io.leaderelection.benchmarks.harness.Log;
import io.leaderelection.benchmarks.harness.MarkdownSection;
import io.leaderelection.benchmarks.harness.OurImplementation;
import io.leaderelection.benchmarks.harness.Parallel;
import io.leaderelection.benchmarks.harness.RequestRates;
import io.leaderelection.benchmarks.harness.SectionRun;
import io.leaderelection.benchmarks.harness.Takeovers;
import io.leaderelection.benchmarks.harness.Timings;
import io.leaderelection.controlplane.AuditLog;
import io.leaderelection.controlplane.ControlPlane;
import io.leaderelection.controlplane.DocumentedRoles;
import io.leaderelection.controlplane.Fabric8ElectorRole;
import org.netcrusher.core.reactor.NioReactor;

/**
 * Graceful handover, crash failover and the requests of a leader and of a follower, as
 * {@link BenchmarkMain} measures them on the mock server, on the real control plane of the
 * control-plane tests instead: etcd, kube-apiserver and kube-controller-manager at the version
 * that module pins, started in this JVM. This project's elector and fabric8's LeaderElector 7.3.1
 * and 7.8.0, at the same time, each in a namespace of its own; every replica is a ServiceAccount
 * bound to its elector's Role (this project's: the Role of docs/operations.md; fabric8's: the
 * same with {@code patch}, as its {@code LeaseLock} updates the Lease with a JSON merge patch);
 * requests are counted from the API server's audit log, and every request it refused (403, 422)
 * is reported. A crash is the leader's TCP proxy black-holing its link, as on the mock.
 * <p>
 * Run it with {@code ./mvnw -B -Pbenchmarks -pl benchmarks -am verify
 * -Dbenchmarks.main=io.leaderelection.benchmarks.controlplane.ControlPlaneBenchmarks}; it prints its section and writes it into the file named by
 * {@code benchmarks.output} (by default docs/benchmarks.md) under its heading, replacing
 * that section and nothing else. Arguments ({@code -Dbenchmarks.args=...}):
 * {@code timings=15s/10s/2s}, {@code handovers=20}, {@code crashes=10},
 * {@code scaledTimings=2s/1s/250ms}, {@code scaledCrashes=20} ({@code 0}: none), {@code window=30}
 * (seconds), {@code only=handover,requests,crash}, {@code impls=ours,fabric8-7.3.1,fabric8-7.8.0},
 * or {@code quick} (scaled timings, a 10 s window, 3 samples each, written to
 * target/control-plane-benchmarks-quick.md).
 */
public final class ControlPlaneBenchmarks {

	private static final MarkdownSection SECTION = BenchmarkMain.CONTROL_PLANE_SECTION;


	private static final Set<String> PARTS = Set.of("handover", "requests", "crash");

	/** Requests are told per this many seconds, whatever the window they are counted over. */
	private static final int REQUESTS_PER_SECONDS = 30;

	private ControlPlaneBenchmarks() {
	}

	public static void main(String[] args) throws Exception {
		SectionRun run = new SectionRun(ControlPlaneBenchmarks.class, SECTION, args,
				"timings, handovers, crashes, scaledTimings, scaledCrashes, window, only, impls");
		HarnessArguments arguments = run.arguments();
		Timings timings = arguments.timings();
		int handovers = arguments.integer("handovers", 20, 3);
		int crashes = arguments.integer("crashes", 10, 3);
		Timings scaledTimings = Timings.parse(arguments.value("scaledTimings", HarnessArguments.QUICK_TIMINGS,
				HarnessArguments.QUICK_TIMINGS));
		int scaledCrashes = arguments.integer("scaledCrashes", 20, 0);
		Duration window = arguments.seconds("window", 30, 10);
		List<String> parts = arguments.list("only", String.join(",", PARTS));
		if (!PARTS.containsAll(parts)) {
			throw new IllegalArgumentException("only= takes some of " + PARTS + ", was " + parts);
		}
		List<String> keys = arguments.list("impls", "ours,fabric8-7.3.1,fabric8-7.8.0");

		List<Implementation> implementations = new ArrayList<>();
		implementations.add(new OurImplementation());
		for (Fabric8Implementation fabric8 : Fabric8Implementation.baselines()) {
			Log.log("fabric8 baseline " + fabric8.key() + " runs fabric8 " + fabric8.version());
			implementations.add(fabric8);
		}
		implementations.removeIf((implementation) -> !keys.contains(implementation.key()));

		ControlPlane controlPlane = ControlPlane.shared();
		Map<Implementation, ControlPlaneServer> servers = new LinkedHashMap<>();
		for (Implementation implementation : implementations) {
			servers.put(implementation, new ControlPlaneServer(controlPlane, "bench-" + implementation.key()
				.replace('.', '-'), rules(implementation)));
		}
		Report report = new Report();
		report.implementations(implementations);
		NioReactor reactor = new NioReactor();
		try {
			if (parts.contains("handover")) {
				Log.log("graceful handover: " + handovers + " samples each, " + timings);
				Parallel.inParallel(implementations, (implementation) -> new Takeovers(servers.get(implementation),
						reactor).run(implementation, Takeovers.Mode.GRACEFUL, handovers, timings))
					.forEach(report::takeovers);
			}
			if (parts.contains("requests")) {
				Log.log("requests: " + window.toSeconds() + " s window, " + timings);
				Parallel.inParallel(implementations, (implementation) -> new RequestRates(servers.get(implementation))
					.run(implementation, timings, window, 2)).forEach(report::requests);
			}
			if (parts.contains("crash")) {
				Log.log("crash failover: " + crashes + " samples each, " + timings);
				Parallel.inParallel(implementations, (implementation) -> new Takeovers(servers.get(implementation),
						reactor).run(implementation, Takeovers.Mode.CRASH, crashes, timings))
					.forEach(report::takeovers);
				if (scaledCrashes > 0) {
					Log.log("crash failover: " + scaledCrashes + " samples each, " + scaledTimings);
					Parallel.inParallel(implementations, (implementation) -> new Takeovers(
							servers.get(implementation), reactor)
						.run(implementation, Takeovers.Mode.CRASH, scaledCrashes, scaledTimings))
						.forEach(report::takeovers);
				}
			}
		}
		finally {
			reactor.close();
		}
		// the last requests of the crashed leaders' closings are read, and none of ours is left out
		Thread.sleep(1000);
		String section = section(run, report, servers);
		servers.values().forEach(ControlPlaneServer::close);
		run.record(section);
	}

	/** What the implementation's replicas are granted: the Role of docs/operations.md, or fabric8's. */
	private static List<PolicyRule> rules(Implementation implementation) {
		return (implementation instanceof Fabric8Implementation) ? Fabric8ElectorRole.rules()
				: DocumentedRoles.LEASES.rules();
	}

	private static String section(SectionRun run, Report report, Map<Implementation, ControlPlaneServer> servers) {
		StringBuilder out = new StringBuilder(SECTION.heading()).append("\n\n");
		out.append("The figures above on a real Kubernetes control plane instead of fabric8's mock server: etcd, ")
			.append("kube-apiserver and kube-controller-manager at the version `leader-election-control-plane-tests/")
			.append("versions.env` pins, started on loopback in the harness's JVM ([control-plane-tests.md]")
			.append("(control-plane-tests.md)). Each elector in a namespace of its own, every replica a ServiceAccount ")
			.append("bound to its elector's Role over HTTPS: this project's the Role of [operations.md](operations.md#rbac), ")
			.append("fabric8's the same with `patch` on Leases, as its `LeaseLock` writes each renewal and takeover ")
			.append("as a JSON merge patch (with the Role of the docs alone the server refuses every one of them, ")
			.append("and none leads again once the first leader's renew deadline has passed). ")
			.append("Requests are counted from the API server's audit log by ServiceAccount. A crash is the leader's ")
			.append("TCP proxy black-holing its link, as on the mock; a graceful handover, the leader stopped with ")
			.append("a release. The three electors run at the same time.\n\n");
		run.producedBy(out, "scaled timings, few samples");
		out.append("- Ratios are this project ÷ the baseline: below 1 means this project's figure is lower.\n");
		out.append("- Requests the API server refused (403 or 422), from its audit log: ");
		List<String> refusals = new ArrayList<>();
		servers.forEach((implementation, server) -> {
			List<AuditLog.Request> refused = server.refused();
			refusals.add(implementation.label() + " " + refused.size()
					+ (refused.isEmpty() ? "" : " (the first: " + refused.get(0) + ")"));
		});
		out.append(String.join("; ", refusals)).append(".\n\n");
		out.append(report.tables("###", REQUESTS_PER_SECONDS));
		return out.toString();
	}

}
