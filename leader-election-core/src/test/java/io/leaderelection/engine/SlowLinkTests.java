package io.leaderelection.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import io.leaderelection.store.LeaseWatch;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica whose answers come too late to lead on can still write the Lease: on virtual time
 * against the in-memory Lease, it stops claiming what it wrote, so that the Lease expires and a
 * replica on a healthy link leads, and no two gates open.
 */
class SlowLinkTests {

	private static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);

	/**
	 * A lease duration longer than two claims' timeouts (8 s each): a replica claiming again every
	 * time it reads its own claim back would write the Lease more often than followers let it expire.
	 */
	private static final ElectionSettings ELECTION = new ElectionSettings("default", "test", "lease",
			Duration.ofSeconds(30), RENEW_DEADLINE, Duration.ofSeconds(2));

	private final VirtualTime time = new VirtualTime();

	private final InMemoryLeases leases = new InMemoryLeases();

	/** Longer than a claim waits for its answer (8 s), shorter than a read (10 s). */
	private static final Duration SLOWER_THAN_A_CLAIM = Duration.ofSeconds(9);

	@Test
	void aReplicaWhoseClaimsAreAnsweredTooLateToLeadOnLetsTheLeaseExpireForAReplicaOnAHealthyLink() {
		this.leases.edit((none) -> LeaseRecord.of("", 1, wallNow(), wallNow(), 0));
		Replica slow = new Replica("slow", SLOWER_THAN_A_CLAIM);
		slow.engine.start();
		// its read is answered late, and its claim of the released Lease is stored at once
		this.time.advance(SLOWER_THAN_A_CLAIM);
		assertThat(this.leases.stored().holderIdentity()).isEqualTo("slow");
		Replica healthy = new Replica("healthy", Duration.ZERO);
		healthy.engine.start();
		long startedAt = this.time.nanoTime();
		for (int step = 0; step < 120_000 && !healthy.engine.isLeader(); step++) {
			assertThat(slow.engine.isLeader()).as("the slow replica never leads").isFalse();
			this.time.advance(Duration.ofMillis(1));
		}
		assertThat(healthy.engine.isLeader()).isTrue();
		// each claim of the slow replica goes unanswered for 8 s, then is read back 9 s later: the
		// first is claimed again, the second left to expire, 30 s after the healthy replica saw it
		// (17 s after it started); claimed again and again, the Lease would never stay unchanged the
		// 30 s that let the healthy replica take it
		assertThat(Duration.ofNanos(this.time.nanoTime() - startedAt)).isLessThan(Duration.ofSeconds(50));
		for (int step = 0; step < 60_000; step++) {
			assertThat(slow.engine.isLeader()).isFalse();
			assertThat(healthy.engine.isLeader()).as("the healthy replica keeps the Lease").isTrue();
			this.time.advance(Duration.ofMillis(1));
		}
	}

	private Instant wallNow() {
		return this.time.wallClock(Duration.ZERO).instant();
	}

	private final class Replica {

		final Delayed store;

		final ElectionEngine engine;

		Replica(String identity, Duration answerDelay) {
			this.store = new Delayed(SlowLinkTests.this.leases.connect(identity), answerDelay);
			ElectionRuntime runtime = new ElectionRuntime(SlowLinkTests.this.time, SlowLinkTests.this.time,
					SlowLinkTests.this.time.wallClock(Duration.ZERO), Runnable::run, new Random(identity.hashCode()));
			this.engine = new ElectionEngine(identity, List.of(ELECTION), (settings) -> this.store, runtime,
					List.of());
		}

	}

	/**
	 * Serves every request at once and delivers its answer after the delay, a slow link back;
	 * watches as the store does.
	 */
	private final class Delayed implements LeaseStore {

		private final LeaseStore store;

		private long delayNanos;

		Delayed(LeaseStore store, Duration delay) {
			this.store = store;
			this.delayNanos = delay.toNanos();
		}

		void delay(Duration delay) {
			this.delayNanos = delay.toNanos();
		}

		@Override
		public LeaseWatch watch(LeaseWatch.Listener listener) {
			return this.store.watch(listener);
		}

		@Override
		public String describe() {
			return this.store.describe();
		}

		@Override
		public CompletableFuture<LeaseRecord> get(Duration timeout) {
			return later(this.store.get(timeout));
		}

		@Override
		public CompletableFuture<LeaseRecord> create(LeaseRecord record, Duration timeout) {
			return later(this.store.create(record, timeout));
		}

		@Override
		public CompletableFuture<LeaseRecord> update(LeaseRecord record, Duration timeout) {
			return later(this.store.update(record, timeout));
		}

		private CompletableFuture<LeaseRecord> later(CompletableFuture<LeaseRecord> served) {
			if (this.delayNanos == 0) {
				return served;
			}
			CompletableFuture<LeaseRecord> answer = new CompletableFuture<>();
			SlowLinkTests.this.time.schedule(() -> served.whenComplete((value, failure) -> {
				if (failure != null) {
					answer.completeExceptionally(failure);
				}
				else {
					answer.complete(value);
				}
			}), this.delayNanos);
			return answer;
		}

	}

}
