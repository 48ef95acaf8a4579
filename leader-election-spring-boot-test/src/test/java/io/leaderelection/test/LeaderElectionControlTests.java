package io.leaderelection.test;

import io.leaderelection.LeaderElector;
import io.leaderelection.StepDown;
import io.leaderelection.UnknownElectionException;
import io.leaderelection.test.OrdersApplication.InvoicePoller;
import io.leaderelection.test.OrdersApplication.LeadershipEvents;
import io.leaderelection.test.OrdersApplication.Reconciler;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every change the controller makes has the production effects, each there when the call
 * returns: gate, events with the election as role, gated beans, fencing token, counts and metrics.
 */
@SpringBootTest(properties = "management.endpoint.health.show-details=always")
@AutoConfigureTestLeaderElection(leaderOf = "billing")
class LeaderElectionControlTests {

	@Autowired
	LeaderElectionControl leadership;

	@Autowired
	LeaderElector elector;

	@Autowired
	Reconciler reconciler;

	@Autowired
	InvoicePoller invoicePoller;

	@Autowired
	LeadershipEvents events;

	@Autowired
	MeterRegistry meters;

	@Autowired
	HealthEndpoint health;

	@Test
	void grantsRevokesAndStepsDownWithEveryEffectOfProduction() {
		// at start: leads billing, follows default, whose Lease the other replica holds
		assertThat(this.elector.isLeader("billing")).isTrue();
		assertThat(this.invoicePoller.isRunning()).isTrue();
		assertThat(this.elector.isLeader()).isFalse();
		assertThat(this.elector.status("default").holderIdentity()).isEqualTo(LeaderElectionControl.OTHER_REPLICA);
		assertThat(this.events.heard()).containsExactly("granted billing");
		assertThat(this.health.health().getStatus().getCode()).isEqualTo("UP");

		this.leadership.grant();
		long firstToken = this.elector.status("default").fencingToken();
		this.reconciler.reconcile("order-1");
		assertThat(gauge("default")).isEqualTo(1);

		this.leadership.revoke("billing");
		assertThat(this.invoicePoller.isRunning()).isFalse();
		assertThat(this.elector.status("billing").holderIdentity()).isEqualTo(LeaderElectionControl.OTHER_REPLICA);
		assertThat(gauge("billing")).isZero();

		StepDown stepDown = this.leadership.stepDown();
		assertThat(stepDown.release()).isEqualTo(StepDown.Release.WRITTEN);
		this.reconciler.reconcile("order-2");
		assertThat(this.reconciler.reconciled()).containsExactly("order-1");
		assertThat(invocations("executed")).isEqualTo(1);
		assertThat(invocations("skipped")).isEqualTo(1);

		this.leadership.grant();
		this.leadership.grant("billing");
		assertThat(this.elector.status("default").fencingToken()).isGreaterThan(firstToken);
		assertThat(this.invoicePoller.isRunning()).isTrue();
		assertThat(this.events.heard()).containsExactly("granted billing", "granted default", "revoked billing",
				"revoked default", "granted default", "granted billing");
	}

	@Test
	void grantingAnElectionThatIsNotConfiguredNamesIt() {
		assertThatThrownBy(() -> this.leadership.grant("shipping")).isInstanceOf(UnknownElectionException.class)
			.hasMessageContaining("shipping");
	}

	private double gauge(String election) {
		return this.meters.get("leader.election.leader").tag("election", election).gauge().value();
	}

	private double invocations(String outcome) {
		return this.meters.get("leader.only.invocations")
			.tags("election", "default", "outcome", outcome)
			.functionCounter()
			.count();
	}

}
