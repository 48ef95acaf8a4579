package io.leaderelection.test;

import io.leaderelection.test.OrdersApplication.Reconciler;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

// docs/testing.md
@SpringBootTest
@AutoConfigureTestLeaderElection(leaderOf = {})    // a follower of every election at start
class ReconcilerTests {

	@Autowired
	LeaderElectionControl leadership;

	@Autowired
	Reconciler reconciler;

	@Test
	void reconcilesOnlyWhileLeading() {
		this.reconciler.reconcile("order-1");       // skipped: a follower
		this.leadership.grant();                     // the other replica releases; this one leads
		this.reconciler.reconcile("order-2");
		this.leadership.revoke();                    // the other replica takes the Lease over
		this.reconciler.reconcile("order-3");        // skipped again
		assertThat(this.reconciler.reconciled()).containsExactly("order-2");
	}

}
