package io.leaderelection.autoconfigure.leaderonly;

import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionFailureAnalysis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @LeaderOnly} naming an election that is not configured fails the start, and the
 * failure analyzer names the bean and lists the configured elections.
 */
class LeaderOnlyUnknownElectionTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	@Test
	void unknownElectionOnAMethodFailsTheStart() {
		withBilling().withBean("nightlyJobs", NightlyJobs.class)
			.run((context) -> assertFailedNaming(context, "nightlyJobs"));
	}

	@Test
	void unknownElectionOnALifecycleTypeFailsTheStart() {
		withBilling().withBean("nopePoller", NopePoller.class)
			.run((context) -> assertFailedNaming(context, "nopePoller"));
	}

	@Test
	void configuredElectionsStartFine() {
		withBilling().withBean("billingJobs", BillingJobs.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(BillingJobs.class);
			Replicas.awaitLeader(context, "billing");
		});
	}

	private static ApplicationContextRunner withBilling() {
		String leaseName = Replicas.freshLeaseName();
		return Replicas.replica(server, leaseName)
			.withPropertyValues("leader.election.elections.billing.retry-period=250ms",
					"leader.election.elections.billing.lease-name=" + leaseName + "-billing");
	}

	private static void assertFailedNaming(AssertableApplicationContext context, String beanName) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		// thrown as is once every singleton exists, or as the cause of a wrapping exception
		assertThat(NestedExceptionUtils.getMostSpecificCause(failure)).isInstanceOf(UnknownLeaderOnlyElectionException.class)
			.hasMessageContaining("'" + beanName + "'");
		FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("@LeaderOnly(\"nope\")")
			.contains("'" + beanName + "'")
			.contains("[default, billing]");
		assertThat(analysis.getAction()).contains("leader.election.elections.nope.");
	}

	static class NightlyJobs {

		@LeaderOnly
		public void compact() {
		}

		@LeaderOnly("nope")
		public void purge() {
		}

	}

	@LeaderOnly("nope")
	static class NopePoller extends FlagLifecycle {

	}

	static class BillingJobs {

		@LeaderOnly("billing")
		public void charge() {
		}

	}

}
