package io.leaderelection.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The kinds of fault a chaos run injects, in the order each round shuffles them, and which of
 * them may not be held together: one mix for electors on renewed Leases, one for leader-for-life,
 * one for balanced shards, one for a user's cluster.
 */
enum FaultMix {

	/**
	 * Every kind but those that need Pods and those of balanced shards: the mix of this project's
	 * lease mode and of fabric8, in the order of {@link FaultKind}, so that a seed draws the same
	 * faults as before the for-life and shard kinds were added (not as before
	 * {@link FaultKind#FOLLOWER_CUT_WHILE_MISSING}, {@link FaultKind#FROZEN_WHILE_MISSING} and
	 * {@link FaultKind#EXIT_REPORTED}, which it includes).
	 */
	LEASE(EnumSet.complementOf(EnumSet.of(FaultKind.EVICTION, FaultKind.CONTAINER_RESTART, FaultKind.REPLICA_JOINS,
			FaultKind.REPLICA_LEAVES))),

	/**
	 * The faults of {@link #LEASE} that a real API server lets a run inject: all but four. The
	 * 500 answers to one replica ({@link FaultKind#SERVER_ERRORS}): a real server gives them only
	 * when it fails. The gaps across an absence ({@link FaultKind#FOLLOWER_CUT_WHILE_MISSING},
	 * {@link FaultKind#FROZEN_WHILE_MISSING}): they time the cut or the freeze on the answer to a
	 * read, which the mock server tells before the replica receives it, a real server's audit log
	 * after. And {@link FaultKind#PREFERRED_HOLDER}: the API server drops {@code spec.preferredHolder}
	 * and {@code spec.strategy} from every write unless its CoordinatedLeaderElection feature gate
	 * is on (beta, off by default, in Kubernetes 1.36), so a foreign writer cannot set them. And
	 * {@link FaultKind#EXIT_REPORTED}, whose Pods the control-plane run does not create
	 * (`ExitTakeoverTests` of the control-plane tests covers it there).
	 */
	CONTROL_PLANE(EnumSet.complementOf(EnumSet.of(FaultKind.EVICTION, FaultKind.CONTAINER_RESTART,
			FaultKind.REPLICA_JOINS, FaultKind.REPLICA_LEAVES, FaultKind.SERVER_ERRORS,
			FaultKind.FOLLOWER_CUT_WHILE_MISSING, FaultKind.FROZEN_WHILE_MISSING, FaultKind.PREFERRED_HOLDER,
			FaultKind.EXIT_REPORTED))),

	/**
	 * Balanced shards: every kind of {@link #LEASE} but {@link FaultKind#EXIT_REPORTED}, and replicas joining
	 * ({@link FaultKind#REPLICA_JOINS}) and leaving ({@link FaultKind#REPLICA_LEAVES}) the
	 * group, so that the members hand shards over to each other while the other faults strike.
	 */
	SHARDED(EnumSet.complementOf(EnumSet.of(FaultKind.EVICTION, FaultKind.CONTAINER_RESTART,
			FaultKind.EXIT_REPORTED))),

	/**
	 * A user's cluster, as an application on the starter meets it: cuts of the leader and of
	 * followers (also ones that began while the Lease was missing), slow links, frozen processes,
	 * Lease deletions (also under a cut-off leader), step-downs under leader work (also with a job
	 * longer than the drain timeout), and restarts, graceful and abrupt. Meant to be injected all
	 * at once, each fault arriving while others are held ({@link ChaosSettings#mixedFaultEvery()}).
	 */
	USERS_CLUSTER(EnumSet.of(FaultKind.GRACEFUL_STOP, FaultKind.ABRUPT_STOP, FaultKind.BLACK_HOLE, FaultKind.LATENCY,
			FaultKind.PAUSE, FaultKind.LEASE_DELETED, FaultKind.LEASE_DELETED_CUT_OFF, FaultKind.STEP_DOWN,
			FaultKind.DRAIN_TIMEOUT, FaultKind.FOLLOWER_CUT_WHILE_MISSING, FaultKind.FROZEN_WHILE_MISSING)),

	/**
	 * Leader-for-life: every kind but these.
	 * <ul>
	 * <li>{@link FaultKind#DUPLICATE_IDENTITY}, a lease-mode fault: a for-life holder's identity is
	 * its Pod's name, which Kubernetes keeps unique in a namespace, and a Pod runs one process of
	 * its container at a time (a restarted container's process starts once the old one has died:
	 * that is {@link FaultKind#CONTAINER_RESTART}). Two live processes under one identity do not
	 * happen.</li>
	 * <li>{@link FaultKind#PREFERRED_HOLDER}, a lease-mode fault: KEP-4355's coordinated election
	 * hands a renewed Lease over at its next renewal; a for-life lock is never renewed, and its
	 * term ends only when it is released or its Pod ends.</li>
	 * <li>{@link FaultKind#CLOCK_SHIFT}: nothing for life is judged by a wall clock (no expiry; a
	 * deletion's grace period runs on the follower's monotonic clock), so a shift tests nothing
	 * there, and its seconds are better spent on the short run's budget.</li>
	 * <li>{@link FaultKind#FOLLOWER_CUT_WHILE_MISSING} and {@link FaultKind#FROZEN_WHILE_MISSING}:
	 * they delete a lock under a live leader that a follower cannot have seen held, the limit
	 * {@link #deletesLocksOnlyOnceSeen()} keeps out.</li>
	 * </ul>
	 * (Nor the kinds of balanced shards, {@link #SHARDED}, nor {@link FaultKind#EXIT_REPORTED}, lease
	 * mode's takeover on the kubelet's word: for life has {@link FaultKind#EVICTION}.)
	 */
	FOR_LIFE(EnumSet.complementOf(EnumSet.of(FaultKind.DUPLICATE_IDENTITY, FaultKind.PREFERRED_HOLDER,
			FaultKind.CLOCK_SHIFT, FaultKind.FOLLOWER_CUT_WHILE_MISSING, FaultKind.FROZEN_WHILE_MISSING,
			FaultKind.REPLICA_JOINS, FaultKind.REPLICA_LEAVES, FaultKind.EXIT_REPORTED)));

	/**
	 * Faults never held together with others, in any mix: they disturb every replica's
	 * writes, so that a release of a leader's own accord held with them would become a loss of
	 * its Lease.
	 */
	private static final Set<FaultKind> HELD_ALONE = EnumSet.of(FaultKind.SERVER_RESTART, FaultKind.CONFLICT_STORM);

	/** The faults injected twice in each round ({@link #round()}). */
	private static final Set<FaultKind> TWICE_A_ROUND = EnumSet.of(FaultKind.FOLLOWER_CUT_WHILE_MISSING,
			FaultKind.FROZEN_WHILE_MISSING);

	/** The faults that start a new process in a replica when they are healed (or may, for a drain timeout). */
	private static final Set<FaultKind> STARTING_PROCESSES = EnumSet.of(FaultKind.GRACEFUL_STOP, FaultKind.ABRUPT_STOP,
			FaultKind.DRAIN_TIMEOUT, FaultKind.EVICTION, FaultKind.CONTAINER_RESTART, FaultKind.REPLICA_JOINS,
			FaultKind.REPLICA_LEAVES);

	/**
	 * Set to {@code true} to put back, for life, the combination of faults that the README
	 * documents as opening two gates; see {@link #deletesLocksOnlyOnceSeen()}.
	 */
	static final String DOCUMENTED_LIMIT_PROPERTY = "chaos.forLife.documentedLimit";

	private final Set<FaultKind> kinds;

	FaultMix(Set<FaultKind> kinds) {
		this.kinds = kinds;
	}

	/** The kinds of this mix, in the order of {@link FaultKind}. */
	List<FaultKind> kinds() {
		return Arrays.stream(FaultKind.values()).filter(this.kinds::contains).toList();
	}

	/**
	 * The faults of one round, shuffled by the run: every kind once, and, but for balanced shards,
	 * the kinds of {@link #TWICE_A_ROUND} twice. A gap across an absence opens two gates only when
	 * its heal lands before the leader learns of the deletion, and each round should give a
	 * regression of the rule on absence more than one chance to show. (A round of balanced shards,
	 * each fault waiting for 32 shards to have leaders, takes most of the time its short run has.)
	 */
	List<FaultKind> round() {
		List<FaultKind> round = new ArrayList<>(kinds());
		if (this != SHARDED) {
			round.addAll(kinds().stream().filter(TWICE_A_ROUND::contains).toList());
		}
		return round;
	}

	/** Whether the kind is injected alone, nothing held with it. */
	boolean heldAlone(FaultKind kind) {
		return HELD_ALONE.contains(kind);
	}

	/**
	 * Whether a fault of the second kind may be injected while one of the first kind is held.
	 * <p>
	 * For life, the deletion of a cut-off leader's lock ({@link FaultKind#LEASE_DELETED_CUT_OFF},
	 * held until that leader has seen the deletion and created its lock again) is never held
	 * together with a fault that starts a new process, in either order: see
	 * {@link #deletesLocksOnlyOnceSeen()}.
	 */
	boolean mayHoldTogether(FaultKind held, FaultKind injected) {
		if (!deletesLocksOnlyOnceSeen()) {
			return true;
		}
		return !(held == FaultKind.LEASE_DELETED_CUT_OFF && STARTING_PROCESSES.contains(injected))
				&& !(injected == FaultKind.LEASE_DELETED_CUT_OFF && STARTING_PROCESSES.contains(held));
	}

	/**
	 * Whether, for life, a leader's locks are deleted ({@link FaultKind#LEASE_DELETED},
	 * {@link FaultKind#LEASE_DELETED_CUT_OFF}) only once every running process has seen them
	 * held by that leader, and whether a cut-off leader's deletion is kept apart from the faults
	 * that start processes ({@link #mayHoldTogether}). True for life, unless
	 * {@value #DOCUMENTED_LIMIT_PROPERTY} is set. (Both deletions are also held, for life, until
	 * the leader has seen them and created its locks again, so that no later fault starts a
	 * process, or cuts the leader off, before it knows.)
	 * <p>
	 * That leaves out one combination, and only that one: the limit the README documents under
	 * "Two leaders anyway", a for-life lock deleted by hand while its leader runs. Followers that
	 * saw the lock held wait for its owner Pod to be gone, as they must; but a process that never
	 * saw it (one started after the deletion, or one whose first read had not succeeded when it
	 * came) finds no lock and creates its own, while the leader, cut off or not yet told of the
	 * deletion, keeps its gate open. No elector can tell a lock deleted by hand from one never
	 * created, so this opens two gates by design, as a run with the property set shows (see
	 * {@code docs/chaos-report.md}, "Leader for life"). Every other fault is still held with the
	 * deletions, and the deletion under a healthy leader with any fault.
	 */
	boolean deletesLocksOnlyOnceSeen() {
		return this == FOR_LIFE && !Boolean.getBoolean(DOCUMENTED_LIMIT_PROPERTY);
	}

}
