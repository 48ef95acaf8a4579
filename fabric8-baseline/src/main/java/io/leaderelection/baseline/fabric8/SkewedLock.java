package io.leaderelection.baseline.fabric8;

import java.time.Duration;
import java.util.function.Supplier;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;

/**
 * A Lock as an elector sees it from a replica whose wall clock is off: the times it writes
 * come from its own clock, and the times it reads are judged against its own clock. fabric8's
 * elector takes the time from the system clock in a static method, so the shift is applied here,
 * between the elector and the Lease: forward on every write, backward on every read.
 */
final class SkewedLock implements Lock {

	private final Lock lock;

	private final Supplier<Duration> clockOffset;

	SkewedLock(Lock lock, Supplier<Duration> clockOffset) {
		this.lock = lock;
		this.clockOffset = clockOffset;
	}

	@Override
	public LeaderElectionRecord get(KubernetesClient client) {
		LeaderElectionRecord record = this.lock.get(client);
		return (record != null) ? shifted(record, this.clockOffset.get().negated()) : null;
	}

	@Override
	public void create(KubernetesClient client, LeaderElectionRecord record) {
		this.lock.create(client, shifted(record, this.clockOffset.get()));
	}

	@Override
	public void update(KubernetesClient client, LeaderElectionRecord record) {
		this.lock.update(client, shifted(record, this.clockOffset.get()));
	}

	@Override
	public String identity() {
		return this.lock.identity();
	}

	@Override
	public String describe() {
		return this.lock.describe();
	}

	private static LeaderElectionRecord shifted(LeaderElectionRecord record, Duration offset) {
		if (offset.isZero()) {
			return record;
		}
		return new LeaderElectionRecord(record.getHolderIdentity(), record.getLeaseDuration(),
				record.getAcquireTime().plus(offset), record.getRenewTime().plus(offset),
				record.getLeaderTransitions());
	}

}
