package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseStoreException;
import io.leaderelection.store.LeaseWatch;

/**
 * One Lease whose requests wait until a script answers them: each replica's requests queue on its
 * own connection, and the script serves the oldest against the Lease ({@link InMemoryLeases}, with
 * the API server's compare-and-swap), or loses its answer. A replica watches only where the script
 * lets it ({@link #allowWatching}); otherwise its followers poll. A watch is accepted by the server,
 * and tells each change of the Lease, only when the script says, or as they come while the
 * replica's requests are served as they come.
 */
final class ScriptedLeases {

	private static final String LEASE = "Lease scripts/lease";

	/** The Lease itself, with the API server's compare-and-swap. */
	private final InMemoryLeases lease = new InMemoryLeases();

	/** Replicas whose connections may watch; the others' followers poll. */
	private final Set<String> watching = new HashSet<>();

	/** Replicas whose watches the server refuses. */
	private final Set<String> refusingWatches = new HashSet<>();

	/** Where a watch served at once tells each change: after the write that made it has been told. */
	private Executor watchEvents = Runnable::run;

	/** The Lease as stored, one line; {@code missing} when there is none. */
	String describe() {
		LeaseRecord stored = this.lease.stored();
		return (stored != null) ? describe(stored) + ", rv " + stored.resourceVersion() + ", " + stored.uid()
				: "missing";
	}

	/** Another client writes the Lease over whatever it holds. */
	void overwrite(String holder) {
		Objects.requireNonNull(this.lease.stored(), "no Lease to overwrite");
		this.lease.edit((base) -> base.rewrite(holder, 15, base.acquireTime(), base.renewTime(),
				base.leaseTransitions() + 1));
	}

	void delete() {
		this.lease.delete();
	}

	/** Another client writes the given record, over the Lease or where it is missing. */
	void write(LeaseRecord record) {
		this.lease.edit((any) -> record);
	}

	/** Another client writes the Lease again as it is: only its resourceVersion changes. */
	void touch() {
		Objects.requireNonNull(this.lease.stored(), "no Lease to touch");
		this.lease.edit((stored) -> stored);
	}

	/** Another client deletes the Lease and creates it again with the same fields: a new object. */
	void recreate() {
		LeaseRecord fields = Objects.requireNonNull(this.lease.stored(), "no Lease to create again");
		this.lease.delete();
		this.lease.edit((missing) -> fields);
	}

	/** The Lease's acquire and renew times, in seconds on the script's clock; {@code none} when unset. */
	String describeTimes(Instant origin) {
		LeaseRecord stored = Objects.requireNonNull(this.lease.stored(), "no Lease");
		return "acquired " + second(origin, stored.acquireTime()) + ", renewed " + second(origin, stored.renewTime());
	}

	private static String second(Instant origin, Instant time) {
		return (time != null) ? String.format(Locale.ROOT, "%.3f", Duration.between(origin, time).toNanos() / 1e9)
				: "none";
	}

	Connection connect(String replica, Consumer<String> told) {
		return new Connection(replica, told);
	}

	static String describe(LeaseRecord record) {
		String holder = (record.holderIdentity() == null || record.holderIdentity().isEmpty()) ? "none"
				: record.holderIdentity();
		return "holder " + holder + ", transitions " + record.leaseTransitions() + ", duration "
				+ record.leaseDurationSeconds() + " s"
				+ ((record.preferredHolder() != null) ? ", preferred " + record.preferredHolder() : "");
	}

	/** Lets the replica watch, from its start; changes told as they come are told on the given executor. */
	void allowWatching(String replica, Executor events) {
		this.watching.add(replica);
		this.watchEvents = events;
	}

	/** From now on the server refuses the replica's watches, as fabric8 throws on a 403. */
	void refuseWatches(String replica) {
		this.refusingWatches.add(replica);
	}

	/** Another process writes the Lease as holder H, with times of its own: a new term. */
	void take(String holder, Instant now) {
		Objects.requireNonNull(this.lease.stored(), "no Lease to take");
		this.lease.edit((base) -> base.rewrite(holder, 15, now, now, base.transitions() + 1));
	}

	/** Another client sets spec.preferredHolder. */
	void prefer(String holder) {
		Objects.requireNonNull(this.lease.stored(), "no Lease to edit");
		this.lease.edit((base) -> new LeaseRecord(base.holderIdentity(), base.leaseDurationSeconds(),
				base.acquireTime(), base.renewTime(), base.leaseTransitions(), holder, null, null, null));
	}

	/** From now on resourceVersions are not integers. */
	void useOpaqueVersions() {
		this.lease.useOpaqueVersions();
	}

	/** A replica's connection: its requests wait, in order, for the script. */
	final class Connection implements LeaseStore {

		private final String replica;

		private final Consumer<String> told;

		private final Deque<Request> waiting = new ArrayDeque<>();

		/** Whether requests are served and answered as they come, rather than when the script says. */
		private boolean servedAtOnce;

		/** Whether requests fail as they come, with a server error, rather than wait for the script. */
		private boolean failedAtOnce;

		/** The watch the replica asked for last, until it ends or is closed. */
		private Watch watch;

		Connection(String replica, Consumer<String> told) {
			this.replica = replica;
			this.told = told;
		}

		@Override
		public String describe() {
			return LEASE;
		}

		@Override
		public CompletableFuture<LeaseRecord> get(Duration timeout) {
			return send("get", null);
		}

		@Override
		public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
			return send("create", record);
		}

		@Override
		public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
			return send("update", record);
		}

		private CompletableFuture<LeaseRecord> send(String verb, LeaseRecord record) {
			Request request = new Request(verb, record, new CompletableFuture<>());
			this.waiting.add(request);
			this.told.accept(this.replica + " sends " + verb + ((record != null) ? " (" + ScriptedLeases.describe(record)
					+ ((record.resourceVersion() != null) ? ", at rv " + record.resourceVersion() : "") + ")" : ""));
			if (this.failedAtOnce) {
				fail();
			}
			else if (this.servedAtOnce) {
				answer(false);
			}
			return request.answer;
		}

		/** From now on, requests are served and answered as they come ({@code true}), or wait for the script. */
		void serveAtOnce(boolean atOnce) {
			this.servedAtOnce = atOnce;
			this.failedAtOnce = false;
			while (atOnce && !this.waiting.isEmpty()) {
				answer(false);
			}
			serveWatchAtOnce();
		}

		/** Serves the oldest waiting request; with {@code lost}, its answer never comes back. */
		void answer(boolean lost) {
			Request request = oldestAwaited();
			if (request == null) {
				return;
			}
			LeaseRecord result;
			try {
				result = ScriptedLeases.this.lease.serve(this.replica, request.verb, request.record);
			}
			catch (RuntimeException ex) {
				this.told.accept(this.replica + "'s " + request.verb + " is refused: " + ex.getClass().getSimpleName()
						+ (lost ? "; the answer is lost" : ""));
				if (!lost) {
					request.answer.completeExceptionally(ex);
				}
				return;
			}
			this.told.accept(this.replica + "'s " + request.verb + " is served: "
					+ ((result != null) ? ScriptedLeases.describe(result) + ", rv " + result.resourceVersion() : "missing")
					+ (lost ? "; the answer is lost" : ""));
			if (!lost) {
				request.answer.complete(result);
			}
		}

		/** Fails the oldest waiting request with a server error, without serving it. */
		void fail() {
			Request request = oldestAwaited();
			if (request == null) {
				return;
			}
			this.told.accept(this.replica + "'s " + request.verb + " fails: 500");
			request.answer.completeExceptionally(new LeaseStoreException(request.verb, LEASE, 500, "500 boom"));
		}

		/** Takes the oldest waiting request; {@code null}, once told, when the replica gave it up already. */
		private Request oldestAwaited() {
			Request request = this.waiting.poll();
			if (request == null) {
				throw new IllegalStateException(this.replica + " has no request waiting");
			}
			if (request.answer.isDone()) {
				this.told.accept(this.replica + " gave up its " + request.verb + " already");
				return null;
			}
			return request;
		}

		/** From now on, until the script serves or holds them again, requests fail as they come. */
		void failAtOnce() {
			this.servedAtOnce = false;
			this.failedAtOnce = true;
			while (!this.waiting.isEmpty()) {
				fail();
			}
		}

		@Override
		public LeaseWatch watch(LeaseWatch.Listener listener) {
			if (ScriptedLeases.this.refusingWatches.contains(this.replica)) {
				this.told.accept(this.replica + "'s watch is refused: 403 Forbidden");
				throw new LeaseStoreException("watch", LEASE, 403, "403 Forbidden");
			}
			if (!ScriptedLeases.this.watching.contains(this.replica)) {
				return null;
			}
			this.told.accept(this.replica + " sends watch");
			this.watch = new Watch(listener);
			serveWatchAtOnce();
			return this.watch;
		}

		/** The server accepts the watch: from now on it tells every change of the Lease. */
		void openWatch() {
			Watch asked = watchAskedFor();
			if (asked.accepted != null) {
				throw new IllegalStateException(this.replica + "'s watch is open already");
			}
			asked.accepted = ScriptedLeases.this.lease.connect(this.replica).watch(asked);
			this.told.accept(this.replica + "'s watch is open");
			asked.listener.opened();
		}

		/** The watch tells the oldest change it has not told yet. */
		void tellWatch() {
			Watch open = watchAskedFor();
			LeaseEvent event = open.pending.poll();
			if (event == null) {
				throw new IllegalStateException(this.replica + "'s watch has nothing to tell");
			}
			this.told.accept(this.replica + "'s watch tells: "
					+ ((event.record() != null) ? ScriptedLeases.describe(event.record()) + ", rv "
							+ event.record().resourceVersion() : "deleted"));
			open.listener.changed(event.record());
		}

		/** The server ends the watch, as at its request timeout; what it had not told is lost. */
		void endWatch() {
			Watch ending = watchAskedFor();
			ending.forget();
			this.told.accept(this.replica + "'s watch ends");
			ending.listener.ended(new IllegalStateException("watch closed by the server"));
		}

		private Watch watchAskedFor() {
			if (this.watch == null) {
				throw new IllegalStateException(this.replica + " has no watch");
			}
			return this.watch;
		}

		/** While requests are served as they come, so is the watch: accepted at once, telling each change. */
		private void serveWatchAtOnce() {
			if (!this.servedAtOnce || this.watch == null) {
				return;
			}
			if (this.watch.accepted == null) {
				openWatch();
			}
			while (this.watch != null && !this.watch.pending.isEmpty()) {
				tellWatch();
			}
		}

		/**
		 * A watch of the replica: the Lease tells it each change ({@link InMemoryLeases}' own watch),
		 * which waits here until the script, or serving at once, tells it on.
		 */
		private final class Watch implements LeaseWatch, LeaseWatch.Listener {

			private final LeaseWatch.Listener listener;

			private final Deque<LeaseEvent> pending = new ArrayDeque<>();

			/** The server's side once it accepted the watch; {@code null} before. */
			private LeaseWatch accepted;

			Watch(LeaseWatch.Listener listener) {
				this.listener = listener;
			}

			@Override
			public void close() {
				forget();
				Connection.this.told.accept(Connection.this.replica + " closes its watch");
			}

			private void forget() {
				if (this.accepted != null) {
					this.accepted.close();
				}
				if (Connection.this.watch == this) {
					Connection.this.watch = null;
				}
			}

			@Override
			public void opened() {
				// told by openWatch, after the server's side is in place
			}

			@Override
			public void changed(LeaseRecord record) {
				this.pending.add(new LeaseEvent(record));
				if (Connection.this.servedAtOnce) {
					ScriptedLeases.this.watchEvents.execute(() -> {
						if (Connection.this.watch == this && !this.pending.isEmpty()) {
							tellWatch();
						}
					});
				}
			}

			@Override
			public void ended(Throwable cause) {
				throw new UnsupportedOperationException("the script ends watches");
			}

		}

	}

	private record Request(String verb, LeaseRecord record, CompletableFuture<LeaseRecord> answer) {
	}

	/** A change a watch tells: a version of the Lease, or its deletion ({@code null}). */
	private record LeaseEvent(LeaseRecord record) {
	}

}
