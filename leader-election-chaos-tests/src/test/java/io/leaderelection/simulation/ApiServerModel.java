package io.leaderelection.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseStoreException;
import io.leaderelection.store.LeaseWatch;

/**
 * The API server as a model with the real one's rules. Writes are linearizable through one
 * revision counter (etcd's), applied when the request reaches the server: an update succeeds
 * only at the stored resourceVersion (409 otherwise), a create of an existing Lease is refused
 * with 409, and an update of a deleted Lease is answered 409 "Precondition failed: UID in
 * precondition" when its body carries a uid (which {@code KubernetesLeaseStore} reads as the
 * Lease missing) or creates it (201) when it carries none. Reads are quorum reads, as a GET
 * without resourceVersion is, except while stale reads are injected: then, like watches, they
 * are served from the watch cache of the instance the request reached, which shows each revision
 * a drawn lag after its commit. A watch starts with the current version its instance's cache
 * shows; when its stream breaks, or the server ends it, the client either ends it or resumes it
 * from the last revision it got, as fabric8 does, and a revision older than the instance's cache
 * window is answered 410 Gone, which ends it.
 */
final class ApiServerModel {

	private static final String UID_PRECONDITION_FAILED = "Precondition failed: UID in precondition";

	/** With {@code -Dsimulation.verbose=true} the trace tells every request, answer and watch event too. */
	private static final boolean VERBOSE = Boolean.getBoolean("simulation.verbose");

	private final EventLoop loop;

	private final Network network;

	private final SplittableRandom random;

	private final Trace trace;

	private final Checks checks;

	private final Instance[] instances;

	private final Map<String, LeaseRecord> stored = new LinkedHashMap<>();

	private final Map<String, List<Change>> history = new LinkedHashMap<>();

	private final List<Watch> watches = new ArrayList<>();

	private long revision;

	private long objects;

	ApiServerModel(EventLoop loop, Network network, Trace trace, Checks checks, int instanceCount) {
		this.loop = loop;
		this.network = network;
		this.random = network.random();
		this.trace = trace;
		this.checks = checks;
		this.instances = new Instance[instanceCount];
		for (int index = 0; index < instanceCount; index++) {
			// a cache that keeps only a few revisions answers resumed watches with 410 Gone often
			this.instances[index] = new Instance(index, this.random.nextLong(50_000_000),
					3 + this.random.nextInt(100));
		}
	}

	int instanceCount() {
		return this.instances.length;
	}

	/** The longest a watch cache lags behind etcd while caches are not made to lag. */
	long longestCacheLagNanos() {
		long longest = 0;
		for (Instance instance : this.instances) {
			longest = Math.max(longest, instance.lagNanos);
		}
		return longest;
	}

	LeaseStore client(SimulatedProcess process, String lease) {
		return new Client(process, lease);
	}

	// ---- writes, in etcd's order

	private LeaseRecord commit(String lease, LeaseRecord record, String uid, String cause) {
		long version = ++this.revision;
		LeaseRecord written = (record != null) ? new LeaseRecord(record.holderIdentity(), record.leaseDurationSeconds(),
				record.acquireTime(), record.renewTime(), record.leaseTransitions(), record.preferredHolder(), uid,
				Long.toString(version), null, record.windows()) : null;
		LeaseRecord before = this.stored.get(lease);
		if (written != null) {
			this.stored.put(lease, written);
		}
		else {
			this.stored.remove(lease);
		}
		long[] visibleAt = new long[this.instances.length];
		for (Instance instance : this.instances) {
			instance.lastVisibleAt = Math.max(instance.lastVisibleAt,
					this.loop.now() + this.random.nextLong(instance.lagNanos + 1) + this.network.extraCacheLag());
			visibleAt[instance.index] = instance.lastVisibleAt;
		}
		Change change = new Change(version, written, (written == null) ? before : null, visibleAt);
		this.history.computeIfAbsent(lease, (name) -> new ArrayList<>()).add(change);
		this.trace.add(this.loop.now(), "server", "rv " + version + " " + cause + ": "
				+ ((written != null) ? describe(written) : "deleted"));
		for (Watch watch : List.copyOf(this.watches)) {
			if (watch.lease.equals(lease) && watch.streaming()) {
				watch.stream(change);
			}
		}
		return written;
	}

	static String describe(LeaseRecord record) {
		return "holder=" + (record.hasHolder() ? record.holderIdentity() : "-") + " transitions="
				+ record.leaseTransitions() + " uid=" + record.uid() + " windows=" + record.windows().size();
	}

	/** A foreign client deletes the Lease (kubectl delete lease, a pruning deploy tool). */
	void delete(String lease) {
		if (this.stored.containsKey(lease)) {
			commit(lease, null, null, "deleted by a foreign client");
		}
	}

	/** A foreign client edits what the election does not own (a label): a new resourceVersion. */
	void editLabels(String lease) {
		LeaseRecord record = this.stored.get(lease);
		if (record != null) {
			commit(lease, record, record.uid(), "labels edited by a foreign client");
		}
	}

	/** The server ends every watch the instance serves, as at its request timeout or a restart. */
	void endWatches(int instance) {
		for (Watch watch : List.copyOf(this.watches)) {
			if (watch.instance == instance && watch.streaming()) {
				watch.breakOff(0);
			}
		}
	}

	private LeaseRecord serveCreate(String lease, LeaseRecord record, String by) {
		if (this.stored.containsKey(lease)) {
			throw new LeaseConflictException("create", "Lease " + lease, "409 AlreadyExists");
		}
		return commit(lease, record, "uid-" + (++this.objects), "created by " + by);
	}

	private LeaseRecord serveUpdate(String lease, LeaseRecord record, String by) {
		LeaseRecord current = this.stored.get(lease);
		if (current == null && record.uid() != null) {
			throw new LeaseNotFoundException("update", "Lease " + lease, 409, "409 " + UID_PRECONDITION_FAILED);
		}
		if (current == null) {
			return commit(lease, record, "uid-" + (++this.objects), "created by an update of " + by);
		}
		if (record.uid() != null && !record.uid().equals(current.uid())) {
			throw new LeaseNotFoundException("update", "Lease " + lease, 409, "409 " + UID_PRECONDITION_FAILED);
		}
		if (!current.resourceVersion().equals(record.resourceVersion())) {
			throw new LeaseConflictException("update", "Lease " + lease, "409 the object has been modified");
		}
		LeaseRecord written = commit(lease, record, current.uid(), "updated by " + by);
		if (current.isHeldBy(by) && !written.hasHolder()) {
			this.checks.released(by);
		}
		return written;
	}

	/** What the instance's watch cache shows of the Lease at the given moment; {@code null} when missing. */
	private Change cached(Instance instance, String lease, long at) {
		List<Change> changes = this.history.getOrDefault(lease, List.of());
		for (int index = changes.size() - 1; index >= 0; index--) {
			Change change = changes.get(index);
			if (change.visibleAt[instance.index] <= at) {
				return change;
			}
		}
		return null;
	}

	private Instance anyInstance() {
		return this.instances[this.random.nextInt(this.instances.length)];
	}

	private record Change(long revision, LeaseRecord record, LeaseRecord deletedVersion, long[] visibleAt) {
	}

	private static final class Instance {

		private final int index;

		private final long lagNanos;

		/** How many revisions its watch cache keeps: a watch resumed from an older one is answered 410. */
		private final int window;

		private long lastVisibleAt;

		Instance(int index, long lagNanos, int window) {
			this.index = index;
			this.lagNanos = lagNanos;
			this.window = window;
		}

	}

	/** One replica's connection to the Lease, as {@code KubernetesLeaseStore} gives it to the engine. */
	private final class Client implements LeaseStore {

		private final SimulatedProcess process;

		private final String lease;

		Client(SimulatedProcess process, String lease) {
			this.process = process;
			this.lease = lease;
		}

		@Override
		public String describe() {
			return "Lease simulation/" + this.lease;
		}

		@Override
		public CompletableFuture<LeaseRecord> get(Duration timeout) {
			return request((instance) -> {
				if (ApiServerModel.this.network.staleReads()) {
					Change cached = cached(instance, this.lease, ApiServerModel.this.loop.now());
					return (cached != null) ? cached.record : null;
				}
				return ApiServerModel.this.stored.get(this.lease);
			});
		}

		@Override
		public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
			return request((instance) -> serveCreate(this.lease, record, this.process.identity()));
		}

		@Override
		public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
			return request((instance) -> serveUpdate(this.lease, record, this.process.identity()));
		}

		/**
		 * Sends the request to an instance; it is served when it arrives, and its answer, or
		 * refusal, comes back unless lost. A request or answer lost leaves the future to the
		 * engine's timeout, as a real client's timeout would.
		 */
		private CompletableFuture<LeaseRecord> request(Served served) {
			CompletableFuture<LeaseRecord> answer = new CompletableFuture<>();
			Instance instance = anyInstance();
			int slot = this.process.slot();
			long there = ApiServerModel.this.network.oneWay(slot, instance.index, true);
			if (there < 0) {
				return answer;
			}
			ApiServerModel.this.loop.after(there, null, () -> {
				if (ApiServerModel.this.network.cut(slot, instance.index)) {
					return;
				}
				LeaseRecord result;
				LeaseStoreException refused;
				try {
					result = served.serve(instance);
					refused = null;
				}
				catch (LeaseStoreException ex) {
					result = null;
					refused = ex;
				}
				long back = ApiServerModel.this.network.oneWay(slot, instance.index, false);
				if (back < 0) {
					return;
				}
				LeaseRecord answered = result;
				LeaseStoreException failure = refused;
				ApiServerModel.this.loop.after(back, this.process, () -> {
					if (VERBOSE) {
						ApiServerModel.this.trace.add(ApiServerModel.this.loop.now(), this.process.identity(), "answer: "
								+ ((failure != null) ? failure.getMessage() : (answered != null) ? "rv " + answered.resourceVersion() + " " + ApiServerModel.describe(answered) : "missing"));
					}
					if (!ApiServerModel.this.network.cut(slot, instance.index)) {
						if (failure != null) {
							answer.completeExceptionally(failure);
						}
						else {
							answer.complete(answered);
						}
					}
				});
			});
			return answer;
		}

		@Override
		public LeaseWatch watch(LeaseWatch.Listener listener) {
			Watch watch = new Watch(this.process, this.lease, listener, describe());
			watch.open();
			return watch;
		}

	}

	@FunctionalInterface
	private interface Served {

		LeaseRecord serve(Instance instance);

	}

	/** A watch of one Lease through one instance, whose events come in order on one stream. */
	private final class Watch implements LeaseWatch {

		private final SimulatedProcess process;

		private final String lease;

		private final LeaseWatch.Listener listener;

		private final String description;

		private int instance;

		/** The last revision the stream carried, from which the client resumes it. */
		private long lastRevision;

		/** When the stream's last event arrives; the next one comes after it. */
		private long lastArrival;

		private boolean established;

		private boolean broken;

		private boolean closed;

		private int reconnections;

		Watch(SimulatedProcess process, String lease, LeaseWatch.Listener listener, String description) {
			this.process = process;
			this.lease = lease;
			this.listener = listener;
			this.description = description;
		}

		boolean streaming() {
			return this.established && !this.broken && !this.closed;
		}

		/** Opened without a resourceVersion: the instance starts it with the current version its cache shows. */
		void open() {
			Instance at = anyInstance();
			this.instance = at.index;
			long there = ApiServerModel.this.network.oneWay(this.process.slot(), at.index, true);
			if (there < 0) {
				// fabric8 gives up opening after its connect timeout
				tell(1_000_000_000L + ApiServerModel.this.random.nextLong(4_000_000_000L),
						() -> this.listener.ended(new LeaseStoreException("watch", this.description, 0, "connect timed out")));
				return;
			}
			ApiServerModel.this.loop.after(there, null, () -> {
				if (this.closed) {
					return;
				}
				ApiServerModel.this.watches.add(this);
				Change current = cached(at, this.lease, ApiServerModel.this.loop.now());
				this.lastRevision = (current != null) ? current.revision : 0;
				this.established = true;
				this.lastArrival = ApiServerModel.this.loop.now();
				deliver(() -> this.listener.opened());
				if (current != null && current.record != null) {
					deliver(() -> this.listener.changed(current.record));
				}
				replayAfter(this.lastRevision);
			});
		}

		/** Streams every change of the Lease after the revision, as the instance's cache shows them. */
		private void replayAfter(long revision) {
			for (Change change : ApiServerModel.this.history.getOrDefault(this.lease, List.of())) {
				if (change.revision > revision) {
					stream(change);
				}
			}
		}

		void stream(Change change) {
			if (ApiServerModel.this.network.cut(this.process.slot(), this.instance)) {
				// the connection is gone; the client notices after its ping times out
				breakOff(500_000_000L + ApiServerModel.this.random.nextLong(4_500_000_000L));
				return;
			}
			this.lastArrival = Math.max(this.lastArrival, change.visibleAt[this.instance]
					+ ApiServerModel.this.network.streamed(this.process.slot(), this.instance));
			this.lastRevision = change.revision;
			ApiServerModel.this.loop.at(this.lastArrival, this.process, () -> {
				if (VERBOSE) {
					ApiServerModel.this.trace.add(ApiServerModel.this.loop.now(), this.process.identity(),
							(this.closed ? "closed " : "") + "watch event rv " + change.revision);
				}
				if (!this.closed) {
					if (change.record != null) {
						this.listener.changed(change.record);
					}
					else {
						this.listener.deleted(change.deletedVersion);
					}
				}
			});
		}

		private void deliver(Runnable event) {
			this.lastArrival = Math.max(this.lastArrival,
					ApiServerModel.this.loop.now() + ApiServerModel.this.network.streamed(this.process.slot(), this.instance));
			ApiServerModel.this.loop.at(this.lastArrival, this.process, () -> {
				if (!this.closed) {
					event.run();
				}
			});
		}

		/**
		 * The stream broke, or the server ended it: after the given time the client either ends
		 * the watch or resumes it from its last revision on some instance, as fabric8 does.
		 */
		void breakOff(long noticedAfter) {
			this.broken = true;
			ApiServerModel.this.watches.remove(this);
			ApiServerModel.this.loop.after(noticedAfter, null, () -> {
				if (this.closed) {
					return;
				}
				if (ApiServerModel.this.random.nextBoolean() || ++this.reconnections > 3) {
					tell(0, () -> this.listener.ended(new LeaseStoreException("watch", this.description, 0,
							"watch closed by the server")));
				}
				else {
					ApiServerModel.this.loop.after(100_000_000L + ApiServerModel.this.random.nextLong(900_000_000L), null,
							this::resume);
				}
			});
		}

		private void resume() {
			if (this.closed) {
				return;
			}
			Instance at = anyInstance();
			if (ApiServerModel.this.network.cut(this.process.slot(), at.index)) {
				breakOff(1_000_000_000L);
				return;
			}
			if (this.lastRevision < ApiServerModel.this.revision - at.window) {
				tell(ApiServerModel.this.network.streamed(this.process.slot(), at.index),
						() -> this.listener.ended(new LeaseStoreException("watch", this.description, 410, "410 Gone")));
				return;
			}
			this.instance = at.index;
			this.broken = false;
			this.lastArrival = ApiServerModel.this.loop.now();
			ApiServerModel.this.watches.add(this);
			replayAfter(this.lastRevision);
		}

		private void tell(long after, Runnable event) {
			ApiServerModel.this.loop.after(after, this.process, () -> {
				if (!this.closed) {
					this.closed = true;
					event.run();
				}
			});
		}

		@Override
		public void close() {
			this.closed = true;
			ApiServerModel.this.watches.remove(this);
		}

	}

}
