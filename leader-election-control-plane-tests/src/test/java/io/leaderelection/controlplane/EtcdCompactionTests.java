package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.leaderelection.engine.ElectionSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.leaderelection.controlplane.FaultReplicas.LEASE_DURATION;
import static io.leaderelection.controlplane.FaultReplicas.RETRY_PERIOD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * etcd compacted past the version a follower's watch resumes from, so that the resumption is
 * answered 410 Gone and the follower must open a watch from now: with a leader renewing the Lease,
 * and with a Lease left unchanged (replicas that only follow it), whose last version is older than
 * the compaction however long ago it was written. Instead of waiting the five minutes between the
 * API server's own compactions, the test compacts etcd at its current revision.
 * <p>
 * The replicas talk to an API server without watch cache ({@code --watch-cache=false}), which
 * serves each watch from etcd: an API server's watch cache does not learn of a compaction made
 * through etcd's own API and goes on serving the versions it holds (checked on 1.36: a watch from a
 * compacted version is accepted there), so only a watch served by etcd, or by a cache started
 * after that version (see {@link ApiServerRestartTests}), shows the compaction. The watches end
 * when their connections are reset, as a load balancer or a network would, each replica through a
 * proxy of its own; the client then resumes them from the last version it saw.
 */
class EtcdCompactionTests {

	private static final String LEASE = "orders-leader";

	private FaultReplicas replicas;

	private ApiServer server;

	private final Map<EngineReplica, LinkProxy> links = new HashMap<>();

	@BeforeEach
	void start() {
		this.replicas = new FaultReplicas(ControlPlane.shared(), "etcd-compacted", "default", DocumentedRoles.LEASES);
		this.server = this.replicas.startApiServer("kube-apiserver-etcd-watches", "--watch-cache=false");
	}

	@AfterEach
	void stop() {
		this.replicas.close();
	}

	/**
	 * The followers' watches resumed after a compaction, while the leader renews: they resume from
	 * the last renewal they were told, unless etcd compacted past it, and are opened from now if
	 * not; the leader keeps its term, and a release is taken over through a watch.
	 */
	@Test
	void compactedWhileFollowersWatchALeaseTheLeaderRenews() {
		ElectionSettings election = this.replicas.election(LEASE);
		for (int i = 1; i <= 3; i++) {
			start("replica-" + i, election, false);
		}
		EngineReplica leader = this.replicas.awaitLeader();
		List<EngineReplica> followers = this.replicas.others(leader);
		awaitWatching(followers, 0, 0);

		long mark = this.server.auditLog().mark();
		long markedAt = System.nanoTime();
		long compacted = this.replicas.writeSomethingElseAndCompact();
		followers.forEach((follower) -> this.links.get(follower).resetConnections());
		awaitWatching(followers, mark, compacted);
		await("the leader keeping its term").during(LEASE_DURATION)
			.atMost(LEASE_DURATION.plusSeconds(2))
			.until(() -> leader.isLeader("default") && this.replicas.terms().count() == 1);
		Watches watches = watches(followers, mark, markedAt, compacted);

		// a release, taken over through a watch: far sooner than a poll
		leader.engine().stepDown("default");
		EngineReplica next = this.replicas.awaitLeaderOtherThan(leader, LEASE_DURATION);
		List<Terms.Term> terms = this.replicas.terms().all();
		Duration handover = terms.get(0).until(terms.get(1));
		assertThat(handover).as("handover of a release through the watches").isLessThan(RETRY_PERIOD);

		this.replicas.report("etcd compacted while the leader renews", RETRY_PERIOD,
				"compacted at revision " + compacted + "; " + watches + "; handover of a release to " + next + " "
						+ handover.toMillis() + " ms");
	}

	/**
	 * Replicas that only follow a Lease nobody holds, which stays unchanged: every resumption of
	 * their watches after the compaction is answered 410, and each opens a watch from now; when
	 * one of them campaigns, the others learn of its term through their watches.
	 */
	@Test
	void compactedPastALeaseLeftUnchangedWhileReplicasOnlyFollowIt() {
		ElectionSettings election = this.replicas.election(LEASE);
		for (int i = 1; i <= 3; i++) {
			start("replica-" + i, election, true);
		}
		List<EngineReplica> all = this.replicas.replicas();
		awaitWatching(all, 0, 0);
		long version = Long.parseLong(this.replicas.lease(LEASE).getMetadata().getResourceVersion());

		long mark = this.server.auditLog().mark();
		long markedAt = System.nanoTime();
		long compacted = this.replicas.writeSomethingElseAndCompact();
		assertThat(compacted).isGreaterThan(version + 1);
		all.forEach((replica) -> this.links.get(replica).resetConnections());
		awaitWatching(all, mark, compacted);
		await("nobody claiming").during(LEASE_DURATION)
			.atMost(LEASE_DURATION.plusSeconds(2))
			.until(() -> this.replicas.terms().count() == 0);
		Watches watches = watches(all, mark, markedAt, compacted);

		EngineReplica campaigning = all.get(0);
		campaigning.engine().start();
		await("a leader").atMost(LEASE_DURATION.plus(RETRY_PERIOD.multipliedBy(2)))
			.until(() -> campaigning.isLeader("default"));
		long grantedAt = this.replicas.terms().all().get(0).openedAt;
		await("the followers seeing the new holder").atMost(LEASE_DURATION.multipliedBy(2))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.replicas.others(campaigning)
				.stream()
				.allMatch((follower) -> campaigning.identity().equals(follower.status("default").holderIdentity())));
		Duration seenAfter = Duration.ofNanos(System.nanoTime() - grantedAt);
		// a follower without a working watch would read the Lease only a retry period later, or a
		// lease duration later when it believes its watch works
		assertThat(seenAfter).as("from the grant to the followers seeing it").isLessThan(RETRY_PERIOD);

		this.replicas.report("etcd compacted past a Lease left unchanged", Duration.ZERO,
				"Lease version " + version + ", compacted at revision " + compacted + "; " + watches
						+ "; the followers saw the new holder " + seenAfter.toMillis() + " ms after its grant");
	}

	private EngineReplica start(String identity, ElectionSettings election, boolean followOnly) {
		LinkProxy link = this.replicas.link(this.server);
		EngineReplica replica = followOnly
				? this.replicas.follow(identity, this.replicas.config(identity, this.server, link), List.of(election))
				: this.replicas.start(identity, this.replicas.config(identity, this.server, link), List.of(election));
		this.links.put(replica, link);
		return replica;
	}

	/**
	 * Waits until each of the replicas has opened a watch since the mark that etcd does not refuse
	 * (from now, or resumed from a version that was not compacted), and has one open: one the
	 * server has begun and not ended.
	 */
	private void awaitWatching(List<EngineReplica> replicas, long mark, long compacted) {
		await("watches opened").atMost(FaultReplicas.ELECTION_TIMEOUT)
			.until(() -> replicas.stream()
				.allMatch((replica) -> this.replicas.watchesOpened(this.server, mark, replica, LEASE)
					.stream()
					.anyMatch((watch) -> FaultReplicas.watchedFrom(watch) < 0
							|| FaultReplicas.watchedFrom(watch) + 1 >= compacted)
						&& this.replicas.openWatches(this.server, mark, replica, LEASE) >= 1));
	}

	/**
	 * The watches the replicas opened since the mark: resumed by the client from a version older
	 * than the compaction (answered 410), resumed from a newer one, and opened from now by the
	 * engine; and their reads of the Lease, which a replica polling each retry period would
	 * multiply. A follower reads once after each watch it opens from now.
	 */
	private Watches watches(List<EngineReplica> replicas, long mark, long markedAt, long compacted) {
		Duration since = Duration.ofNanos(System.nanoTime() - markedAt);
		List<Integer> gone = new ArrayList<>();
		List<Integer> resumed = new ArrayList<>();
		List<Integer> fresh = new ArrayList<>();
		List<Integer> reads = new ArrayList<>();
		for (EngineReplica replica : replicas) {
			List<AuditLog.Request> opened = this.replicas.watchesOpened(this.server, mark, replica, LEASE);
			// etcd refuses a watch whose first revision, one after the version it resumes from, was compacted
			gone.add((int) opened.stream()
				.filter((watch) -> FaultReplicas.watchedFrom(watch) > 0 && FaultReplicas.watchedFrom(watch) + 1 < compacted)
				.count());
			resumed.add((int) opened.stream()
				.filter((watch) -> FaultReplicas.watchedFrom(watch) + 1 >= compacted)
				.count());
			fresh.add((int) opened.stream().filter((watch) -> FaultReplicas.watchedFrom(watch) < 0).count());
			reads.add(this.replicas.reads(this.server, mark, replica, LEASE).size());
		}
		for (int i = 0; i < replicas.size(); i++) {
			assertThat(fresh.get(i)).as("watches %s opened from now, after %s resumptions were refused 410",
					replicas.get(i), gone.get(i))
				.isGreaterThanOrEqualTo(gone.get(i));
			// one read after each watch opened from now, and one a lease duration for a replica that
			// waits for a free Lease it may not claim (one that only follows); polling, one a retry period
			assertThat(reads.get(i))
				.as("reads of the Lease by %s in the %s ms since the compaction, with %s watches from now",
						replicas.get(i), since.toMillis(), fresh.get(i))
				.isLessThanOrEqualTo(fresh.get(i) + 1 + (int) (since.toNanos() / LEASE_DURATION.toNanos()));
		}
		return new Watches(gone, resumed, fresh, reads, since, (int) (since.toNanos() / RETRY_PERIOD.toNanos()));
	}

	private record Watches(List<Integer> gone, List<Integer> resumed, List<Integer> fresh, List<Integer> reads,
			Duration since, int polls) {

		@Override
		public String toString() {
			return "watches per replica resumed from before the compaction (410) " + this.gone + ", resumed after it "
					+ this.resumed + ", opened from now " + this.fresh + ", reads of the Lease " + this.reads + " in "
					+ this.since.toMillis() + " ms (polling: " + this.polls + " each)";
		}

	}

}
