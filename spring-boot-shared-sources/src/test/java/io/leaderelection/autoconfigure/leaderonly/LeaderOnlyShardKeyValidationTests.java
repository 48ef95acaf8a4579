package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionFailureAnalysis;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key is required on the methods of a sharded election and allowed nowhere else: a
 * {@code @LeaderOnly} that does not fit its election fails the start, and the failure analyzer
 * names the bean and the method. Standalone, where the one replica leads every shard.
 */
class LeaderOnlyShardKeyValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class))
		.withPropertyValues("leader.election.mode=standalone", "leader.election.elections.orders.shards=4",
				"leader.election.elections.billing.lease-name=bills");

	@Test
	void standaloneLeadsEveryShardAndRunsTheCallOfEveryKeyCountedUnderItsShard() {
		this.contextRunner.withBean("orderJobs", OrderJobs.class).run((context) -> {
			assertThat(context).hasNotFailed();
			LeaderElector elector = context.getBean(LeaderElector.class);
			assertThat(elector.ownedShards("orders")).containsExactly(0, 1, 2, 3);
			OrderJobs jobs = context.getBean(OrderJobs.class);
			for (int id = 0; id < 20; id++) {
				jobs.process(id);
			}
			assertThat(jobs.processed()).hasSize(20);
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			long executed = 0;
			for (int shard = 0; shard < 4; shard++) {
				executed += invocations.count("orders-" + shard + "-of-4", Outcome.EXECUTED);
			}
			assertThat(executed).isEqualTo(20);
			assertThat(invocations.count("orders", Outcome.EXECUTED)).isZero();
			assertThat(invocations.count("orders-" + elector.shardOf("orders", "7") + "-of-4", Outcome.EXECUTED))
				.isPositive();
		});
	}

	@Test
	void aKeyOnAnElectionThatIsNotShardedFailsTheStart() {
		this.contextRunner.withBean("billingJobs", KeyOnBilling.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "billingJobs", "charge(String)");
			assertThat(analysis.getDescription()).contains("election 'billing' is not sharded");
			assertThat(analysis.getAction()).contains("leader.election.elections.billing.shards");
		});
	}

	@Test
	void noKeyOnAMethodOfAShardedElectionFailsTheStart() {
		this.contextRunner.withBean("orderJobs", NoKey.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "orderJobs", "process(long)");
			assertThat(analysis.getDescription()).contains("has no key").contains("sharded into 4");
			assertThat(analysis.getAction()).contains("key = ");
		});
	}

	@Test
	void aKeyThatDoesNotParseFailsTheStart() {
		this.contextRunner.withBean("orderJobs", UnparsableKey.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "orderJobs", "process(long)");
			assertThat(analysis.getDescription()).contains("does not parse").contains("#id +");
		});
	}

	@Test
	void aTypeGatedByAShardedElectionFailsTheStart() {
		this.contextRunner.withBean("orderReports", TypeOnOrders.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "orderReports", TypeOnOrders.class.getName());
			assertThat(analysis.getDescription()).contains("every public method").contains("sharded");
		});
	}

	@Test
	void aLifecycleBeanGatedByAShardedElectionFailsTheStart() {
		this.contextRunner.withBean("orderPoller", OrderPoller.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "orderPoller", OrderPoller.class.getName());
			assertThat(analysis.getDescription()).contains("lifecycle bean").contains("sharded");
		});
	}

	@Test
	void aKeyOnATypeFailsTheStart() {
		this.contextRunner.withBean("billingReports", KeyOnType.class).run((context) -> {
			FailureAnalysis analysis = assertFailedNaming(context, "billingReports", KeyOnType.class.getName());
			assertThat(analysis.getDescription()).contains("only a method's annotation can have");
		});
	}

	@Test
	void anUnknownElectionListsTheShardedElectionByItsName() {
		this.contextRunner.withBean("nightlyJobs", UnknownElection.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(UnknownLeaderOnlyElectionException.class)
				.hasMessageContaining("orders")
				.hasMessageNotContaining("-of-4");
		});
	}

	private static FailureAnalysis assertFailedNaming(AssertableApplicationContext context, String beanName,
			String element) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		// thrown as is once every singleton exists; a key that does not parse keeps the parser's failure as its cause
		Throwable invalid = failure;
		while (invalid != null && !(invalid instanceof InvalidLeaderOnlyException)) {
			invalid = invalid.getCause();
		}
		assertThat(invalid).as("InvalidLeaderOnlyException in the causes of %s", failure).isNotNull();
		FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("'" + beanName + "'").contains(element);
		return analysis;
	}

	static class OrderJobs {

		private final List<Long> processed = new CopyOnWriteArrayList<>();

		public List<Long> processed() {
			return this.processed;
		}

		@LeaderOnly(value = "orders", key = "#id")
		public void process(long id) {
			this.processed.add(id);
		}

	}

	static class KeyOnBilling {

		@LeaderOnly(value = "billing", key = "#account")
		public void charge(String account) {
		}

	}

	static class NoKey {

		@LeaderOnly("orders")
		public void process(long id) {
		}

	}

	static class UnparsableKey {

		@LeaderOnly(value = "orders", key = "#id +")
		public void process(long id) {
		}

	}

	@LeaderOnly("orders")
	static class TypeOnOrders {

		public void report() {
		}

	}

	@LeaderOnly(value = "billing", key = "#p0")
	static class KeyOnType {

		public void report(String day) {
		}

	}

	static class UnknownElection {

		@LeaderOnly("nope")
		public void purge() {
		}

	}

	@LeaderOnly("orders")
	static class OrderPoller extends FlagLifecycle {

	}

}
