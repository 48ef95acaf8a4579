package io.leaderelection.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseWatch;

/**
 * A store that hands every call on to another, for tests to override the calls they watch or
 * change. Not {@link LeaseStore#holderExits()}: no holder's exit is known unless a test says so.
 */
public class ForwardingLeaseStore implements LeaseStore {

	protected final LeaseStore delegate;

	public ForwardingLeaseStore(LeaseStore delegate) {
		this.delegate = delegate;
	}

	@Override
	public String describe() {
		return this.delegate.describe();
	}

	@Override
	public CompletableFuture<LeaseRecord> get(Duration timeout) {
		return this.delegate.get(timeout);
	}

	@Override
	public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
		return this.delegate.create(record, timeout);
	}

	@Override
	public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
		return this.delegate.update(record, timeout);
	}

	@Override
	public LeaseWatch watch(LeaseWatch.Listener listener) {
		return this.delegate.watch(listener);
	}

}
