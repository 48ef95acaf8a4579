package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The migration step of docs/migration.md, {@code leader.election.config-map-migration.enabled=true}
 * with {@code POD_NAME} from the downward API, applied as written to an application configured
 * like the sample app (sample-app's application.yml): a default election, the named election
 * {@code reports} and {@code orders} in 8 shards. On the CRUD mock server, with the replica's Pod
 * Ready, as the kubelet reports it.
 */
class ConfigMapMigrationStartTests {

	/** Ten elections start at once, each waiting a lease duration before it creates its Lease. */
	private static final Duration LEADERSHIP_TIMEOUT = Duration.ofSeconds(30);

	private static final String POD = "sample-5c7d9f-x2x9q";

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	/**
	 * The sample's elections, its timings scaled down from 15 s / 10 s / 2 s, less than other
	 * tests': the ten elections of one replica must all lead at once, on a machine that may be busy.
	 */
	private final ApplicationContextRunner sample = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START, "spring.application.name=sample",
				"leader.election.lease-duration=3s", "leader.election.renew-deadline=2s",
				"leader.election.retry-period=400ms",
				"leader.election.elections.reports.lease-name=sample-reports-leader",
				"leader.election.elections.orders.shards=8", "leader.election.elections.orders.mode=lease",
				"POD_NAME=" + POD)
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
		.withBean(KubernetesClient.class, server::newClient);

	@Test
	void theSampleStartsWithTheStepAndMigratesItsDefaultElectionAlone() {
		server.runReadyPod("sample-step", POD);
		this.sample.withPropertyValues("leader.election.config-map-migration.enabled=true",
				"leader.election.namespace=sample-step").run((context) -> {
					assertThat(context).hasNotFailed();
					List<ElectionSettings> elections = context.getBean(LeaderElectionSettings.class).elections();
					assertThat(elections).extracting(ElectionSettings::name)
						.containsExactly("default", "reports", "orders-0-of-8", "orders-1-of-8", "orders-2-of-8",
								"orders-3-of-8", "orders-4-of-8", "orders-5-of-8", "orders-6-of-8", "orders-7-of-8");
					assertThat(elections.get(0).migration())
						.isEqualTo(new ElectionSettings.Migration("leaders", "leader.id.leader", POD));
					assertThat(elections.subList(1, elections.size())).extracting(ElectionSettings::migration)
						.containsOnlyNulls();
					// alone, this replica leads every election, and only the default one writes a key
					ElectionEngine engine = context.getBean(ElectionEngine.class);
					await().atMost(LEADERSHIP_TIMEOUT)
						.until(() -> elections.stream().allMatch((election) -> engine.isLeader(election.name())));
					assertThat(server.configMapData("sample-step", "leaders"))
						.isEqualTo(Map.of("leader.id.leader", POD));
					assertThat(engine.status(LeaderElector.DEFAULT_ELECTION).lastError()).isNull();
				});
	}

	@Test
	void theShardedElectionsOwnMigrationFailsTheStartNamingItsProperty() {
		this.sample.withPropertyValues("leader.election.config-map-migration.enabled=true",
				"leader.election.elections.orders.config-map-migration.enabled=true").run((context) -> {
					FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
					assertThat(analysis.getAction()).startsWith(
							"Update 'leader.election.elections.orders.config-map-migration.enabled' in your configuration:");
					assertThat(analysis.getDescription()).contains("sharded election");
				});
	}

	/** As the sample's k8s-for-life variant runs: the default election for-life. */
	@Test
	void theStepOnADefaultElectionForLifeFailsTheStartNamingTheTopLevelProperty() {
		this.sample.withPropertyValues("leader.election.config-map-migration.enabled=true",
				"leader.election.mode=for-life").run((context) -> {
					FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
					assertThat(analysis.getAction())
						.startsWith("Update 'leader.election.config-map-migration.enabled' in your configuration:");
					assertThat(analysis.getDescription()).contains("election 'default' runs for-life",
							"set by leader.election.mode");
				});
	}

}
