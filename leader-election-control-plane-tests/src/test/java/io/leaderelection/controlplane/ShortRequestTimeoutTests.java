package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.leaderelection.controlplane.FaultReplicas.LEASE_DURATION;
import static io.leaderelection.controlplane.FaultReplicas.RETRY_PERIOD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three replicas on an API server started with {@code --min-request-timeout=1}, which ends every
 * watch after one to two seconds (a watch's timeout is drawn between once and twice that): the
 * followers' watches are resumed over and over, the leader keeps its term throughout, and a
 * graceful release is taken over through a watch.
 */
class ShortRequestTimeoutTests {

	private static final String LEASE = "orders-leader";

	/** How long the leader must keep its term while the followers' watches keep ending. */
	private static final Duration WATCHES_ENDING_FOR = Duration.ofSeconds(6);

	private static final int HANDOVERS = 4;

	/**
	 * How long fabric8's client waits before it resumes a watch that the server ended (its
	 * {@code watchReconnectInterval}, 1 s by default): meanwhile the engine believes it watches,
	 * and learns of a release when the watch is resumed from the last version it told.
	 */
	private static final Duration CLIENT_RESUMES_AFTER = Duration.ofSeconds(1);

	/**
	 * A handover of a release takes the release's write, its event on a follower's watch, and the
	 * follower's claim: a few round trips, unless every follower's watch is between its end and its
	 * resumption, which adds up to {@link #CLIENT_RESUMES_AFTER}. A retry period of slack.
	 */
	private static final Duration HANDOVER_BOUND = CLIENT_RESUMES_AFTER.plus(RETRY_PERIOD);

	private FaultReplicas replicas;

	@BeforeEach
	void start() {
		this.replicas = new FaultReplicas(ControlPlane.shared(), "short-watches", "default", DocumentedRoles.LEASES);
	}

	@AfterEach
	void stop() {
		this.replicas.close();
	}

	@Test
	void theLeaderKeepsItsTermAndAReleaseIsTakenOverThroughAWatchThatEndsEverySecondOrTwo() {
		ApiServer server = this.replicas.startApiServer("kube-apiserver-short-watches", "--min-request-timeout=1");
		ElectionSettings election = this.replicas.election(LEASE);
		for (int i = 1; i <= 3; i++) {
			String identity = "replica-" + i;
			this.replicas.start(identity, this.replicas.config(identity, server), List.of(election));
		}
		EngineReplica leader = this.replicas.awaitLeader();
		List<EngineReplica> followers = this.replicas.others(leader);
		await("the followers watching").atMost(FaultReplicas.ELECTION_TIMEOUT)
			.until(() -> followers.stream()
				.allMatch((follower) -> !this.replicas.watchesOpened(server, 0, follower, LEASE).isEmpty()));

		long mark = server.auditLog().mark();
		int renewed = this.replicas.renewals(leader.identity());
		await("the leader keeping its term while the watches end").during(WATCHES_ENDING_FOR)
			.atMost(WATCHES_ENDING_FOR.plusSeconds(2))
			.until(() -> leader.isLeader("default") && this.replicas.terms().count() == 1);
		int renewals = this.replicas.renewals(leader.identity()) - renewed;
		List<Integer> reopened = new ArrayList<>();
		List<Integer> resumed = new ArrayList<>();
		int reads = 0;
		for (EngineReplica follower : followers) {
			List<AuditLog.Request> watches = this.replicas.watchesOpened(server, mark, follower, LEASE);
			reopened.add(watches.size());
			resumed.add((int) watches.stream().filter((watch) -> FaultReplicas.watchedFrom(watch) > 0).count());
			reads += this.replicas.reads(server, mark, follower, LEASE).size();
		}
		assertThat(reopened).as("watches each follower opened in %s", WATCHES_ENDING_FOR)
			.allSatisfy((count) -> assertThat(count).isGreaterThanOrEqualTo(2));
		assertThat(reads).as("reads of the Lease by the followers while the leader renewed").isLessThanOrEqualTo(2);

		// graceful releases, each taken over through a follower's watch
		List<Long> handovers = new ArrayList<>();
		EngineReplica current = leader;
		for (int i = 0; i < HANDOVERS; i++) {
			int before = this.replicas.terms().count();
			current.engine().stepDown("default");
			EngineReplica stepped = current;
			current = this.replicas.awaitLeaderOtherThan(stepped, LEASE_DURATION);
			List<Terms.Term> terms = this.replicas.terms().all();
			assertThat(terms).hasSize(before + 1);
			handovers.add(terms.get(before - 1).until(terms.get(before)).toMillis());
			EngineReplica next = current;
			// the new leader renews, and the others follow it by watch again, before the next step-down
			await().atMost(FaultReplicas.ELECTION_TIMEOUT).until(() -> this.replicas.renewals(next.identity()) >= 2);
		}
		long slowest = handovers.stream().mapToLong(Long::longValue).max().orElseThrow();
		assertThat(slowest).as("handovers (ms) of a release, through the watches: %s", handovers)
			.isLessThanOrEqualTo(HANDOVER_BOUND.toMillis());

		this.replicas.report("API server with --min-request-timeout=1",
				HANDOVER_BOUND.multipliedBy(HANDOVERS),
				"the leader renewed " + renewals + " times in " + WATCHES_ENDING_FOR.toMillis()
						+ " ms while each follower's watch was opened " + reopened + " times (" + resumed
						+ " of them resumed from a version by the client), followers read the Lease " + reads
						+ " times; handovers of a release " + handovers + " ms");
	}

}
