package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.leaderelection.LeaderStatus;
import io.leaderelection.Shard;
import io.leaderelection.store.MembershipStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spreads the Leases of one group (the shards of an election, or the application's balanced
 * elections) over the replicas campaigning in it, without a coordinator. Each replica makes itself
 * known through a {@link MembershipStore} record it renews every retry period, and counts a member
 * live while it has seen that record change within a renew deadline, and while it holds one of
 * the group's Leases or joined less than two lease durations ago: a member that renews its record
 * but never manages to claim (cut off from the Leases, refused its writes) would otherwise be
 * waited for forever, and Leases handed over to it would only go round. With N Leases and M live
 * members, none holds more than ceil(N/M):
 * <ul>
 * <li>a member above its share hands one Lease over at a time, as a step-down does (drain,
 * release, stay out), and the next once another member took it;</li>
 * <li>a free Lease is claimed by the member below its share that holds the fewest, ties broken by a
 * hash of (Lease, member), so that members do not all race for the same one;</li>
 * <li>a Lease claimable for two retry periods (counted from when its election found it released,
 * expired or missing long enough) may be claimed by any member below its share, and one claimable
 * for a lease duration by anyone: members that disagree about who is live cost balance for a
 * while, never leadership.</li>
 * </ul>
 * Balancing only decides when an election tries to claim: every claim stays a compare-and-swap on a
 * released or expired Lease, with every rule of {@link Election}, so it can never make two holders.
 */
final class Balancer implements Spreading {

	private static final Logger logger = LoggerFactory.getLogger(Balancer.class);

	private final String group;

	private final String identity;

	private final List<Election> elections;

	private final MembershipStore store;

	private final ElectionRuntime runtime;

	private final long retryPeriodNanos;

	private final long renewDeadlineNanos;

	private final long leaseDurationNanos;

	private final AtomicBoolean evaluationQueued = new AtomicBoolean();

	// guarded by this

	/** The other members' records: their version, and when this replica saw it change. */
	private final Map<String, SeenRecord> others = new HashMap<>();

	/** When each Lease free now was first found free. */
	private final Map<Election, Long> freeSince = new IdentityHashMap<>();

	private boolean running;

	private long startedAtNanos;

	/** Whether the records have been listed, or cannot be, so that this replica knows whom it sees. */
	private boolean membersKnown;

	private MembershipStore.Following following;

	private ElectionScheduler.Cancellable nextTick;

	/** The Lease handed over last, until another member holds it; {@code null} when none. */
	private Election handingOver;

	private long handoverStartedAtNanos;

	Balancer(String group, String identity, List<Election> elections, MembershipStore store, ElectionRuntime runtime) {
		this.group = group;
		this.identity = identity;
		this.elections = List.copyOf(elections);
		this.store = store;
		this.runtime = runtime;
		ElectionSettings first = elections.get(0).settings();
		this.retryPeriodNanos = first.retryPeriod().toNanos();
		this.renewDeadlineNanos = first.renewDeadline().toNanos();
		this.leaseDurationNanos = first.leaseDuration().toNanos();
		elections.forEach((election) -> election.balancedBy(this));
	}

	String group() {
		return this.group;
	}

	/** Makes this replica known in the group and starts following the others. */
	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.startedAtNanos = now();
		if (this.store == null) {
			this.membersKnown = true;
		}
		else {
			this.following = this.store.follow(this.group, this::membersSeen, this::membersUnknown);
		}
		this.nextTick = this.runtime.scheduler().schedule(this::tick, 0);
	}

	/**
	 * Stops handing over and claiming, and tells the others this replica left.
	 * @return completes once the leave was written, or could not be
	 */
	synchronized CompletableFuture<Void> stop() {
		if (!this.running) {
			return CompletableFuture.completedFuture(null);
		}
		this.running = false;
		if (this.nextTick != null) {
			this.nextTick.cancel();
		}
		if (this.following != null) {
			this.following.close();
		}
		if (this.store == null) {
			return CompletableFuture.completedFuture(null);
		}
		return this.store.leave(this.group, this.identity, Duration.ofNanos(this.renewDeadlineNanos))
			.exceptionally((failure) -> {
				logger.debug("Leaving group '{}' was not written: {}", this.group, failure.toString());
				return null;
			});
	}

	/**
	 * Whether the given election, whose Lease may be claimed by the election's own rules, may try
	 * to claim it now; from now on the Lease counts as free. Called under the election's lock;
	 * reads the other elections of the group without theirs.
	 */
	@Override
	public synchronized boolean mayClaim(Election election, long now) {
		this.freeSince.putIfAbsent(election, now);
		return mayTry(election, now);
	}

	/**
	 * Whether the given election would be let claim now, without starting to count its Lease as
	 * free: a Lease missing or expiring is not yet claimable, and the time it has been free counts
	 * only from when its election found it claimable.
	 */
	@Override
	public synchronized boolean wouldLetClaim(Election election, long now) {
		return mayTry(election, now);
	}

	private boolean mayTry(Election election, long now) {
		if (!this.running) {
			return false;
		}
		Long free = this.freeSince.get(election);
		long freeFor = (free != null) ? now - free : 0;
		if (freeFor >= this.leaseDurationNanos) {
			return true;
		}
		if (!settled(now)) {
			return false;
		}
		View view = view(now);
		int mine = view.held(this.identity);
		if (mine >= view.ceiling()) {
			return false;
		}
		if (freeFor >= 2 * this.retryPeriodNanos) {
			return true;
		}
		String leaseName = election.settings().leaseName();
		return view.live.stream()
			.filter((member) -> view.held(member) < view.ceiling())
			.min(Comparator.comparingInt(view::held)
				.thenComparing(Comparator.comparingLong((String member) -> rank(leaseName, member)).reversed())
				.thenComparing(Comparator.naturalOrder()))
			.map(this.identity::equals)
			.orElse(false);
	}

	/** The group as this replica sees it now, for an election's status. */
	@Override
	public synchronized LeaderStatus.Group status() {
		View view = view(now());
		return new LeaderStatus.Group(this.group, this.elections.size(), view.live.size(), view.held(this.identity));
	}

	/** Something changed in one of the group's Leases: look again soon. */
	@Override
	public void leaseChanged() {
		queueEvaluation();
	}

	private void queueEvaluation() {
		if (this.evaluationQueued.compareAndSet(false, true)) {
			this.runtime.scheduler().execute(() -> {
				this.evaluationQueued.set(false);
				evaluate();
			});
		}
	}

	private void tick() {
		synchronized (this) {
			if (!this.running) {
				return;
			}
			this.nextTick = this.runtime.scheduler().schedule(this::tick, this.retryPeriodNanos);
		}
		if (this.store != null) {
			this.store.renew(this.group, this.identity, Duration.ofNanos(this.renewDeadlineNanos))
				.exceptionally((failure) -> {
					logger.debug("Membership of group '{}' was not renewed: {}", this.group, failure.toString());
					return null;
				});
		}
		evaluate();
	}

	/**
	 * Hands one Lease over when this replica holds more than its share, and lets the elections of
	 * free Leases reconsider claiming. Decides under this lock, acts outside it: an election calls
	 * {@link #mayClaim} under its own lock.
	 */
	private void evaluate() {
		Election handOver = null;
		List<Election> free = new ArrayList<>();
		synchronized (this) {
			if (!this.running) {
				return;
			}
			long now = now();
			View view = view(now);
			for (Election election : this.elections) {
				if (election.holderAt(now) == null) {
					free.add(election);
				}
				else {
					this.freeSince.remove(election);
				}
			}
			if (this.handingOver != null) {
				String holder = this.handingOver.holderAt(now);
				boolean taken = holder != null && !holder.equals(this.identity);
				if (taken || now - this.handoverStartedAtNanos > 2 * this.leaseDurationNanos) {
					this.handingOver = null;
				}
			}
			if (this.handingOver == null && settled(now) && surplus(view, free.isEmpty())) {
				handOver = this.elections.stream()
					.filter(Election::isLeader)
					.min(Comparator.comparingLong((Election election) -> rank(election.settings().leaseName(),
							this.identity)))
					.orElse(null);
				if (handOver != null) {
					this.handingOver = handOver;
					this.handoverStartedAtNanos = now;
					logger.info("{} hands {} over: it holds {} of the {} Leases of group '{}', {} live members",
							this.identity, handOver.settings().name(), view.held(this.identity), this.elections.size(),
							this.group, view.live.size());
				}
			}
		}
		if (handOver != null) {
			handOver.handOver();
		}
		free.forEach(Election::reconsider);
	}

	/**
	 * Whether this replica holds more than its share: above the ceiling, or at it while another
	 * live member holds less than the floor and nothing else moves (no one above the ceiling, no
	 * Lease free), so that a settled group ends with at most one Lease between any two members.
	 */
	private boolean surplus(View view, boolean noneFree) {
		int mine = view.held(this.identity);
		if (mine > view.ceiling()) {
			return true;
		}
		int floor = this.elections.size() / view.live.size();
		return mine == view.ceiling() && floor < view.ceiling() && noneFree
				&& view.live.stream().allMatch((member) -> view.held(member) <= view.ceiling())
				&& view.live.stream().anyMatch((member) -> view.held(member) < floor);
	}

	/** Whether this replica has had time to hear of the members that started with it. */
	private boolean settled(long now) {
		return this.membersKnown && now - this.startedAtNanos >= this.retryPeriodNanos;
	}

	private synchronized void membersSeen(Map<String, String> versions) {
		long now = now();
		this.others.keySet().retainAll(versions.keySet());
		versions.forEach((member, version) -> {
			if (!member.equals(this.identity)) {
				SeenRecord known = this.others.get(member);
				if (known == null) {
					this.others.put(member, new SeenRecord(version, now, now));
				}
				else if (!known.version.equals(version)) {
					this.others.put(member, new SeenRecord(version, now, known.firstSeenNanos));
				}
			}
		});
		if (!this.membersKnown) {
			this.membersKnown = true;
			logger.debug("{} sees {} other members in group '{}'", this.identity, this.others.size(), this.group);
		}
		queueEvaluation();
	}

	private synchronized void membersUnknown(Throwable failure) {
		if (!this.membersKnown) {
			logger.warn("The members of group '{}' cannot be listed from {} ({}): this replica sees itself alone, "
					+ "so the group's Leases are not spread. Its service account needs 'list' and 'watch' on 'leases'.",
					this.group, this.store.describe(), failure.toString());
		}
		this.membersKnown = true;
	}

	private View view(long now) {
		Map<String, Integer> held = new HashMap<>();
		for (Election election : this.elections) {
			String holder = election.holderAt(now);
			if (holder != null) {
				held.merge(holder, 1, Integer::sum);
			}
		}
		Set<String> live = new TreeSet<>();
		live.add(this.identity);
		this.others.forEach((member, seen) -> {
			boolean renewing = now - seen.seenAtNanos < this.renewDeadlineNanos;
			boolean claiming = held.containsKey(member) || now - seen.firstSeenNanos < 2 * this.leaseDurationNanos;
			if (renewing && claiming) {
				live.add(member);
			}
		});
		return new View(live, held, this.elections.size());
	}

	/** How much a member is preferred for a Lease: a hash of both, the same on every replica. */
	private static long rank(String leaseName, String member) {
		return Shard.hash(leaseName + "\n" + member);
	}

	private long now() {
		return this.runtime.monotonicClock().nanoTime();
	}

	private record SeenRecord(String version, long seenAtNanos, long firstSeenNanos) {
	}

	private record View(Set<String> live, Map<String, Integer> heldBy, int leases) {

		int held(String member) {
			return this.heldBy.getOrDefault(member, 0);
		}

		int ceiling() {
			return (this.leases + this.live.size() - 1) / this.live.size();
		}

	}

}
