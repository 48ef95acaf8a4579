package io.leaderelection.autoconfigure.shedlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.InvalidLeaderElectionPropertyException;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionFailureAnalysis;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.window.CurrentRun;
import io.leaderelection.autoconfigure.window.WindowedStarts;
import io.leaderelection.autoconfigure.window.WindowedStarts.Outcome;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShedLockAutoConfiguration}: a {@link LockProvider} on the election that
 * {@code leader.election.shedlock.election} names, where ShedLock is on the class path and the
 * application has none of its own; ShedLock's annotations, {@code LockAssert} and the fencing token
 * of the term work through it.
 */
class ShedLockAutoConfigurationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START, "leader.election.mode=standalone")
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class, ShedLockAutoConfiguration.class));

	@Test
	void providesALockProviderOnTheDefaultElection() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class).hasSingleBean(ElectionLockCounts.class);
			assertThat(context.getBean(ElectionLockCounts.class).elections()).containsExactly("default");
			Optional<SimpleLock> lock = context.getBean(LockProvider.class)
				.lock(new LockConfiguration(ClockProvider.now(), "report", Duration.ofMinutes(1), Duration.ZERO));
			assertThat(lock).isPresent();
			lock.get().unlock();
		});
	}

	@Test
	void backsOffWhenTheApplicationHasALockProvider() {
		LockProvider own = (configuration) -> Optional.empty();
		this.contextRunner.withBean("jdbcLockProvider", LockProvider.class, () -> own).run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class).doesNotHaveBean(ElectionLockProvider.class)
				.doesNotHaveBean(ElectionLockCounts.class);
			assertThat(context.getBean(LockProvider.class)).isSameAs(own);
		});
	}

	@Test
	void backsOffWithoutShedLock() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(LockProvider.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(ElectionLockCounts.class);
			assertThat(context).hasSingleBean(LeaderElector.class);
		});
	}

	@Test
	void backsOffWithAnElectorOfTheApplications() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new).run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(WindowedStarts.class)
				.doesNotHaveBean(LockProvider.class);
		});
	}

	@Test
	void anElectionThatIsNotConfiguredFailsTheStartNamingTheProperty() {
		this.contextRunner.withPropertyValues("leader.election.shedlock.election=reports").run((context) -> {
			FailureAnalysis analysis = assertFailedNamingTheProperty(context, "reports");
			assertThat(analysis.getDescription()).contains("must name a configured election, one of [default]");
		});
	}

	@Test
	void anElectionForLifeFailsTheStartNamingTheProperty() {
		new ApplicationContextRunner().withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
					ShedLockAutoConfiguration.class))
			.withBean(KubernetesClient.class, server::newClient)
			.withPropertyValues("spring.application.name=orders", "leader.election.namespace=shedlock-for-life",
					"POD_NAME=orders-7d9f-abcde", "leader.election.elections.reports.mode=for-life",
					"leader.election.shedlock.election=reports")
			.run((context) -> {
				FailureAnalysis analysis = assertFailedNamingTheProperty(context, "reports");
				assertThat(analysis.getDescription()).contains("runs for life");
				assertThat(analysis.getAction()).contains("lease mode");
			});
	}

	@Test
	void theLocksOfAShardedElectionAreTakenInTheShardsTheirNamesMapTo() {
		this.contextRunner
			.withPropertyValues("leader.election.elections.jobs.shards=4", "leader.election.shedlock.election=jobs")
			.run((context) -> {
				ElectionLockCounts counts = context.getBean(ElectionLockCounts.class);
				assertThat(counts.elections()).containsExactly("jobs-0-of-4", "jobs-1-of-4", "jobs-2-of-4",
						"jobs-3-of-4");
				LockProvider provider = context.getBean(LockProvider.class);
				LeaderElector elector = context.getBean(LeaderElector.class);
				for (int n = 0; n < 8; n++) {
					String name = "job-" + n;
					provider.lock(new LockConfiguration(ClockProvider.now(), name, Duration.ofMinutes(1),
							Duration.ZERO))
						.orElseThrow()
						.unlock();
					String shard = "jobs-" + elector.shardOf("jobs", name) + "-of-4";
					assertThat(elector.windows("jobs")).filteredOn((window) -> window.job().equals(name))
						.singleElement()
						.satisfies((window) -> assertThat(window.election()).isEqualTo(shard));
				}
				long granted = counts.elections()
					.stream()
					.mapToLong((shard) -> counts.count(shard, Outcome.STARTED))
					.sum();
				assertThat(granted).isEqualTo(8);
			});
	}

	@Test
	void schedulerLockRunsAJobOncePerWindowAssertingItsLockAndReadingItsToken() {
		this.contextRunner.withUserConfiguration(SchedulerLockConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			Reports reports = context.getBean(Reports.class);
			reports.nightly();
			reports.nightly();
			assertThat(reports.tokens()).as("the second call within the lock's lockAtLeastFor").hasSize(1);
			long token = context.getBean(LeaderElector.class).status("default").fencingToken();
			assertThat(reports.tokens().get(0)).hasValue(token);
			ElectionLockCounts counts = context.getBean(ElectionLockCounts.class);
			assertThat(counts.count("default", Outcome.STARTED)).isOne();
			assertThat(counts.count("default", Outcome.WINDOW_CLOSED)).isOne();
			assertThat(CurrentRun.fencingToken()).as("after the job").isEmpty();
		});
	}

	private static FailureAnalysis assertFailedNamingTheProperty(AssertableApplicationContext context, String value) {
		assertThat(context).hasFailed();
		assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
			.isInstanceOfSatisfying(InvalidLeaderElectionPropertyException.class, (invalid) -> {
				assertThat(invalid.getProperty()).isEqualTo("leader.election.shedlock.election");
				assertThat(invalid.getValue()).isEqualTo(value);
			});
		FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
		assertThat(analysis.getDescription()).contains("'leader.election.shedlock.election'");
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "PT1M")
	static class SchedulerLockConfiguration {

		@org.springframework.context.annotation.Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		private final List<OptionalLong> tokens = new CopyOnWriteArrayList<>();

		public List<OptionalLong> tokens() {
			return this.tokens;
		}

		@SchedulerLock(name = "nightly-report", lockAtLeastFor = "PT1M")
		public void nightly() {
			LockAssert.assertLocked();
			this.tokens.add(CurrentRun.fencingToken());
		}

	}

}
