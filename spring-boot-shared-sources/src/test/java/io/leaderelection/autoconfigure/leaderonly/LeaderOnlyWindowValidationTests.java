package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.StepDown;
import io.leaderelection.WindowStatus;
import io.leaderelection.actuate.StaticLeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionFailureAnalysis;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import io.leaderelection.autoconfigure.window.CurrentRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @LeaderOnly(atMostEvery)} on one replica, standalone: a method runs once per window, its
 * job named by its bean and method; a window's value is a duration or a placeholder, read at
 * start-up; and every value or place it cannot be kept fails the start naming the bean and the
 * method.
 */
class LeaderOnlyWindowValidationTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START, "leader.election.mode=standalone")
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class));

	@Test
	void aMethodRunsOncePerWindowAsAJobNamedByItsBeanAndMethodReadingItsTermsToken() {
		this.contextRunner.withBean("reports", Reports.class).run((context) -> {
			Reports reports = context.getBean(Reports.class);
			assertThat(reports.daily()).isEqualTo("ran");
			assertThat(reports.daily()).as("within the window").isNull();
			LeaderElector elector = context.getBean(LeaderElector.class);
			assertThat(reports.tokens()).containsExactly(OptionalLong.of(elector.status("default").fencingToken()));
			assertThat(CurrentRun.fencingToken()).isEmpty();
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			assertThat(invocations.count("default", Outcome.EXECUTED)).isOne();
			assertThat(invocations.count("default", Outcome.SKIPPED_WINDOW)).isOne();
			assertThat(elector.windows("default")).singleElement().satisfies((window) -> {
				assertThat(window.job()).isEqualTo("reports.daily");
				assertThat(window.startedBy()).isEqualTo(elector.identity());
				assertThat(window.ended()).isNotNull();
			});
		});
	}

	@Test
	void twoBeansOfOneClassHaveAWindowEach() {
		this.contextRunner.withBean("eu", Reports.class).withBean("us", Reports.class).run((context) -> {
			assertThat(context.getBean("eu", Reports.class).daily()).isEqualTo("ran");
			assertThat(context.getBean("us", Reports.class).daily()).isEqualTo("ran");
			assertThat(context.getBean(LeaderElector.class).windows("default")).extracting(WindowStatus::job)
				.containsExactlyInAnyOrder("eu.daily", "us.daily");
		});
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "'90s', 90s", "'PT90S', ISO-8601", "'90000', milliseconds" })
	void aWindowIsADurationOrAPlaceholderGivingOne(String every, String description) {
		this.contextRunner.withPropertyValues("jobs.every=" + every)
			.withBean("placeholders", FromPlaceholder.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				FromPlaceholder job = context.getBean(FromPlaceholder.class);
				assertThat(job.run()).isTrue();
				assertThat(job.run()).isFalse();
				WindowStatus window = context.getBean(LeaderElector.class).windows("default").get(0);
				assertThat(java.time.Duration.between(window.lastStart(), window.nextStartAllowed()))
					.isBetween(java.time.Duration.ofSeconds(89), java.time.Duration.ofSeconds(90));
			});
	}

	@Test
	void aCallThatReturnsAFutureHoldsItsWindowUntilTheFutureCompletes() {
		this.contextRunner.withBean("exports", Exports.class).run((context) -> {
			Exports exports = context.getBean(Exports.class);
			CompletableFuture<String> export = exports.export();
			LeaderElector elector = context.getBean(LeaderElector.class);
			StepDown stepDown = elector.stepDown("default", java.time.Duration.ZERO);
			assertThat(stepDown.callsUnderWay()).singleElement().asString().startsWith("Exports.export()");
			assertThat(elector.windows("default").get(0).ended()).isNull();
			exports.pending().complete("done");
			assertThat(export).isCompletedWithValue("done");
			assertThat(elector.windows("default").get(0).ended()).isNotNull();
		});
	}

	@Test
	void aShardedElectionsMethodRunsOnTheLeaderOfTheShardItsJobsNameMapsTo() {
		this.contextRunner.withPropertyValues("leader.election.elections.orders.shards=4")
			.withBean("orderReports", ShardedReports.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ShardedReports.class).daily()).isTrue();
				LeaderElector elector = context.getBean(LeaderElector.class);
				String shard = "orders-" + elector.shardOf("orders", "orderReports.daily") + "-of-4";
				assertThat(context.getBean(LeaderOnlyInvocations.class).count(shard, Outcome.EXECUTED)).isOne();
				assertThat(elector.windows("orders")).singleElement()
					.satisfies((window) -> assertThat(window.election()).isEqualTo(shard));
			});
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "soon, is not a duration", "0s, is not a positive duration", "-1m, is not a positive duration",
			"'${jobs.nowhere}', Could not resolve placeholder 'jobs.nowhere'" })
	void aWindowThatIsNoPositiveDurationFailsTheStart(String every, String reason) {
		this.contextRunner.withPropertyValues("jobs.every=" + every)
			.withBean("placeholders", FromPlaceholder.class)
			.run((context) -> {
				FailureAnalysis analysis = assertFailedNaming(context, "placeholders", "run()");
				assertThat(analysis.getDescription()).contains(reason);
				assertThat(analysis.getAction()).contains("positive duration");
			});
	}

	@Test
	void aWindowOnATypeFailsTheStart() {
		this.contextRunner.withBean("nightly", WindowOnType.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "nightly", WindowOnType.class.getName());
			assertThat(analysis.getDescription()).contains("only a method's annotation can have");
		});
	}

	@Test
	void aWindowOnALifecycleBeanFailsTheStart() {
		this.contextRunner.withBean("poller", WindowOnLifecycle.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "poller", WindowOnLifecycle.class.getName());
			assertThat(analysis.getDescription()).contains("lifecycle bean 'poller'");
		});
	}

	@Test
	void aWindowThrowingIfNotLeaderFailsTheStart() {
		this.contextRunner.withBean("strict", WindowThrowing.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "strict", "run()");
			assertThat(analysis.getDescription()).contains("throwIfNotLeader");
		});
	}

	@Test
	void aWindowWithAKeyFailsTheStart() {
		this.contextRunner.withPropertyValues("leader.election.elections.orders.shards=4")
			.withBean("keyed", WindowWithKey.class)
			.run((context) -> {
				FailureAnalysis analysis = assertFailedNaming(context, "keyed", "run(String)");
				assertThat(analysis.getDescription()).contains("has a key").contains("that name is the key");
			});
	}

	@Test
	void aWindowWithAnElectorOfTheApplicationsFailsTheStart() {
		this.contextRunner.withBean(LeaderElector.class, StaticLeaderElector::new)
			.withBean("reports", Reports.class)
			.run((context) -> {
				FailureAnalysis analysis = assertFailedNaming(context, "reports", "daily()");
				assertThat(analysis.getDescription()).contains(StaticLeaderElector.class.getName());
			});
	}

	@Test
	void aWindowOnAnElectionForLifeFailsTheStart() {
		new ApplicationContextRunner().withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
			.withBean(KubernetesClient.class, server::newClient)
			.withPropertyValues("spring.application.name=orders", "leader.election.namespace=window-for-life",
					"POD_NAME=orders-7d9f-abcde", "leader.election.mode=for-life")
			.withBean("reports", Reports.class)
			.run((context) -> {
				FailureAnalysis analysis = assertFailedNaming(context, "reports", "daily()");
				assertThat(analysis.getDescription()).contains("runs for life");
				assertThat(analysis.getAction()).contains("leader.election.mode to lease");
			});
	}

	private static FailureAnalysis assertFailedNaming(AssertableApplicationContext context, String beanName,
			String element) {
		assertThat(context).hasFailed();
		Throwable invalid = context.getStartupFailure();
		while (invalid != null && !(invalid instanceof InvalidLeaderOnlyException)) {
			invalid = invalid.getCause();
		}
		assertThat(invalid).as("InvalidLeaderOnlyException in the causes of %s", context.getStartupFailure())
			.isNotNull();
		FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("'" + beanName + "'").contains(element);
		return analysis;
	}

	static class Reports {

		private final List<OptionalLong> tokens = new CopyOnWriteArrayList<>();

		public List<OptionalLong> tokens() {
			return this.tokens;
		}

		@LeaderOnly(atMostEvery = "1h")
		public String daily() {
			this.tokens.add(CurrentRun.fencingToken());
			return "ran";
		}

	}

	static class FromPlaceholder {

		@LeaderOnly(atMostEvery = "${jobs.every}")
		public boolean run() {
			return true;
		}

	}

	static class Exports {

		private final CompletableFuture<String> pending = new CompletableFuture<>();

		public CompletableFuture<String> pending() {
			return this.pending;
		}

		@LeaderOnly(atMostEvery = "1h")
		public CompletableFuture<String> export() {
			return this.pending;
		}

	}

	static class ShardedReports {

		@LeaderOnly(value = "orders", atMostEvery = "1h")
		public boolean daily() {
			return true;
		}

	}

	@LeaderOnly(atMostEvery = "1h")
	static class WindowOnType {

		public void run() {
		}

	}

	@LeaderOnly(atMostEvery = "1h")
	static class WindowOnLifecycle extends FlagLifecycle {

	}

	static class WindowThrowing {

		@LeaderOnly(atMostEvery = "1h", throwIfNotLeader = true)
		public void run() {
		}

	}

	static class WindowWithKey {

		@LeaderOnly(value = "orders", key = "#p0", atMostEvery = "1h")
		public void run(String day) {
		}

	}

}
