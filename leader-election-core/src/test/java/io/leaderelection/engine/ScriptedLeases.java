package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseStoreException;

/**
 * One Lease whose requests wait until a script answers them: each replica's requests queue on its
 * own connection, and the script serves the oldest against the Lease ({@link InMemoryLeases}, with
 * the API server's compare-and-swap), or loses its answer. No watch: followers poll.
 */
final class ScriptedLeases {

	private static final String LEASE = "Lease scripts/lease";

	/** The Lease itself, with the API server's compare-and-swap. */
	private final InMemoryLeases lease = new InMemoryLeases();

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
				+ record.leaseDurationSeconds() + " s";
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

	}

	private record Request(String verb, LeaseRecord record, CompletableFuture<LeaseRecord> answer) {
	}

}
