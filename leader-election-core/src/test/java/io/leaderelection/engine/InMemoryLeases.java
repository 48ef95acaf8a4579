package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseStoreException;
import io.leaderelection.store.LeaseWatch;

/**
 * One Lease kept in memory with the API server's optimistic locking: every write bumps the
 * resourceVersion and a write against an older one fails with a conflict. Each replica talks to
 * it through its own {@link Connection}, whose faults affect only that replica.
 */
final class InMemoryLeases {

	private static final String LEASE = "Lease test/lease";

	private LeaseRecord stored;

	private long version;

	/** Counts the Lease objects created, for their uids. */
	private long objects;

	private final List<String> requests = new ArrayList<>();

	private final List<Watcher> watchers = new ArrayList<>();

	/** Whether resourceVersions are opaque strings rather than integers. */
	private boolean opaqueVersions;

	/** Runs once, just before the next write is served, as another client's write in between. */
	private Runnable beforeNextWrite;

	synchronized LeaseRecord stored() {
		return this.stored;
	}

	/** From now on resourceVersions are not integers, as an API server may issue them. */
	synchronized void useOpaqueVersions() {
		this.opaqueVersions = true;
	}

	/** Another client's write, made just before the next write of any replica is served. */
	synchronized void beforeNextWrite(Runnable write) {
		this.beforeNextWrite = write;
	}

	/** Requests served so far, as "replica verb". */
	synchronized List<String> requests() {
		return List.copyOf(this.requests);
	}

	synchronized void clearRequests() {
		this.requests.clear();
	}

	/** Another client's unconditional edit of the stored record. */
	synchronized LeaseRecord edit(UnaryOperator<LeaseRecord> change) {
		LeaseRecord changed = change.apply(this.stored);
		this.stored = withVersion(changed);
		notifyWatchers();
		return this.stored;
	}

	synchronized void delete() {
		this.stored = null;
		notifyWatchers();
	}

	private void notifyWatchers() {
		for (Watcher watcher : List.copyOf(this.watchers)) {
			if (watcher.connection.fault == Fault.NONE) {
				watcher.listener.changed(this.stored);
			}
		}
	}

	Connection connect(String replica) {
		return new Connection(replica);
	}

	/** Serves a replica's request as the API server would; a refusal is thrown. */
	synchronized LeaseRecord serve(String replica, String verb, LeaseRecord record) {
		this.requests.add(replica + " " + verb);
		if (!"get".equals(verb) && this.beforeNextWrite != null) {
			Runnable write = this.beforeNextWrite;
			this.beforeNextWrite = null;
			write.run();
		}
		switch (verb) {
			case "get":
				return this.stored;
			case "create":
				if (this.stored != null) {
					throw new LeaseConflictException(verb, LEASE, "already exists");
				}
				this.stored = withVersion(record);
				notifyWatchers();
				return this.stored;
			default:
				if (this.stored == null) {
					throw new LeaseNotFoundException(verb, LEASE, "not found");
				}
				if (!this.stored.resourceVersion().equals(record.resourceVersion())) {
					throw new LeaseConflictException(verb, LEASE, "the object has been modified");
				}
				this.stored = withVersion(record);
				notifyWatchers();
				return this.stored;
		}
	}

	/** The record as stored: a new resourceVersion, from one counter that deletion does not reset. */
	private LeaseRecord withVersion(LeaseRecord record) {
		String version = (this.opaqueVersions ? "v" : "") + (++this.version);
		String uid = (this.stored != null) ? this.stored.uid() : "uid-" + (++this.objects);
		return new LeaseRecord(record.holderIdentity(), record.leaseDurationSeconds(), record.acquireTime(),
				record.renewTime(), record.leaseTransitions(), record.preferredHolder(), uid, version, null,
				record.windows());
	}

	/** A replica's view of the Lease, where faults are injected. */
	final class Connection implements LeaseStore {

		private final String replica;

		private volatile Fault fault = Fault.NONE;

		private volatile boolean watchable = true;

		/** Answers of requests served, held back while {@link #holdAnswers()} is in effect. */
		private List<Runnable> heldAnswers;

		/** Whether requests are served without an answer ever coming. */
		private boolean droppingAnswers;

		Connection(String replica) {
			this.replica = replica;
		}

		/** From now on requests get no answer (they are not served either). */
		void blackHole() {
			this.fault = Fault.BLACK_HOLE;
		}

		/** From now on requests fail at once with a server error. */
		void failRequests() {
			this.fault = Fault.ERROR;
		}

		/** From now on reads are served and writes fail at once with a server error. */
		void failWrites() {
			this.fault = Fault.WRITE_ERROR;
		}

		void heal() {
			this.fault = Fault.NONE;
			synchronized (this) {
				this.droppingAnswers = false;
			}
		}

		/** From now on requests are served, but their answers never come back. */
		synchronized void dropAnswers() {
			this.droppingAnswers = true;
		}

		/**
		 * From now on requests are served at once but their answers held back, as on a slow
		 * link, until {@link #deliverAnswers()}.
		 */
		synchronized void holdAnswers() {
			this.heldAnswers = new ArrayList<>();
		}

		/** Delivers the answers held back, in order, and no longer holds any. */
		void deliverAnswers() {
			List<Runnable> answers;
			synchronized (this) {
				answers = this.heldAnswers;
				this.heldAnswers = null;
			}
			answers.forEach(Runnable::run);
		}

		/** Whether this replica may watch; when not, its followers poll. */
		void allowWatching(boolean allowed) {
			this.watchable = allowed;
		}

		/** Watches this replica has open. */
		long openWatches() {
			synchronized (InMemoryLeases.this) {
				return InMemoryLeases.this.watchers.stream().filter((watcher) -> watcher.connection == this).count();
			}
		}

		@Override
		public LeaseWatch watch(LeaseWatch.Listener listener) {
			if (!this.watchable) {
				return null;
			}
			synchronized (InMemoryLeases.this) {
				InMemoryLeases.this.requests.add(this.replica + " watch");
				Watcher watcher = new Watcher(this, listener);
				InMemoryLeases.this.watchers.add(watcher);
				listener.opened();
				return () -> {
					synchronized (InMemoryLeases.this) {
						InMemoryLeases.this.watchers.remove(watcher);
					}
				};
			}
		}

		@Override
		public String describe() {
			return LEASE;
		}

		@Override
		public CompletableFuture<LeaseRecord> get(Duration timeout) {
			return request("get", null);
		}

		@Override
		public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
			return request("create", record);
		}

		@Override
		public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
			return request("update", record);
		}

		private CompletableFuture<LeaseRecord> request(String verb, LeaseRecord record) {
			switch (this.fault) {
				case BLACK_HOLE:
					return new CompletableFuture<>();
				case ERROR:
					return CompletableFuture.failedFuture(new LeaseStoreException(verb, LEASE, 500, "500 boom"));
				case WRITE_ERROR:
					if (!"get".equals(verb)) {
						return CompletableFuture.failedFuture(new LeaseStoreException(verb, LEASE, 500, "500 boom"));
					}
					return serveOrFail(verb, record);
				default:
					return serveOrFail(verb, record);
			}
		}

		private CompletableFuture<LeaseRecord> serveOrFail(String verb, LeaseRecord record) {
			CompletableFuture<LeaseRecord> answer = new CompletableFuture<>();
			Runnable deliver;
			try {
				LeaseRecord served = serve(this.replica, verb, record);
				deliver = () -> answer.complete(served);
			}
			catch (LeaseStoreException ex) {
				deliver = () -> answer.completeExceptionally(ex);
			}
			synchronized (this) {
				if (this.droppingAnswers) {
					return answer;
				}
				if (this.heldAnswers != null) {
					this.heldAnswers.add(deliver);
					return answer;
				}
			}
			deliver.run();
			return answer;
		}

	}

	private record Watcher(Connection connection, LeaseWatch.Listener listener) {
	}

	private enum Fault {

		NONE, BLACK_HOLE, ERROR, WRITE_ERROR

	}

}
