package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.leaderelection.RevocationCause;
import io.leaderelection.Shard;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.kubernetes.LeaseLabels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.leaderelection.controlplane.FaultReplicas.LEASE_DURATION;
import static io.leaderelection.controlplane.FaultReplicas.RETRY_PERIOD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Lease deleted by an administrator while its replica runs, and the replica's next write of it,
 * which the real API server answers differently from the mock: an update naming the uid it was
 * read with is refused with 409 and a failed uid precondition (whether or not another replica has
 * created the Lease again meanwhile), which the store tells as a Lease not found; an update without
 * uid creates the Lease again (201).
 */
class DeletedLeaseTests {

	private static final String LEASE = "orders-leader";

	private FaultReplicas replicas;

	@AfterEach
	void stop() {
		if (this.replicas != null) {
			this.replicas.close();
		}
	}

	/**
	 * The leader's Lease deleted: the leader's gate closes at its next renewal, as LEASE_DELETED,
	 * after one request; a follower that saw the deletion creates the Lease again without holder,
	 * and claims it a lease duration later, with a higher fencing token.
	 */
	@Test
	void theLeadersLeaseDeletedClosesItsGateAtItsNextRenewal() {
		deleteTheLeadersLease(false);
	}

	/**
	 * The same while the followers' links are cut, so that none creates the Lease again before the
	 * leader's renewal: that one is an update of a Lease that does not exist at all, which the real
	 * server refuses the same way. The leader creates the Lease again itself, without holder.
	 */
	@Test
	void theLeadersLeaseDeletedWhileNoFollowerCanCreateItAgainClosesItsGateAtItsNextRenewal() {
		deleteTheLeadersLease(true);
	}

	private void deleteTheLeadersLease(boolean followersCut) {
		this.replicas = new FaultReplicas(ControlPlane.shared(), "lease-deleted", "default", DocumentedRoles.LEASES);
		ControlPlane controlPlane = ControlPlane.shared();
		ApiServer server = controlPlane.apiServer();
		ElectionSettings election = this.replicas.election(LEASE);
		Map<EngineReplica, LinkProxy> links = new HashMap<>();
		for (int i = 1; i <= 3; i++) {
			String identity = "replica-" + i;
			LinkProxy link = this.replicas.link(server);
			links.put(this.replicas.start(identity, this.replicas.config(identity, server, link), List.of(election)),
					link);
		}
		EngineReplica leader = this.replicas.awaitLeader();
		if (followersCut) {
			this.replicas.others(leader).forEach((follower) -> links.get(follower).cut());
		}
		int renewed = this.replicas.renewals(leader.identity());
		await().atMost(FaultReplicas.ELECTION_TIMEOUT).until(() -> this.replicas.renewals(leader.identity()) >= renewed + 2);
		String deletedUid = this.replicas.lease(LEASE).getMetadata().getUid();

		long mark = server.auditLog().mark();
		controlPlane.admin().leases().inNamespace(this.replicas.namespace().name()).withName(LEASE).delete();
		long deletedAt = System.nanoTime();
		await("the leader's gate closed").atMost(FaultReplicas.RENEW_DEADLINE)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.replicas.terms().all().get(0).closedAt != Long.MAX_VALUE);
		Terms.Term first = this.replicas.terms().all().get(0);
		Duration toClosing = Duration.ofNanos(first.closedAt - deletedAt);
		long closedMark = server.auditLog().mark();
		assertThat(first.cause).isEqualTo(RevocationCause.LEASE_DELETED);
		// its next renewal is at most a renew period away, and is answered at once
		assertThat(toClosing).as("from the deletion to the leader's gate closing").isLessThanOrEqualTo(RETRY_PERIOD.multipliedBy(2));

		List<AuditLog.Request> leadersWrites = this.replicas.leaseRequests(server, mark, leader, LEASE)
			.stream()
			.filter((request) -> request.verb().equals("update"))
			.toList();
		String users = "system:serviceaccount:" + this.replicas.namespace().name() + ":";
		List<AuditLog.Request> order = server.auditLog()
			.since(mark, (request) -> request.user().startsWith(users) && FaultReplicas.isLease(request, LEASE)
					&& (request.verb().equals("update") || request.verb().equals("create")));
		List<AuditLog.Request> untilClosed = order.subList(0,
				order.size() - server.auditLog()
					.since(closedMark, (request) -> request.user().startsWith(users)
							&& FaultReplicas.isLease(request, LEASE)
							&& (request.verb().equals("update") || request.verb().equals("create")))
					.size());
		assertThat(leadersWrites).as("the leader's writes after the deletion").isNotEmpty();
		assertThat(leadersWrites.get(0).code()).as("the real server's answer to the renewal of a deleted Lease")
			.isEqualTo(409);

		links.values().forEach(LinkProxy::restore);
		EngineReplica next = this.replicas.awaitLeaderOtherThan(null,
				LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)).plusSeconds(5));
		Lease created = this.replicas.lease(LEASE);
		assertThat(created.getMetadata().getUid()).isNotEqualTo(deletedUid);
		Terms.Term second = this.replicas.terms().all().get(1);
		this.replicas.report(followersCut ? "leader's Lease deleted, followers cut off" : "leader's Lease deleted",
				LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)),
				"gate closed " + toClosing.toMillis() + " ms after the deletion (" + first.cause + ") after "
						+ untilClosed.stream().filter((request) -> request.user().endsWith(":" + leader.identity())).count()
						+ " request(s); writes of the Lease until then, in order: "
						+ untilClosed.stream().map(DeletedLeaseTests::brief).collect(Collectors.joining(", "))
						+ "; next term " + next + " with fencing token " + second.fencingToken + " after "
						+ first.fencingToken + ", " + first.until(second).toMillis() + " ms later");
	}

	/**
	 * The member Lease of one replica of a balanced group deleted while it runs: the replica's next
	 * heartbeat, an update without uid, creates it again, and no Lease of the group changes hands.
	 */
	@Test
	void aMemberLeaseOfABalancedGroupDeletedIsCreatedAgainByItsNextHeartbeat() {
		// the report counts the terms of the first shard; each shard's are checked below
		this.replicas = new FaultReplicas(ControlPlane.shared(), "member-deleted", new Shard("default", 0, 3).name(),
				DocumentedRoles.LEASES, DocumentedRoles.SHARDS);
		ControlPlane controlPlane = ControlPlane.shared();
		ApiServer server = controlPlane.apiServer();
		ElectionSettings sharded = new ElectionSettings("default", this.replicas.namespace().name(), LEASE,
				LEASE_DURATION, FaultReplicas.RENEW_DEADLINE, RETRY_PERIOD)
			.renewingEvery(RETRY_PERIOD);
		List<ElectionSettings> shards = IntStream.range(0, 3).mapToObj((i) -> sharded.shard(i, 3, true)).toList();
		List<Terms> terms = shards.stream().map((shard) -> new Terms(shard.name())).toList();
		List<EngineReplica> started = new ArrayList<>();
		for (int i = 1; i <= 3; i++) {
			String identity = "replica-" + i;
			ElectionListener[] recorders = terms.stream()
				.map((shardTerms) -> shardTerms.recorderFor(identity))
				.toArray(ElectionListener[]::new);
			started.add(this.replicas.start(identity, this.replicas.config(identity, server), shards, recorders));
		}
		// balanced: each replica leads one shard
		await("one shard each").atMost(FaultReplicas.ELECTION_TIMEOUT.multipliedBy(2))
			.until(() -> started.stream()
				.allMatch((replica) -> shards.stream().filter((shard) -> replica.isLeader(shard.name())).count() == 1));
		List<Integer> termsBefore = terms.stream().map(Terms::count).toList();

		EngineReplica deleted = started.get(1);
		Lease member = memberLease(deleted);
		long mark = server.auditLog().mark();
		controlPlane.admin().leases().inNamespace(this.replicas.namespace().name()).withName(member.getMetadata().getName())
			.delete();
		long deletedAt = System.nanoTime();
		await("the member Lease back").atMost(FaultReplicas.RENEW_DEADLINE).pollInterval(Duration.ofMillis(10))
			.until(() -> {
				Lease back = this.replicas.lease(member.getMetadata().getName());
				return back != null && !back.getMetadata().getUid().equals(member.getMetadata().getUid());
			});
		Duration backAfter = Duration.ofNanos(System.nanoTime() - deletedAt);
		Lease back = this.replicas.lease(member.getMetadata().getName());
		assertThat(back.getSpec().getHolderIdentity()).isEqualTo(deleted.identity());
		assertThat(back.getMetadata().getLabels()).containsEntry(LeaseLabels.MEMBER_OF, LeaseLabels.value(LEASE));
		List<AuditLog.Request> writes = this.replicas.leaseRequests(server, mark, deleted, member.getMetadata().getName())
			.stream()
			.filter((request) -> request.verb().equals("update") || request.verb().equals("create"))
			.toList();
		assertThat(writes).as("the member's writes of its record after the deletion").isNotEmpty();
		assertThat(writes.get(0).verb() + " " + writes.get(0).code())
			.as("the real server's answer to an update without uid of a deleted Lease")
			.isEqualTo("update 201");

		await("no shard changing hands").during(LEASE_DURATION.multipliedBy(2))
			.atMost(LEASE_DURATION.multipliedBy(2).plusSeconds(2))
			.until(() -> terms.stream().map(Terms::count).toList().equals(termsBefore)
					&& started.stream()
						.allMatch((replica) -> shards.stream().filter((shard) -> replica.isLeader(shard.name())).count() == 1));
		terms.forEach(Terms::assertSafe);
		this.replicas.report("member Lease of a balanced group deleted", Duration.ZERO,
				"the member's record was back " + backAfter.toMillis() + " ms after the deletion, by "
						+ writes.stream().map(DeletedLeaseTests::brief).collect(Collectors.joining(", "))
						+ "; shard terms " + termsBefore + " before and after");
	}

	private Lease memberLease(EngineReplica replica) {
		return ControlPlane.shared()
			.admin()
			.leases()
			.inNamespace(this.replicas.namespace().name())
			.withLabel(LeaseLabels.MEMBER_OF)
			.list()
			.getItems()
			.stream()
			.filter((lease) -> replica.identity().equals(lease.getSpec().getHolderIdentity()))
			.findFirst()
			.orElseThrow();
	}

	private static String brief(AuditLog.Request request) {
		return request.user().substring(request.user().lastIndexOf(':') + 1) + " " + request.verb() + " "
				+ request.code();
	}

}
