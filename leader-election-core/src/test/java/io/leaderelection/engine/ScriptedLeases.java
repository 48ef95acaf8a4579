package io.leaderelection.engine;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;

/**
 * One Lease whose requests wait until a script answers them: each replica's requests queue on its
 * own connection, and the script serves the oldest against the Lease as the API server would
 * (compare-and-swap on the resourceVersion), or loses its answer. No watch: followers poll.
 */
final class ScriptedLeases {

	private static final String LEASE = "Lease scripts/lease";

	private LeaseRecord stored;

	private long version;

	private long objects;

	/** The Lease as stored, one line; {@code missing} when there is none. */
	String describe() {
		return (this.stored != null) ? describe(this.stored) + ", rv " + this.stored.resourceVersion() + ", "
				+ this.stored.uid() : "missing";
	}

	/** Another client writes the Lease over whatever it holds. */
	void overwrite(String holder) {
		LeaseRecord base = Objects.requireNonNull(this.stored, "no Lease to overwrite");
		this.stored = stored(base.rewrite(holder, 15, base.acquireTime(), base.renewTime(), base.leaseTransitions() + 1),
				base.uid());
	}

	void delete() {
		this.stored = null;
	}

	Connection connect(String replica, Consumer<String> told) {
		return new Connection(replica, told);
	}

	private LeaseRecord serve(String verb, LeaseRecord record) {
		switch (verb) {
			case "get":
				return this.stored;
			case "create":
				if (this.stored != null) {
					throw new LeaseConflictException(verb, LEASE, "already exists");
				}
				this.stored = stored(record, "uid-" + (++this.objects));
				return this.stored;
			default:
				if (this.stored == null) {
					throw new LeaseNotFoundException(verb, LEASE, "not found");
				}
				if (!this.stored.resourceVersion().equals(record.resourceVersion())) {
					throw new LeaseConflictException(verb, LEASE, "the object has been modified");
				}
				this.stored = stored(record, this.stored.uid());
				return this.stored;
		}
	}

	private LeaseRecord stored(LeaseRecord record, String uid) {
		return new LeaseRecord(record.holderIdentity(), record.leaseDurationSeconds(), record.acquireTime(),
				record.renewTime(), record.leaseTransitions(), record.preferredHolder(), uid,
				String.valueOf(++this.version), null, record.windows());
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
				result = serve(request.verb, request.record);
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
