package io.leaderelection.controlplane;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import io.fabric8.kubernetes.client.Config;
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
 * A highly available control plane: two API servers on one etcd, the replicas spread over them,
 * each through a TCP proxy of its own. One replica's link is cut or slowed, or a follower reads
 * through an API server whose view of the Leases lags behind etcd's.
 */
class TwoApiServersTests {

	private static final String LEASE = "orders-leader";

	/** Longer than the renew deadline: a renewal sent through the slowed link arrives after the gate closed. */
	private static final Duration SLOW_LINK = RENEW_DEADLINE.plusMillis(500);

	/**
	 * How long etcd's answers and events take to reach the lagging API server: the proxy holds what
	 * it receives for this long, and what arrives while it holds (a stream of events) waits for the
	 * next turn, so the lag is between once and twice this.
	 */
	private static final Duration LAG = Duration.ofMillis(500);

	private FaultReplicas replicas;

	private ApiServer first;

	private final Map<EngineReplica, LinkProxy> links = new HashMap<>();

	private final Map<EngineReplica, ApiServer> servers = new HashMap<>();

	@BeforeEach
	void start() {
		this.replicas = new FaultReplicas(ControlPlane.shared(), "two-apiservers", "default", DocumentedRoles.LEASES);
		this.first = ControlPlane.shared().apiServer();
	}

	@AfterEach
	void stop() {
		this.replicas.close();
	}

	/**
	 * The leader's link cut: its renewals go nowhere, its gate closes a renew deadline after its
	 * last successful renewal was sent, and only then, a lease duration after the followers saw
	 * that renewal, does one of them take over. Restored, the old leader follows.
	 */
	@Test
	void theLeadersLinkCut() {
		ApiServer second = this.replicas.startApiServer("kube-apiserver-2");
		EngineReplica leader = startSpread(second);
		awaitFollowersWatching(leader);

		long cutAt = System.nanoTime();
		this.links.get(leader).cut();
		EngineReplica next = this.replicas.awaitLeaderOtherThan(leader, LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)).plusSeconds(2));
		Terms.Term lost = this.replicas.terms().all().get(0);
		Terms.Term taken = this.replicas.terms().all().get(1);
		assertThat(lost.cause).isEqualTo(RevocationCause.RENEW_DEADLINE_PASSED);
		Duration gateAfterCut = Duration.ofNanos(lost.closedAt - cutAt);
		Duration takenAfterCut = Duration.ofNanos(taken.openedAt - cutAt);
		assertThat(gateAfterCut).as("the cut-off leader's gate open after the cut").isLessThanOrEqualTo(RENEW_DEADLINE);
		assertThat(takenAfterCut).as("from the cut to the next leader")
			.isLessThanOrEqualTo(LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)));

		long restoreMark = this.servers.get(leader).auditLog().mark();
		this.links.get(leader).restore();
		awaitFollowing(leader, next);
		this.replicas.report("two API servers, the leader's link cut", LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)),
				"leader on " + this.servers.get(leader).name() + ", its gate closed " + gateAfterCut.toMillis()
						+ " ms after the cut, " + next + " on " + this.servers.get(next).name() + " led "
						+ takenAfterCut.toMillis() + " ms after the cut; restored, the old leader's writes held "
						+ "meanwhile were answered "
						+ FaultReplicas.byCode(writes(leader, restoreMark)));
	}

	/** A follower's link cut: nothing changes for the leader; restored, the follower watches again. */
	@Test
	void aFollowersLinkCut() {
		ApiServer second = this.replicas.startApiServer("kube-apiserver-2");
		EngineReplica leader = startSpread(second);
		awaitFollowersWatching(leader);
		EngineReplica follower = this.replicas.others(leader).get(0);

		this.links.get(follower).cut();
		Duration cut = LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2));
		await("the leader keeping its term").during(cut)
			.atMost(cut.plusSeconds(2))
			.until(() -> leader.isLeader("default") && this.replicas.terms().count() == 1);
		this.links.get(follower).restore();
		awaitFollowing(follower, leader);
		assertThat(this.replicas.terms().count()).isEqualTo(1);
		this.replicas.report("two API servers, a follower's link cut", Duration.ZERO,
				"follower " + follower + " on " + this.servers.get(follower).name() + " cut for " + cut.toMillis()
						+ " ms, then followed the renewals by watch again; leader " + leader + " on " + this.servers.get(leader).name()
						+ " kept its term");
	}

	/**
	 * What the leader sends held longer than the renew deadline: its renewals time out, its gate
	 * closes on time, and the renewals arrive after that. Each was sent at the version held, so one
	 * could still be stored, renewing the Lease for a replica whose gate is closed; over HTTP/2 the
	 * client's cancellation of a request that timed out follows it on the same connection, and the
	 * API server drops the request (504, context canceled) instead.
	 */
	@Test
	void theLeadersRequestsHeldLongerThanTheRenewDeadline() {
		slowTheLeadersLink("requests", (link) -> link.delayRequests(SLOW_LINK));
	}

	/**
	 * The API server's answers to the leader held longer than the renew deadline: its renewals are
	 * stored at once, but it learns of none in time; its gate closes on time, and the followers,
	 * who see the renewals stored, wait a lease duration after the last one.
	 */
	@Test
	void theLeadersAnswersHeldLongerThanTheRenewDeadline() {
		slowTheLeadersLink("answers", (link) -> link.delayAnswers(SLOW_LINK));
	}

	private void slowTheLeadersLink(String held, Consumer<LinkProxy> slow) {
		ApiServer second = this.replicas.startApiServer("kube-apiserver-2");
		EngineReplica leader = startSpread(second);
		awaitFollowersWatching(leader);

		ApiServer leadersServer = this.servers.get(leader);
		long mark = leadersServer.auditLog().mark();
		int renewedBefore = this.replicas.renewals(leader.identity());
		long slowedAt = System.nanoTime();
		slow.accept(this.links.get(leader));
		// a renewal sent just before the gate closed may be stored as late as twice the delay later
		// (the proxy holds what arrives while it holds for another turn); a lease duration after that
		// the followers may claim
		Duration heldAtMost = SLOW_LINK.multipliedBy(2);
		Duration bound = heldAtMost.plus(LEASE_DURATION).plus(RETRY_PERIOD.multipliedBy(2));
		EngineReplica next = this.replicas.awaitLeaderOtherThan(leader, bound.plusSeconds(2));
		Terms.Term lost = this.replicas.terms().all().get(0);
		Terms.Term taken = this.replicas.terms().all().get(1);
		assertThat(lost.cause).isEqualTo(RevocationCause.RENEW_DEADLINE_PASSED);
		Duration gateAfterSlowing = Duration.ofNanos(lost.closedAt - slowedAt);
		assertThat(gateAfterSlowing).as("the slowed leader's gate open after its link slowed")
			.isLessThanOrEqualTo(RENEW_DEADLINE);

		// what the slowed leader sent, and what it was answered, has arrived once the delay has passed
		await("the held requests and answers arriving").during(heldAtMost)
			.atMost(heldAtMost.plusSeconds(2))
			.until(() -> this.replicas.terms().count() == 2);
		this.links.get(leader).removeDelays();
		int learned = this.replicas.renewals(leader.identity()) - renewedBefore;
		List<AuditLog.Request> writes = writes(leader, mark);
		long stored = writes.stream().filter((request) -> request.code() == 200).count();
		awaitFollowing(leader, next);
		this.replicas.report("two API servers, the leader's " + held + " held " + SLOW_LINK.toMillis() + " ms", bound,
				"leader on " + leadersServer.name() + ", its gate closed " + gateAfterSlowing.toMillis()
						+ " ms after its link slowed; its renewals since were answered " + FaultReplicas.byCode(writes)
						+ ", " + (stored - learned) + " of them stored without its knowing; " + next + " led "
						+ Duration.ofNanos(taken.openedAt - slowedAt).toMillis() + " ms after the link slowed");
	}

	/**
	 * A follower reads through an API server whose view of the Leases lags behind etcd (its link
	 * to etcd holds every answer and event of etcd {@link #LAG} to twice that), while the leader and
	 * the other follower talk to the first server: the lagging follower sees each renewal late and
	 * never takes the Lease of the live leader; when the leader is killed, the other follower, which
	 * saw its last renewal first, takes over a lease duration later, and the lagging follower's
	 * claim, at the version it saw, is refused as a conflict.
	 */
	@Test
	void aFollowerReadingThroughALaggingApiServer() {
		LinkProxy etcdLink = this.replicas.linkToPort(etcdPort());
		ApiServer lagging = this.replicas.startApiServerOn(etcdLink.httpUrl(), "kube-apiserver-lagging");
		ElectionSettings election = this.replicas.election(LEASE);
		Config[] configs = { this.replicas.config("replica-1", this.first),
				this.replicas.config("replica-2", lagging), this.replicas.config("replica-3", this.first) };
		// from now on, etcd's answers and events reach that server a lag late
		etcdLink.delayAnswers(LAG);
		EngineReplica leader = this.replicas.start("replica-1", configs[0], List.of(election));
		this.servers.put(leader, this.first);
		this.replicas.awaitLeader();
		EngineReplica behind = this.replicas.start("replica-2", configs[1], List.of(election));
		this.servers.put(behind, lagging);
		EngineReplica other = this.replicas.start("replica-3", configs[2], List.of(election));
		this.servers.put(other, this.first);
		awaitFollowersWatching(leader);

		// the lagging follower sees the renewals late, and the leader keeps its term
		Duration[] seenLate = { Duration.ZERO };
		await("the leader keeping its term").during(LEASE_DURATION.multipliedBy(2))
			.atMost(LEASE_DURATION.multipliedBy(2).plusSeconds(2))
			.until(() -> {
				Instant written = leader.status("default").renewTime();
				Instant seen = behind.status("default").renewTime();
				if (written != null && seen != null && Duration.between(seen, written).compareTo(seenLate[0]) > 0) {
					seenLate[0] = Duration.between(seen, written);
				}
				return leader.isLeader("default") && this.replicas.terms().count() == 1;
			});
		assertThat(seenLate[0]).as("how far behind the leader's renewals the lagging follower's view was")
			.isGreaterThanOrEqualTo(LAG);

		// the leader killed: the other follower takes over; the lagging one's claim comes later
		long mark = lagging.auditLog().mark();
		long killedAt = System.nanoTime();
		leader.kill();
		// the lagging follower sees the last renewal up to twice the lag late, and its claim is
		// answered up to twice the lag late
		Duration takeoverBound = LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)).plus(LAG.multipliedBy(4));
		EngineReplica next = this.replicas.awaitLeaderOtherThan(leader, takeoverBound.plusSeconds(2));
		Duration takeover = Duration.ofNanos(this.replicas.terms().all().get(1).openedAt - killedAt);
		assertThat(takeover).as("from the leader's kill to a follower leading").isLessThanOrEqualTo(takeoverBound);
		await("the lagging follower seeing " + next).atMost(FaultReplicas.ELECTION_TIMEOUT)
			.until(() -> next.identity().equals(behind.status("default").holderIdentity()));
		await("nobody else leading").during(LEASE_DURATION).atMost(LEASE_DURATION.plusSeconds(2))
			.until(() -> next.isLeader("default") && this.replicas.terms().count() == 2);
		List<AuditLog.Request> claims = writes(behind, mark);
		this.replicas.report("a follower reading through an API server lagging " + LAG.toMillis() + "-"
				+ LAG.multipliedBy(2).toMillis() + " ms", takeoverBound,
				"the lagging follower saw the renewals up to " + seenLate[0].toMillis() + " ms late and never took the "
						+ "Lease of the live leader; after its kill " + next + " on " + this.servers.get(next).name()
						+ " led " + takeover.toMillis() + " ms later; the lagging follower's writes meanwhile: "
						+ FaultReplicas.byCode(claims));
	}

	/** Starts replica-1 and replica-3 on the first API server, replica-2 on the second, each through a proxy. */
	private EngineReplica startSpread(ApiServer second) {
		ElectionSettings election = this.replicas.election(LEASE);
		for (int i = 1; i <= 3; i++) {
			String identity = "replica-" + i;
			ApiServer server = (i == 2) ? second : this.first;
			LinkProxy link = this.replicas.link(server);
			EngineReplica replica = this.replicas.start(identity, this.replicas.config(identity, server, link),
					List.of(election));
			this.links.put(replica, link);
			this.servers.put(replica, server);
		}
		return this.replicas.awaitLeader();
	}

	private void awaitFollowersWatching(EngineReplica leader) {
		await("the followers watching").atMost(FaultReplicas.ELECTION_TIMEOUT)
			.until(() -> this.replicas.others(leader)
				.stream()
				.allMatch((follower) -> this.replicas.openWatches(this.servers.get(follower), 0, follower, LEASE) >= 1));
	}

	/**
	 * Waits until the replica sees the given leader, and then checks that it follows it by watch:
	 * its view of the Lease keeps up with the leader's renewals while it does not read the Lease.
	 */
	private void awaitFollowing(EngineReplica follower, EngineReplica leader) {
		ApiServer server = this.servers.get(follower);
		await(follower + " seeing " + leader).atMost(FaultReplicas.ELECTION_TIMEOUT)
			.until(() -> leader.identity().equals(follower.status("default").holderIdentity())
					&& this.replicas.openWatches(server, 0, follower, LEASE) >= 1);
		long mark = server.auditLog().mark();
		Set<Instant> seen = new HashSet<>();
		await(follower + " following " + leader + "'s renewals").during(RETRY_PERIOD.multipliedBy(4))
			.atMost(RETRY_PERIOD.multipliedBy(4).plusSeconds(2))
			.until(() -> seen.add(follower.status("default").renewTime()) || true);
		assertThat(follower.isLeader("default")).isFalse();
		assertThat(seen).as("renewals %s saw in %s ms", follower, RETRY_PERIOD.multipliedBy(4).toMillis())
			.hasSizeGreaterThanOrEqualTo(3);
		// one read may follow the watch's opening, which the server logs before the client hears of
		// it; a follower that polled would read four times
		assertThat(this.replicas.reads(server, mark, follower, LEASE)).as("reads of the Lease by %s meanwhile", follower)
			.hasSizeLessThanOrEqualTo(1);
	}

	/** The writes of the Lease by the replica through its server since the mark. */
	private List<AuditLog.Request> writes(EngineReplica replica, long mark) {
		return this.replicas.leaseRequests(this.servers.get(replica), mark, replica, LEASE)
			.stream()
			.filter((request) -> request.verb().equals("update"))
			.toList();
	}

	private static int etcdPort() {
		String url = ControlPlane.shared().etcd().url();
		return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
	}

}
