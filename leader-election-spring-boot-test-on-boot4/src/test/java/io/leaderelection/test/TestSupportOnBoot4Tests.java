package io.leaderelection.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.StepDown;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test support, built once against Spring Framework's test API, on Spring Boot 4 and Spring
 * Framework 7: the annotation is found, the elector runs in memory, the control hands leadership
 * over with its effects.
 */
@SpringBootTest(classes = TestSupportOnBoot4Tests.Orders.class)
@AutoConfigureTestLeaderElection(leaderOf = {})
// closed after the class: no other test of this module shares it, and its threads would count in theirs
@DirtiesContext
class TestSupportOnBoot4Tests {

	@Autowired
	LeaderElectionControl leadership;

	@Autowired
	LeaderElector elector;

	@Autowired
	Reconciler reconciler;

	@Test
	void grantsRevokesAndStepsDownOnBoot4() {
		assertThat(this.elector.status("default").holderIdentity()).isEqualTo(LeaderElectionControl.OTHER_REPLICA);
		this.reconciler.reconcile("order-1");
		this.leadership.grant();
		this.reconciler.reconcile("order-2");
		this.leadership.revoke();
		this.reconciler.reconcile("order-3");
		this.leadership.grant();
		assertThat(this.leadership.stepDown().release()).isEqualTo(StepDown.Release.WRITTEN);
		this.reconciler.reconcile("order-4");
		assertThat(this.reconciler.reconciled()).containsExactly("order-2");
	}

	@SpringBootApplication
	static class Orders {

		@Bean
		Reconciler reconciler() {
			return new Reconciler();
		}

	}

	static class Reconciler {

		private final List<String> reconciled = new CopyOnWriteArrayList<>();

		@LeaderOnly
		public void reconcile(String order) {
			this.reconciled.add(order);
		}

		public List<String> reconciled() {
			return this.reconciled;
		}

	}

}
