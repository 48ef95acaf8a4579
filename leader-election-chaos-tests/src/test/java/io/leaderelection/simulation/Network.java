package io.leaderelection.simulation;

import java.util.SplittableRandom;

/**
 * The links between the replicas and the API server instances, and what the faults do to them:
 * each message's delay is drawn on its own (so answers overtake each other), and a message may
 * be lost, or delayed past its sender's timeout; a replica's link, or an instance's, may be cut
 * or slowed. Faults count overlapping episodes, so that two cuts of one link end with the last.
 */
final class Network {

	/** The longest a message is held back by a drawn delay: beyond it, the fault is a cut. */
	static final long LONGEST_DELAY_NANOS = 600_000_000L;

	private final SplittableRandom random;

	/** The quickest and slowest a message travels one way on a healthy link, drawn per seed. */
	private final long quickestNanos;

	private final long slowestNanos;

	final int[] replicaCuts;

	final int[] replicaSlowdowns;

	final int[] instanceCuts;

	final int[] instanceSlowdowns;

	/** Episodes during which messages are lost or held back past timeouts, on every link. */
	int lossyEpisodes;

	/** Episodes during which reads are served from an instance's watch cache, which lags. */
	int staleReadEpisodes;

	/** Episodes during which the watch caches lag far behind. */
	int laggingCacheEpisodes;

	/** Whether faults are still injected; in the quiet end of a run no message is lost or held back. */
	boolean faultsOn = true;

	private final double lossBeforeServer;

	private final double lossAfterServer;

	private final double heldBack;

	Network(SplittableRandom random, int replicaSlots, int instances) {
		this.random = random;
		this.quickestNanos = 20_000 + random.nextLong(1_000_000);
		this.slowestNanos = this.quickestNanos + 500_000 + random.nextLong(15_000_000);
		this.replicaCuts = new int[replicaSlots];
		this.replicaSlowdowns = new int[replicaSlots];
		this.instanceCuts = new int[instances];
		this.instanceSlowdowns = new int[instances];
		// most seeds lose a message now and then; some never do
		this.lossBeforeServer = random.nextInt(4) == 0 ? 0 : random.nextDouble() * 0.01;
		this.lossAfterServer = random.nextInt(4) == 0 ? 0 : random.nextDouble() * 0.01;
		this.heldBack = random.nextInt(4) == 0 ? 0 : random.nextDouble() * 0.01;
	}

	/** The longest one-way trip on a healthy link, watch cache lag aside. */
	long slowestHealthyNanos() {
		return this.slowestNanos;
	}

	boolean cut(int replica, int instance) {
		return this.replicaCuts[replica] > 0 || this.instanceCuts[instance] > 0;
	}

	/**
	 * The delay of one message between the replica and the instance, or -1 when it is lost: on a
	 * cut link, or drawn lost ({@code request} tells which way it travels).
	 */
	long oneWay(int replica, int instance, boolean request) {
		if (cut(replica, instance)) {
			return -1;
		}
		long delay = this.quickestNanos + this.random.nextLong(this.slowestNanos - this.quickestNanos + 1);
		if (!this.faultsOn) {
			return delay;
		}
		double lossy = (this.lossyEpisodes > 0) ? 0.2 : 0;
		double lost = (request ? this.lossBeforeServer : this.lossAfterServer) + lossy;
		if (lost > 0 && this.random.nextDouble() < lost) {
			return -1;
		}
		if ((this.heldBack + lossy) > 0 && this.random.nextDouble() < this.heldBack + lossy) {
			delay += this.random.nextLong(LONGEST_DELAY_NANOS);
		}
		if (this.replicaSlowdowns[replica] > 0 || this.instanceSlowdowns[instance] > 0) {
			delay += 20_000_000 + this.random.nextLong(LONGEST_DELAY_NANOS - 20_000_000);
		}
		return Math.min(delay, LONGEST_DELAY_NANOS);
	}

	/** A watch stream's next event: never lost on its own (a stream breaks as a whole), only delayed. */
	long streamed(int replica, int instance) {
		long delay = this.quickestNanos + this.random.nextLong(this.slowestNanos - this.quickestNanos + 1);
		if (this.faultsOn && (this.replicaSlowdowns[replica] > 0 || this.instanceSlowdowns[instance] > 0)) {
			delay += this.random.nextLong(LONGEST_DELAY_NANOS / 2);
		}
		return delay;
	}

	boolean staleReads() {
		return this.faultsOn && this.staleReadEpisodes > 0;
	}

	/** Extra lag of a watch cache: at most a few seconds while the caches lag, none otherwise. */
	long extraCacheLag() {
		return (this.faultsOn && this.laggingCacheEpisodes > 0) ? this.random.nextLong(2_000_000_000L) : 0;
	}

	SplittableRandom random() {
		return this.random;
	}

}
