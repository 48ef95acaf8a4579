package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;

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
			if (this.servedAtOnce) {
				answer(false);
			}
			return request.answer;
		}

		/** From now on, requests are served and answered as they come ({@code true}), or wait for the script. */
		void serveAtOnce(boolean atOnce) {
			this.servedAtOnce = atOnce;
			while (atOnce && !this.waiting.isEmpty()) {
				answer(false);
			}
		}

		/** Serves the oldest waiting request; with {@code lost}, its answer never comes back. */
		void answer(boolean lost) {
			Request request = this.waiting.poll();
			if (request == null) {
				throw new IllegalStateException(this.replica + " has no request waiting");
			}
			if (request.answer.isDone()) {
				this.told.accept(this.replica + " gave up its " + request.verb + " already");
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

	}

	private record Request(String verb, LeaseRecord record, CompletableFuture<LeaseRecord> answer) {
	}

}
