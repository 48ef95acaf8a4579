package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.List;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.leaderelection.controlplane.FaultReplicas.LEASE_DURATION;
import static io.leaderelection.controlplane.FaultReplicas.RENEW_DEADLINE;
import static io.leaderelection.controlplane.FaultReplicas.RETRY_PERIOD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The API server that three replicas talk to is killed while the leader renews, and started again
 * on the same etcd and port: every watch it served ends, every connection resets, and its watch
 * cache starts over at etcd's current revision, so that a watch resumed from a version before the
 * restart is answered 410 Gone. The leader must close its gate once it could not renew within the
 * renew deadline (never later), the followers must watch again once the server is back, and a
 * leader must be elected a lease duration and two retry periods after it is, at the latest.
 */
class ApiServerRestartTests {

	private static final String LEASE = "orders-leader";

	private FaultReplicas replicas;

	private ApiServer server;

	@BeforeEach
	void start() {
		this.replicas = new FaultReplicas(ControlPlane.shared(), "apiserver-restart", "default",
				DocumentedRoles.LEASES);
		this.server = this.replicas.startApiServer("kube-apiserver-restarted");
	}

	@AfterEach
	void stop() {
		this.replicas.close();
	}

	/** Started again at once: down for as long as it takes to start, about a renew deadline here. */
	@Test
	void killedWhileTheLeaderRenewsAndStartedAgainAtOnce() {
		killAndStartAgain("API server restarted at once", Duration.ZERO);
	}

	/** Down for longer than a lease duration: every gate closes, nobody can take over meanwhile. */
	@Test
	void killedWhileTheLeaderRenewsAndStartedAgainAfterMoreThanALeaseDuration() {
		killAndStartAgain("API server down for more than a lease duration", LEASE_DURATION.plus(RETRY_PERIOD));
	}

	private void killAndStartAgain(String fault, Duration downAtLeast) {
		ElectionSettings election = this.replicas.election(LEASE);
		for (int i = 1; i <= 3; i++) {
			String identity = "replica-" + i;
			this.replicas.start(identity, this.replicas.config(identity, this.server), List.of(election));
		}
		EngineReplica leader = this.replicas.awaitLeader();
		awaitFollowersWatching(leader, 0);
		int renewed = this.replicas.renewals(leader.identity());
		await("renewals of " + leader).atMost(RENEW_DEADLINE)
			.until(() -> this.replicas.renewals(leader.identity()) >= renewed + 2);

		long mark = this.server.auditLog().mark();
		int renewedAtKill = this.replicas.renewals(leader.identity());
		long killedAt = System.nanoTime();
		this.server.kill();
		if (!downAtLeast.isZero()) {
			// nobody can write meanwhile: no gate opens, and the leader's closes within its renew deadline
			await("no new term while the API server is down").during(downAtLeast)
				.atMost(downAtLeast.plusSeconds(2))
				.until(() -> this.replicas.terms().count() == 1);
			assertThat(leader.isLeader("default")).as("the leader's gate after %s down", downAtLeast).isFalse();
		}
		this.replicas.startAgain(this.server);
		long readyAt = System.nanoTime();
		Duration down = Duration.ofNanos(readyAt - killedAt);

		EngineReplica next = this.replicas.awaitLeaderOtherThan(null,
				LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)).plusSeconds(5));
		Terms.Term first = this.replicas.terms().all().get(0);
		String firstTerm;
		if (first.closedAt != Long.MAX_VALUE) {
			Duration gateOpenAfterKill = Duration.ofNanos(first.closedAt - killedAt);
			assertThat(first.cause).as("why %s's first term ended", leader).isEqualTo(RevocationCause.RENEW_DEADLINE_PASSED);
			assertThat(gateOpenAfterKill).as("the leader's gate open after the kill").isLessThanOrEqualTo(RENEW_DEADLINE);
			firstTerm = "leader's gate closed " + gateOpenAfterKill.toMillis() + " ms after the kill ("
					+ first.cause + ")";
		}
		else {
			// the restarted server answered a renewal before the renew deadline passed: it serves
			// requests as soon as it listens, before /readyz says it is ready
			assertThat(next).as("the leader kept its term").isSameAs(leader);
			assertThat(this.replicas.renewals(leader.identity())).as("renewals of %s", leader)
				.isGreaterThan(renewedAtKill);
			firstTerm = "leader kept its term (the server answered a renewal before its renew deadline, "
					+ "before /readyz said ready)";
		}
		Terms.Term current = this.replicas.terms().all().get(this.replicas.terms().count() - 1);
		Duration electedAfterReady = Duration.ofNanos(Math.max(0, current.openedAt - readyAt));
		if (current != first) {
			assertThat(electedAfterReady).as("a leader elected after the API server was back")
				.isLessThanOrEqualTo(LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)));
		}

		// the followers watch again, through the restarted server, and do not poll
		String watchesAfter = awaitFollowersWatching(next, mark);
		long readMark = this.server.auditLog().mark();
		long quietFrom = System.nanoTime();
		await("the new leader keeps its term").during(LEASE_DURATION)
			.atMost(LEASE_DURATION.plusSeconds(2))
			.until(() -> next.isLeader("default") && this.replicas.terms().count() == termsNow());
		Duration quiet = Duration.ofNanos(System.nanoTime() - quietFrom);
		int reads = this.replicas.others(next).stream()
			.mapToInt((follower) -> this.replicas.reads(this.server, readMark, follower, LEASE).size())
			.sum();
		long polls = quiet.toNanos() / RETRY_PERIOD.toNanos();
		// one read each may follow the watch's opening, which the server logs before the client hears of it
		assertThat(reads).as("reads of the Lease by the two followers in %s ms after they watched again", quiet.toMillis())
			.isLessThanOrEqualTo(2);

		this.replicas.report(fault, down.plus(LEASE_DURATION).plus(RETRY_PERIOD.multipliedBy(2)),
				"down " + down.toMillis() + " ms; " + firstTerm + "; next gate opened "
						+ electedAfterReady.toMillis() + " ms after the server was ready; the followers' watches after the restart: "
						+ watchesAfter + "; then they read the Lease " + reads + " times in "
						+ quiet.toMillis() + " ms (polling would be " + (2 * polls) + "); answered by the server while "
						+ "it started, before it was ready: " + FaultReplicas.byCode(this.replicas.refusedWhileStarting()));
	}

	private int termsNow() {
		return this.replicas.terms().count();
	}

	/**
	 * Waits until every replica but the leader has a watch of the Lease open on the server, begun
	 * since the mark, for a while (a watch the server refuses ends at once); tells how many watches
	 * the client resumed from a version meanwhile, with the server's answers, and how many the
	 * engine opened from now. A restarted server refuses resumptions with 403 before it is ready;
	 * then it serves them from etcd while its watch cache fills (resilient watch cache
	 * initialization), and refuses them with 410 once its cache, beginning after that version, is
	 * filled: the engine then opens a watch from now.
	 */
	private String awaitFollowersWatching(EngineReplica leader, long mark) {
		List<EngineReplica> followers = this.replicas.others(leader);
		await("the followers watching the Lease").atMost(FaultReplicas.ELECTION_TIMEOUT)
			.during(Duration.ofMillis(300))
			.until(() -> followers.stream()
				.allMatch((follower) -> !this.replicas.watchesOpened(this.server, mark, follower, LEASE).isEmpty()
						&& this.replicas.openWatches(this.server, mark, follower, LEASE) >= 1));
		List<AuditLog.Request> watches = followers.stream()
			.flatMap((follower) -> this.replicas.watchesOpened(this.server, mark, follower, LEASE).stream())
			.toList();
		List<AuditLog.Request> resumed = watches.stream().filter((watch) -> FaultReplicas.watchedFrom(watch) > 0).toList();
		return resumed.size() + " resumed by the client from a version (" + FaultReplicas.byCode(resumed) + "), "
				+ (watches.size() - resumed.size()) + " opened from now";
	}

}
