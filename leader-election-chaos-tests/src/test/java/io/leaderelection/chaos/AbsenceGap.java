package io.leaderelection.chaos;

import java.time.Duration;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica that saw Leases missing, then stopped seeing anything: cut off from the API server
 * or frozen ({@link Kind}). Meanwhile another replica creates each Lease and leads, and whatever
 * else is injected goes on; then the Leases are deleted again and the replica is healed (or
 * thawed) a little before or after that deletion. What the replica saw before the gap says
 * nothing about the time after it: the Leases existed meanwhile, and their leader's gate is
 * still open when the replica comes back.
 * <p>
 * It acts in steps, from {@link #step}, which the run calls every tick while it holds the fault:
 * <ol>
 * <li>once the replica has seen every Lease missing (or after {@link #SEEN_MISSING_TIMEOUT}),
 * the gap opens;</li>
 * <li>once another replica leads every election (or after {@link ChaosSettings#RECOVERY_TIMEOUT}),
 * it is held for the drawn time;</li>
 * <li>then the Leases are deleted and the gap closes, in the drawn order and that far apart; a
 * deletion that comes first comes right after one of the Leases was written (its leader renewed
 * it, as it does every retry period), so that its leader, which learns of a deletion at its next
 * renewal, keeps its gate open for as long as it can after it; if so drawn, the leaders are cut
 * off as the Leases are deleted, so that they learn nothing of it and their gates stay open
 * until their renew deadline passes;</li>
 * <li>the leaders, if cut off, are healed {@link #LEADERS_CUT} after.</li>
 * </ol>
 */
final class AbsenceGap {

	private static final Logger logger = LoggerFactory.getLogger(AbsenceGap.class);

	/** How long the gap waits for the replica to see the Leases missing before it opens regardless. */
	private static final Duration SEEN_MISSING_TIMEOUT = ChaosSettings.LEASE_DURATION.multipliedBy(2);

	/** A Lease written this recently was just written. */
	private static final Duration JUST = Duration.ofMillis(10);

	/**
	 * How long the leaders stay cut off, if they are: until their renew deadline has passed
	 * whenever they last renewed, and a retry period more.
	 */
	private static final Duration LEADERS_CUT = ChaosSettings.RENEW_DEADLINE.plus(ChaosSettings.RETRY_PERIOD);

	/** How long a deletion that comes first waits, at most, for a Lease to have just been written. */
	private static final Duration WRITE_TIMEOUT = ChaosSettings.RETRY_PERIOD.multipliedBy(2);

	private final Kind kind;

	private final ReplicaSlot replica;

	private final List<String> elections;

	private final Predicate<String> sawMissing;

	private final Runnable disarm;

	private final Predicate<String> ledByAnother;

	private final BiPredicate<String, Long> writtenSince;

	private final Consumer<List<String>> delete;

	private final Duration hold;

	private final Function<List<String>, List<ReplicaSlot>> leadersOf;

	private final boolean cutLeaders;

	private final Duration healAfterDeletion;

	private final LeadershipHistory history;

	/** The leaders this gap cut off, until it heals them, and when. */
	private List<ReplicaSlot> leadersCut = List.of();

	private long leadersCutAt;

	private Step next = Step.OPEN;

	/**
	 * When the current step began waiting: the first call of {@link #step} (the replica may still
	 * have been starting when the gap was made), the gap opened, the leaders were there, the first
	 * of deletion and heal.
	 */
	private Long stepSince;

	private boolean open;

	/**
	 * @param elections the elections whose Leases are missing, or were just deleted
	 * @param sawMissing whether the replica has seen an election's Lease missing
	 * @param disarm undoes whatever was set to open the gap on its own once the replica saw the
	 * Leases missing, when the gap opens
	 * @param ledByAnother whether a process of another replica leads the election
	 * @param writtenSince whether a version of an election's Lease was stored at or after a
	 * moment
	 * @param delete deletes the Leases of the given elections, all at once
	 * @param leadersOf the replicas leading the given elections now, the gapped one left out, and
	 * those cut off already
	 * @param cutLeaders whether to cut off the elections' leaders as their Leases are deleted again
	 * @param hold how long the gap lasts once another replica leads every election
	 * @param healAfterDeletion how long after the second deletion the gap closes; negative for
	 * before it
	 */
	AbsenceGap(Kind kind, ReplicaSlot replica, List<String> elections, Predicate<String> sawMissing,
			Runnable disarm, Predicate<String> ledByAnother, BiPredicate<String, Long> writtenSince,
			Consumer<List<String>> delete, Function<List<String>, List<ReplicaSlot>> leadersOf, boolean cutLeaders,
			Duration hold, Duration healAfterDeletion, LeadershipHistory history) {
		this.kind = kind;
		this.replica = replica;
		this.elections = List.copyOf(elections);
		this.sawMissing = sawMissing;
		this.disarm = disarm;
		this.ledByAnother = ledByAnother;
		this.writtenSince = writtenSince;
		this.delete = delete;
		this.leadersOf = leadersOf;
		this.cutLeaders = cutLeaders;
		this.hold = hold;
		this.healAfterDeletion = healAfterDeletion;
		this.history = history;
	}

	/** How it reads in the report. */
	String describe() {
		long offset = this.healAfterDeletion.toMillis();
		return this.replica.name() + " " + this.kind.opened + " once it saw " + this.elections + " missing, "
				+ this.kind.closed + " " + Math.abs(offset) + " ms " + ((offset < 0) ? "before" : "after")
				+ " they are deleted again, " + this.hold.toMillis() + " ms after another replica leads each"
				+ (this.cutLeaders ? ", their leaders cut off " + LEADERS_CUT.toMillis() + " ms from that deletion"
						: "");
	}

	ReplicaSlot replica() {
		return this.replica;
	}

	/** The leaders it has cut off and not healed yet. */
	List<ReplicaSlot> leadersCut() {
		return this.leadersCut;
	}

	/**
	 * About how long it takes: the replica sees the Leases missing within a retry period, another
	 * creates them a lease duration later, then the hold and the heal.
	 */
	Duration expectedLength() {
		return ChaosSettings.LEASE_DURATION.plus(this.hold)
			.plus(this.healAfterDeletion.abs())
			.plus(this.cutLeaders ? LEADERS_CUT : Duration.ZERO);
	}

	/** Takes the next step if it is due. */
	void step(long now) {
		if (this.stepSince == null) {
			this.stepSince = now;
		}
		switch (this.next) {
			case OPEN -> {
				List<String> notSeen = this.elections.stream().filter(this.sawMissing.negate()).toList();
				if (notSeen.isEmpty() || now - this.stepSince - SEEN_MISSING_TIMEOUT.toNanos() >= 0) {
					this.disarm.run();
					this.kind.open(this.replica);
					this.open = true;
					record(this.replica.name() + " " + this.kind.opened
							+ (notSeen.isEmpty() ? "" : ", not having seen " + notSeen + " missing"), now);
					next(Step.AWAIT_LEADERS, now);
				}
			}
			case AWAIT_LEADERS -> {
				if (this.elections.stream().allMatch(this.ledByAnother)
						|| now - this.stepSince - ChaosSettings.RECOVERY_TIMEOUT.toNanos() >= 0) {
					next(Step.FIRST_OF_DELETION_AND_HEAL, now);
				}
			}
			case FIRST_OF_DELETION_AND_HEAL -> {
				long held = now - this.stepSince - this.hold.toNanos();
				if (held >= 0 && this.healAfterDeletion.isNegative()) {
					close(now);
					next(Step.SECOND_OF_DELETION_AND_HEAL, now);
				}
				else if (held >= 0 && (this.elections.stream()
					.anyMatch((election) -> this.writtenSince.test(election, now - JUST.toNanos()))
						|| held - WRITE_TIMEOUT.toNanos() >= 0)) {
					deleteLeases(now);
					next(Step.SECOND_OF_DELETION_AND_HEAL, now);
				}
			}
			case SECOND_OF_DELETION_AND_HEAL -> {
				if (now - this.stepSince - this.healAfterDeletion.abs().toNanos() >= 0) {
					if (this.healAfterDeletion.isNegative()) {
						deleteLeases(now);
					}
					else {
						close(now);
					}
					next(Step.HEAL_LEADERS, now);
				}
			}
			case HEAL_LEADERS -> {
				if (this.leadersCut.isEmpty() || now - this.leadersCutAt - LEADERS_CUT.toNanos() >= 0) {
					healLeaders(now);
					next(Step.DONE, now);
				}
			}
			case DONE -> {
			}
		}
	}

	/** Whether every step was taken. */
	boolean done() {
		return this.next == Step.DONE;
	}

	/** Closes the gap if it is still open and heals the leaders it cut off: the fault ends, at whatever step. */
	void heal() {
		if (this.open) {
			close(System.nanoTime());
		}
		healLeaders(System.nanoTime());
	}

	private void healLeaders(long now) {
		if (!this.leadersCut.isEmpty()) {
			this.leadersCut.forEach((leader) -> leader.link().restore());
			record("leaders " + names(this.leadersCut) + " healed", now);
			this.leadersCut = List.of();
		}
	}

	private void next(Step step, long now) {
		this.next = step;
		this.stepSince = now;
	}

	private void close(long now) {
		this.kind.close(this.replica);
		this.open = false;
		record(this.replica.name() + " " + this.kind.closed, now);
	}

	private void deleteLeases(long now) {
		if (this.cutLeaders) {
			this.leadersCut = this.leadersOf.apply(this.elections);
			this.leadersCutAt = now;
			this.leadersCut.forEach((leader) -> leader.link().blackHole());
		}
		this.delete.accept(this.elections);
		record(this.elections + " deleted again"
				+ (this.leadersCut.isEmpty() ? "" : ", their leaders " + names(this.leadersCut) + " cut off"), now);
	}

	private void record(String step, long at) {
		logger.info("{}: {}", this.kind.faultKind().label(), step);
		this.history.faultStep(this.kind.faultKind(), describe(), step, at);
	}

	private static List<String> names(List<ReplicaSlot> replicas) {
		return replicas.stream().map(ReplicaSlot::name).toList();
	}

	/** How the replica stops seeing the API server. */
	enum Kind {

		/** Black-holed: nothing passes either way, its connections stay open. */
		CUT("cut off", "healed") {
			@Override
			void open(ReplicaSlot replica) {
				replica.link().blackHole();
			}

			@Override
			void close(ReplicaSlot replica) {
				replica.link().restore();
			}
		},

		/** Its process frozen ({@link Pause#freeze()}): it runs nothing until thawed. */
		FREEZE("frozen", "thawed") {
			@Override
			void open(ReplicaSlot replica) {
				replica.pause().freeze();
			}

			@Override
			void close(ReplicaSlot replica) {
				replica.pause().thaw();
			}
		};

		private final String opened;

		private final String closed;

		Kind(String opened, String closed) {
			this.opened = opened;
			this.closed = closed;
		}

		abstract void open(ReplicaSlot replica);

		abstract void close(ReplicaSlot replica);

		FaultKind faultKind() {
			return (this == CUT) ? FaultKind.FOLLOWER_CUT_WHILE_MISSING : FaultKind.FROZEN_WHILE_MISSING;
		}

	}

	private enum Step {

		OPEN, AWAIT_LEADERS, FIRST_OF_DELETION_AND_HEAL, SECOND_OF_DELETION_AND_HEAL, HEAL_LEADERS, DONE

	}

}
