package io.leaderelection.test;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderStatus;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application that runs its elections for-life is tested as any other: the test support
 * elects on Leases in memory, with neither a Pod nor POD_NAME.
 */
@SpringBootTest(properties = { "leader.election.mode=for-life", "leader.election.elections.billing.mode=for-life" })
@AutoConfigureTestLeaderElection
class ForLifeApplicationTests {

	@Autowired
	LeaderElector elector;

	@Autowired
	LeaderElectionControl leadership;

	@Test
	void forLifeElectionsRunInMemoryAndAreControlledAsAnyOther() {
		assertThat(this.elector.isLeader()).isTrue();
		assertThat(this.elector.isLeader("billing")).isTrue();
		assertThat(this.elector.status("billing").mode()).isEqualTo(LeaderStatus.LEASE_MODE);
		this.leadership.revoke("billing");
		assertThat(this.elector.isLeader("billing")).isFalse();
	}

}
