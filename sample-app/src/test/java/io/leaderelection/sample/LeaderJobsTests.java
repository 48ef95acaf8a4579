package io.leaderelection.sample;

import java.time.Instant;
import java.util.List;

import io.leaderelection.LeaderElector;
import io.leaderelection.sample.WorkJournal.Entry;
import io.leaderelection.test.AutoConfigureTestLeaderElection;
import io.leaderelection.test.LeaderElectionControl;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's scheduled jobs run only while their election is led, each under its term's
 * fencing token, with leadership handed over by the test support: no cluster, no API server.
 */
@SpringBootTest(properties = { "sample.jobs.interval=100ms", "sample.local-api-server.port=0" })
@AutoConfigureTestLeaderElection(leaderOf = LeaderJobs.REPORTS)
class LeaderJobsTests {

	@Autowired
	LeaderElectionControl leadership;

	@Autowired
	LeaderElector elector;

	@Autowired
	WorkJournal journal;

	@Test
	void eachJobRunsOnlyWhileItsElectionIsLedAndUnderItsTermsFencingToken() {
		long reportsToken = this.elector.status(LeaderJobs.REPORTS).fencingToken();
		await().until(() -> count(LeaderJobs.REPORTS, Instant.MIN) >= 2);
		assertThat(count(LeaderElector.DEFAULT_ELECTION, Instant.MIN)).isZero();

		this.leadership.grant();
		long ordersToken = this.elector.status(LeaderElector.DEFAULT_ELECTION).fencingToken();
		this.leadership.revoke(LeaderJobs.REPORTS);
		Instant revoked = Instant.now();
		await().until(() -> count(LeaderElector.DEFAULT_ELECTION, revoked) >= 3);
		// at most the one call that had passed the gate before it closed
		assertThat(count(LeaderJobs.REPORTS, revoked)).isLessThanOrEqualTo(1);
		assertThat(entries(LeaderJobs.REPORTS)).extracting(Entry::fencingToken).containsOnly(reportsToken);
		assertThat(entries(LeaderElector.DEFAULT_ELECTION)).extracting(Entry::fencingToken).containsOnly(ordersToken);
	}

	private List<Entry> entries(String election) {
		return this.journal.entries().stream().filter((entry) -> entry.election().equals(election)).toList();
	}

	private long count(String election, Instant after) {
		return entries(election).stream().filter((entry) -> entry.at().isAfter(after)).count();
	}

}
