package io.leaderelection.autoconfigure.leaderonly;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.NotLeaderException;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyInvocations.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @LeaderOnly("billing")} follows the billing election and plain {@code @LeaderOnly} the
 * default one: a replica can lead one and follow the other.
 */
class LeaderOnlyNamedElectionTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	@Test
	void leaderOfTheDefaultElectionAndFollowerOfBilling() {
		String leaseName = Replicas.freshLeaseName();
		Replicas.holdForAnHour(server, leaseName + "-billing", Replicas.OTHER_HOLDER);
		withBilling(leaseName).run((context) -> {
			Replicas.awaitLeader(context, "default");
			Replicas.awaitFollower(context, "billing");
			Accounts accounts = context.getBean(Accounts.class);
			assertThat(accounts.invoice("a")).isEqualTo("invoiced a");
			assertThat(accounts.charge("b")).isNull();
			assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> accounts.refund("c"))
				.satisfies((ex) -> {
					assertThat(ex.getElection()).isEqualTo("billing");
					assertThat(ex.getHolderIdentity()).isEqualTo(Replicas.OTHER_HOLDER);
				})
				.withMessageContaining("'billing'");
			assertThat(accounts.ran()).containsExactly("invoice a");
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			assertThat(invocations.count("default", Outcome.EXECUTED)).isOne();
			assertThat(invocations.count("default", Outcome.SKIPPED)).isZero();
			assertThat(invocations.count("billing", Outcome.EXECUTED)).isZero();
			assertThat(invocations.count("billing", Outcome.SKIPPED)).isEqualTo(2);
		});
	}

	@Test
	void leaderOfBillingAndFollowerOfTheDefaultElection() {
		String leaseName = Replicas.freshLeaseName();
		Replicas.holdForAnHour(server, leaseName, Replicas.OTHER_HOLDER);
		withBilling(leaseName).run((context) -> {
			Replicas.awaitLeader(context, "billing");
			Replicas.awaitFollower(context, "default");
			Accounts accounts = context.getBean(Accounts.class);
			assertThat(accounts.invoice("a")).isNull();
			assertThat(accounts.charge("b")).isEqualTo("charged b");
			assertThat(accounts.refund("c")).isEqualTo("refunded c");
			assertThat(accounts.ran()).containsExactly("charge b", "refund c");
			LeaderOnlyInvocations invocations = context.getBean(LeaderOnlyInvocations.class);
			assertThat(invocations.count("default", Outcome.EXECUTED)).isZero();
			assertThat(invocations.count("default", Outcome.SKIPPED)).isOne();
			assertThat(invocations.count("billing", Outcome.EXECUTED)).isEqualTo(2);
			assertThat(invocations.count("billing", Outcome.SKIPPED)).isZero();
			assertThat(Replicas.lease(server, leaseName + "-billing").getSpec().getHolderIdentity())
				.isEqualTo(context.getBean(LeaderElector.class).identity());
		});
	}

	/** A replica with the default election on the Lease and billing on the Lease + "-billing". */
	private static ApplicationContextRunner withBilling(String leaseName) {
		return Replicas.replica(server, leaseName)
			.withPropertyValues("leader.election.elections.billing.retry-period=250ms",
					"leader.election.elections.billing.lease-name=" + leaseName + "-billing")
			.withBean(Accounts.class);
	}

	static class Accounts {

		private final List<String> ran = new CopyOnWriteArrayList<>();

		/** Not gated; read through the proxy, which has no state of its own. */
		public List<String> ran() {
			return this.ran;
		}

		@LeaderOnly
		public String invoice(String account) {
			this.ran.add("invoice " + account);
			return "invoiced " + account;
		}

		@LeaderOnly("billing")
		public String charge(String account) {
			this.ran.add("charge " + account);
			return "charged " + account;
		}

		@LeaderOnly(value = "billing", throwIfNotLeader = true)
		public String refund(String account) {
			this.ran.add("refund " + account);
			return "refunded " + account;
		}

	}

}
