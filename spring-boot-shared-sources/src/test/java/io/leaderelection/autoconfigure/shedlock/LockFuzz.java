package io.leaderelection.autoconfigure.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's fuzz test of a provider, as its documentation describes it, written anew: eight
 * threads race for two locks, the even ones for one, the odd ones for the other, asking again at
 * once when refused. Each holder reads its lock's counter, works a millisecond and writes it back
 * plus one, with nothing but the lock between the threads: a lost update means two held the lock
 * at once. Thread 0 stops after ten rounds, the others after a hundred.
 */
final class LockFuzz {

	static final int THREADS = 8;

	static final int ROUNDS = 100;

	static final int SHORT_ROUNDS = 10;

	static final Duration WORK = Duration.ofMillis(1);

	static final Duration LOCK_AT_MOST_FOR = Duration.ofMinutes(5);

	static final Duration LOCK_AT_LEAST_FOR = Duration.ofMillis(5);

	static final List<String> LOCKS = List.of("lock1", "lock2");

	private final LockProvider provider;

	/** One counter per lock, deliberately neither volatile nor atomic. */
	private final int[] counters = new int[LOCKS.size()];

	LockFuzz(LockProvider provider) {
		this.provider = provider;
	}

	/** Runs the threads to their end; their failures are thrown. */
	void run() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try {
			List<Callable<Void>> racers = new ArrayList<>();
			for (int thread = 0; thread < THREADS; thread++) {
				int lock = thread % LOCKS.size();
				int rounds = (thread == 0) ? SHORT_ROUNDS : ROUNDS;
				racers.add(() -> race(lock, rounds));
			}
			for (Future<Void> racer : threads.invokeAll(racers)) {
				racer.get();
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	/** What each lock's counter must be when no update was lost. */
	void assertNoUpdateLost() {
		assertThat(this.counters[0]).as(LOCKS.get(0)).isEqualTo((THREADS / 2 - 1) * ROUNDS + SHORT_ROUNDS);
		assertThat(this.counters[1]).as(LOCKS.get(1)).isEqualTo(THREADS / 2 * ROUNDS);
	}

	private Void race(int lock, int rounds) throws InterruptedException {
		int done = 0;
		while (done < rounds) {
			Optional<SimpleLock> held = this.provider.lock(new LockConfiguration(ClockProvider.now(), LOCKS.get(lock),
					LOCK_AT_MOST_FOR, LOCK_AT_LEAST_FOR));
			if (held.isPresent()) {
				int counter = this.counters[lock];
				Thread.sleep(WORK.toMillis());
				this.counters[lock] = counter + 1;
				held.get().unlock();
				done++;
			}
		}
		return null;
	}

}
