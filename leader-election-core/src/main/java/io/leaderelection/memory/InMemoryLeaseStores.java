package io.leaderelection.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import io.leaderelection.engine.DaemonThreads;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseStoreFactory;
import io.leaderelection.store.LeaseWatch;
import io.leaderelection.store.MembershipStore;

/**
 * Leases kept in this JVM's memory with an API server's rules: every write is a compare-and-swap
 * on the resourceVersion, which rises with every write from one counter that deletion does not
 * reset; a Lease created again is another object (another uid); watches tell of every change.
 * Engines that share one instance elect among themselves as replicas sharing a cluster do.
 * <p>
 * Answers and watch events come on one thread of its own, in the order the writes were served,
 * never on the caller's: an engine writing one Lease is never called back while it holds its own
 * lock. {@link #close()} stops that thread.
 */
public final class InMemoryLeaseStores implements LeaseStoreFactory, AutoCloseable {

	private final boolean startReleased;

	private final ExecutorService answers = Executors
		.newSingleThreadExecutor(DaemonThreads.named("leader-election-memory-"));

	private final Map<String, LeaseRecord> leases = new HashMap<>();

	private final Map<String, List<LeaseWatch.Listener>> watchers = new HashMap<>();

	/** The members of each balanced group, with the version of their record. */
	private final Map<String, Map<String, String>> members = new HashMap<>();

	private final Map<String, List<Consumer<Map<String, String>>>> memberFollowers = new HashMap<>();

	private long lastResourceVersion;

	private InMemoryLeaseStores(boolean startReleased) {
		this.startReleased = startReleased;
	}

	/**
	 * Leases shared by candidates in this JVM. A Lease is missing until a candidate creates it,
	 * as on a new cluster, so the first leader waits one lease duration.
	 */
	public static InMemoryLeaseStores shared() {
		return new InMemoryLeaseStores(false);
	}

	/**
	 * Leases that only this process campaigns for. Each starts as a holder's release leaves it,
	 * so the one candidate leads at once.
	 */
	public static InMemoryLeaseStores forOneProcess() {
		return new InMemoryLeaseStores(true);
	}

	@Override
	public LeaseStore create(ElectionSettings election) {
		String key = key(election.namespace(), election.leaseName());
		if (this.startReleased) {
			synchronized (this) {
				if (!this.leases.containsKey(key)) {
					store(key, LeaseRecord.of("", 1, null, Instant.now(), 0),
							UUID.randomUUID().toString());
				}
			}
		}
		return new Store(election.namespace(), election.leaseName());
	}

	@Override
	public MembershipStore membership(String namespace) {
		return new Membership(namespace);
	}

	/**
	 * These Leases as one of several contexts in this JVM sees them: a factory with nothing to
	 * close, so that the first context to close does not close the Leases under the others.
	 */
	public LeaseStoreFactory sharedView() {
		return new SharedView(this);
	}

	/** The stored version of a Lease, {@code null} when it does not exist. */
	public synchronized LeaseRecord read(String namespace, String name) {
		return this.leases.get(key(namespace, name));
	}

	/** Deletes a Lease, as {@code kubectl delete lease} does; watchers are told. */
	public synchronized void delete(String namespace, String name) {
		String key = key(namespace, name);
		if (this.leases.remove(key) != null) {
			tell(key, null);
		}
	}

	/** Stops the thread that answers; calls made after that get no answer. */
	@Override
	public void close() {
		this.answers.shutdownNow();
	}

	private LeaseRecord store(String key, LeaseRecord record, String uid) {
		LeaseRecord stored = new LeaseRecord(record.holderIdentity(), record.leaseDurationSeconds(),
				record.acquireTime(), record.renewTime(), record.leaseTransitions(), record.preferredHolder(), uid,
				Long.toString(++this.lastResourceVersion), null, record.windows());
		this.leases.put(key, stored);
		tell(key, stored);
		return stored;
	}

	private void tell(String key, LeaseRecord version) {
		for (LeaseWatch.Listener listener : this.watchers.getOrDefault(key, List.of())) {
			answer(() -> listener.changed(version));
		}
	}

	private void answer(Runnable delivery) {
		try {
			this.answers.execute(delivery);
		}
		catch (RejectedExecutionException ex) {
			// closed: no answer comes, as from a server that went away
		}
	}

	private static String key(String namespace, String name) {
		return namespace + "/" + name;
	}

	/** The members of the balanced groups of one namespace, each told to followers as a whole. */
	private final class Membership implements MembershipStore {

		private final String namespace;

		Membership(String namespace) {
			this.namespace = namespace;
		}

		@Override
		public String describe() {
			return "the members in memory of namespace " + this.namespace;
		}

		@Override
		public CompletableFuture<Void> renew(String group, String member, Duration timeout) {
			return change(group, (records) -> records.put(member, Long.toString(++InMemoryLeaseStores.this.lastResourceVersion)));
		}

		@Override
		public CompletableFuture<Void> leave(String group, String member, Duration timeout) {
			return change(group, (records) -> records.remove(member));
		}

		@Override
		public Following follow(String group, Consumer<Map<String, String>> followed, Consumer<Throwable> failed) {
			String key = key(this.namespace, group);
			synchronized (InMemoryLeaseStores.this) {
				InMemoryLeaseStores.this.memberFollowers.computeIfAbsent(key, (ignored) -> new ArrayList<>()).add(followed);
				Map<String, String> now = Map.copyOf(InMemoryLeaseStores.this.members.getOrDefault(key, Map.of()));
				answer(() -> followed.accept(now));
			}
			return () -> {
				synchronized (InMemoryLeaseStores.this) {
					InMemoryLeaseStores.this.memberFollowers.getOrDefault(key, new ArrayList<>()).remove(followed);
				}
			};
		}

		private CompletableFuture<Void> change(String group, Consumer<Map<String, String>> change) {
			String key = key(this.namespace, group);
			CompletableFuture<Void> answer = new CompletableFuture<>();
			synchronized (InMemoryLeaseStores.this) {
				Map<String, String> records = InMemoryLeaseStores.this.members.computeIfAbsent(key,
						(ignored) -> new HashMap<>());
				change.accept(records);
				Map<String, String> now = Map.copyOf(records);
				for (Consumer<Map<String, String>> follower : InMemoryLeaseStores.this.memberFollowers.getOrDefault(key,
						List.of())) {
					answer(() -> follower.accept(now));
				}
				answer(() -> answer.complete(null));
			}
			return answer;
		}

	}

	/** One Lease, as one candidate sees it. */
	private final class Store implements LeaseStore {

		private final String key;

		private final String description;

		Store(String namespace, String name) {
			this.key = key(namespace, name);
			this.description = "Lease " + this.key;
		}

		@Override
		public String describe() {
			return this.description;
		}

		@Override
		public CompletableFuture<LeaseRecord> get(Duration timeout) {
			synchronized (InMemoryLeaseStores.this) {
				return answered(InMemoryLeaseStores.this.leases.get(this.key));
			}
		}

		@Override
		public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
			synchronized (InMemoryLeaseStores.this) {
				if (InMemoryLeaseStores.this.leases.containsKey(this.key)) {
					return failed(new LeaseConflictException("create", this.description, "it already exists"));
				}
				return answered(store(this.key, record, UUID.randomUUID().toString()));
			}
		}

		@Override
		public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
			synchronized (InMemoryLeaseStores.this) {
				LeaseRecord current = InMemoryLeaseStores.this.leases.get(this.key);
				if (current == null) {
					return failed(new LeaseNotFoundException("update", this.description, "it does not exist"));
				}
				if (!current.resourceVersion().equals(record.resourceVersion())) {
					return failed(new LeaseConflictException("update", this.description,
							"it was modified: resourceVersion " + current.resourceVersion() + ", not "
									+ record.resourceVersion()));
				}
				LeaseRecord written = new LeaseRecord(record.holderIdentity(), record.leaseDurationSeconds(),
						record.acquireTime(), record.renewTime(), record.leaseTransitions(), current.preferredHolder(),
						current.uid(), current.resourceVersion(), null, record.windows());
				return answered(store(this.key, written, current.uid()));
			}
		}

		@Override
		public LeaseWatch watch(LeaseWatch.Listener listener) {
			synchronized (InMemoryLeaseStores.this) {
				InMemoryLeaseStores.this.watchers.computeIfAbsent(this.key, (key) -> new ArrayList<>()).add(listener);
				answer(listener::opened);
				LeaseRecord current = InMemoryLeaseStores.this.leases.get(this.key);
				if (current != null) {
					// the current version first, as an API server starts a watch without a resourceVersion
					answer(() -> listener.changed(current));
				}
			}
			return () -> {
				synchronized (InMemoryLeaseStores.this) {
					InMemoryLeaseStores.this.watchers.getOrDefault(this.key, new ArrayList<>()).remove(listener);
				}
			};
		}

		private CompletableFuture<LeaseRecord> answered(LeaseRecord record) {
			CompletableFuture<LeaseRecord> answer = new CompletableFuture<>();
			answer(() -> answer.complete(record));
			return answer;
		}

		private CompletableFuture<LeaseRecord> failed(RuntimeException failure) {
			CompletableFuture<LeaseRecord> answer = new CompletableFuture<>();
			answer(() -> answer.completeExceptionally(failure));
			return answer;
		}

	}


	private record SharedView(InMemoryLeaseStores leases) implements LeaseStoreFactory {

		@Override
		public LeaseStore create(ElectionSettings election) {
			return this.leases.create(election);
		}

		@Override
		public MembershipStore membership(String namespace) {
			return this.leases.membership(namespace);
		}

	}

}
