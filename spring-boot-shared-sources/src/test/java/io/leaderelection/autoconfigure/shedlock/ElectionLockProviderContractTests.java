package io.leaderelection.autoconfigure.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.window.CurrentRun;
import io.leaderelection.engine.ElectionSettings;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's contract for a lock provider, case by case as its own provider tests state it
 * ({@code AbstractLockProviderIntegrationTest}, {@code AbstractExtensibleLockProviderIntegrationTest}
 * and the fuzz test they run), written anew for the provider on leader election. Three replicas
 * campaign on the CRUD mock server, each with its own engine and client; the cases take locks
 * from the leader's provider, the ones with several threads too, as ShedLock's assume one lock
 * for the JVM.
 * <p>
 * Whether a lock is held is read from the backing store, the Lease as the API server stores it.
 * A lock's release is written by the leader's next write, within a renew period: "unlocked" is
 * awaited, as ShedLock's own etcd provider test awaits it. Timings are scaled down; where a case
 * lets a lock's time pass by design, it waits on the clock for the instant ShedLock's
 * configuration names, and never sleeps.
 */
class ElectionLockProviderContractTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	static final String NAMESPACE = "shedlock-contract";

	/** ShedLock's 2 s, scaled down. */
	static final Duration LOCK_AT_LEAST_FOR = Duration.ofMillis(800);

	/** How long a release takes to reach the Lease: the leader's next renewal, on a busy machine. */
	static final Duration RELEASE_WRITTEN = Duration.ofSeconds(3);

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	/** The main lock's name, fresh for every case as in ShedLock's tests. */
	private final String name = UUID.randomUUID().toString();

	private final List<LockReplica> replicas = new ArrayList<>();

	private LockReplica leader;

	private LeaseWindows lease;

	@BeforeEach
	void campaign() {
		String leaseName = "contract-" + SEQUENCE.incrementAndGet();
		server.createReleased(NAMESPACE, leaseName);
		// roomy timings: eight threads racing for locks must not cost the leader its renewals
		ElectionSettings election = new ElectionSettings("default", NAMESPACE, leaseName, Duration.ofSeconds(4),
				Duration.ofSeconds(3), Duration.ofMillis(250));
		this.leader = replica("a", election).awaitLeading("default");
		replica("b", election);
		replica("c", election);
		this.lease = new LeaseWindows(server, NAMESPACE, leaseName);
		await().atMost(LockReplica.WAIT)
			.until(() -> this.replicas.stream()
				.allMatch((replica) -> "a".equals(replica.elector().status("default").holderIdentity())));
	}

	@AfterEach
	void stop() throws Exception {
		for (LockReplica replica : this.replicas) {
			replica.close();
		}
		assertThat(CurrentRun.fencingToken()).as("a run left current on the test's thread").isEmpty();
	}

	// ---- AbstractLockProviderIntegrationTest

	@Test
	void shouldCreateLock() {
		Optional<SimpleLock> lock = lock(lockConfig(this.name));
		assertThat(lock).isPresent();
		assertLocked(this.name);
		lock.get().unlock();
		assertUnlocked(this.name);
	}

	@Test
	void shouldNotReturnSecondLock() {
		Optional<SimpleLock> lock = lock(lockConfig(this.name));
		assertThat(lock).isPresent();
		assertThat(lock(lockConfig(this.name))).as("the same name, asked again while held").isEmpty();
		lock.get().unlock();
	}

	@Test
	void shouldCreateTwoIndependentLocks() {
		Optional<SimpleLock> lock = lock(lockConfig(this.name));
		Optional<SimpleLock> other = lock(lockConfig("name2"));
		assertThat(lock).isPresent();
		assertThat(other).isPresent();
		lock.get().unlock();
		other.get().unlock();
	}

	@Test
	void shouldLockTwiceInARow() {
		Optional<SimpleLock> first = lock(lockConfig(this.name));
		assertThat(first).isPresent();
		first.get().unlock();
		Optional<SimpleLock> second = lock(lockConfig(this.name));
		assertThat(second).isPresent();
		second.get().unlock();
	}

	/** ShedLock sleeps twice the lockAtMostFor; this waits for the Lease to say the lock expired. */
	@Test
	void shouldTimeout() throws InterruptedException {
		Duration lockAtMostFor = Duration.ofMillis(50);
		LockConfiguration abandoned = lockConfig(this.name, lockAtMostFor, Duration.ZERO);
		// taken on a thread of its own, which ends holding it
		AtomicReference<Optional<SimpleLock>> taken = new AtomicReference<>();
		Thread holder = new Thread(() -> taken.set(lock(abandoned)));
		holder.start();
		holder.join();
		assertThat(taken.get()).as("never released").isPresent();
		assertUnlocked(this.name);
		Optional<SimpleLock> lock = lock(lockConfig(this.name, lockAtMostFor, Duration.ZERO));
		assertThat(lock).isPresent();
		assertThat(ClockProvider.now()).as("not before the abandoned lock's lockAtMostFor passed")
			.isAfterOrEqualTo(abandoned.getLockAtMostUntil());
		lock.get().unlock();
	}

	@Test
	void shouldBeAbleToLockRightAfterUnlock() {
		LockConfiguration configuration = lockConfig(this.name);
		for (int round = 0; round < 10; round++) {
			Optional<SimpleLock> lock = lock(configuration);
			assertThat(lock).as("round %d", round).isPresent();
			assertThat(lock(configuration)).as("round %d, while held", round).isEmpty();
			lock.get().unlock();
		}
	}

	@Test
	void fuzzTestShouldPass() throws Exception {
		LockFuzz fuzz = new LockFuzz(this.leader.provider);
		fuzz.run();
		fuzz.assertNoUpdateLost();
	}

	/** ShedLock sleeps the lockAtLeastFor; this asks until the lock is granted, and checks when. */
	@Test
	void shouldLockAtLeastFor() {
		LockConfiguration held = lockConfig(this.name, LOCK_AT_LEAST_FOR.multipliedBy(2), LOCK_AT_LEAST_FOR);
		Optional<SimpleLock> lock = lock(held);
		assertThat(lock).isPresent();
		lock.get().unlock();
		assertThat(lock(lockConfig(this.name))).as("released, but within its lockAtLeastFor").isEmpty();
		AtomicReference<SimpleLock> next = new AtomicReference<>();
		await().atMost(LOCK_AT_LEAST_FOR.plus(RELEASE_WRITTEN))
			.until(() -> lock(lockConfig(this.name)).map((granted) -> next.compareAndSet(null, granted)).orElse(false));
		assertThat(ClockProvider.now()).isAfterOrEqualTo(held.getLockAtLeastUntil());
		next.get().unlock();
	}

	// ---- AbstractExtensibleLockProviderIntegrationTest

	/** ShedLock sleeps past the lock's first lockAtMostFor; this waits on the clock for that instant. */
	@Test
	void shouldBeAbleToExtendLock() {
		LockConfiguration configuration = lockConfig(this.name, Duration.ofSeconds(1), Duration.ZERO);
		SimpleLock lock = locked(configuration);
		assertLocked(this.name);
		Optional<SimpleLock> extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO);
		assertThat(extended).isPresent();
		awaitClockPast(configuration.getLockAtMostUntil());
		assertLocked(this.name);
		extended.get().unlock();
		assertUnlocked(this.name);
	}

	@Test
	void shouldNotBeAbleToExtendUnlockedLock() {
		SimpleLock lock = locked(lockConfig(this.name, Duration.ofSeconds(2), Duration.ZERO));
		lock.unlock();
		assertUnlocked(this.name);
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO));
	}

	/** ShedLock sleeps 2 ms past a lock of 1 ms; this waits on the clock for that instant. */
	@Test
	void shouldNotBeAbleToExtendExpiredLock() {
		LockConfiguration configuration = lockConfig(this.name, Duration.ofMillis(1), Duration.ZERO);
		SimpleLock lock = locked(configuration);
		awaitClockPast(configuration.getLockAtMostUntil().plusMillis(1));
		assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
		assertUnlocked(this.name);
	}

	@Test
	void shouldBeAbleToExtendAtLeast() {
		SimpleLock lock = locked(lockConfig(this.name, Duration.ofSeconds(10), Duration.ZERO));
		SimpleLock extended = extendLock(lock);
		extended.unlock();
		assertLocked(this.name);
		assertThat(lock(lockConfig(this.name))).as("the lockAtLeastFor of the extension holds").isEmpty();
	}

	@Test
	void lockCanNotBeExtendedTwice() {
		SimpleLock lock = locked(lockConfig(this.name, Duration.ofSeconds(10), Duration.ZERO));
		SimpleLock extended = extendLock(lock);
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)));
		extended.unlock();
	}

	@Test
	void lockCanNotBeUnlockedAfterExtending() {
		SimpleLock lock = locked(lockConfig(this.name, Duration.ofSeconds(10), Duration.ZERO));
		SimpleLock extended = extendLock(lock);
		assertThatIllegalStateException().isThrownBy(lock::unlock);
		extended.unlock();
	}

	// ---- AbstractStorageBasedLockProviderIntegrationTest, for a provider that keeps nothing itself

	/**
	 * ShedLock's storage-based providers cache which records exist, and must not steal a held lock
	 * once that cache is cleared. This provider keeps no state of its own: one made anew on the
	 * leader, as a restarted context would make it, refuses the lock held.
	 */
	@Test
	void lockShouldSurviveAProviderMadeAnew() {
		SimpleLock lock = locked(lockConfig(this.name));
		assertThat(this.leader.newProvider().lock(lockConfig(this.name))).isEmpty();
		lock.unlock();
	}

	private LockReplica replica(String identity, ElectionSettings election) {
		LockReplica replica = LockReplica.start(identity, server, List.of(election));
		this.replicas.add(replica);
		return replica;
	}

	private Optional<SimpleLock> lock(LockConfiguration configuration) {
		return this.leader.provider.lock(configuration);
	}

	/** The lock, which must be granted; if not, the failure tells what the leader saw. */
	private SimpleLock locked(LockConfiguration configuration) {
		return this.leader.take(configuration);
	}

	/** ShedLock's default: at most five minutes, at least nothing, from now on its clock. */
	private static LockConfiguration lockConfig(String name) {
		return lockConfig(name, Duration.ofMinutes(5), Duration.ZERO);
	}

	private static LockConfiguration lockConfig(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	private static SimpleLock extendLock(SimpleLock lock) {
		Optional<SimpleLock> extended = lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9));
		assertThat(extended).isPresent();
		return extended.get();
	}

	private void assertLocked(String name) {
		assertThat(this.lease.closed(name)).as("lock '%s' held in the Lease", name).isTrue();
	}

	private void assertUnlocked(String name) {
		await().atMost(RELEASE_WRITTEN).until(() -> !this.lease.closed(name));
	}

	private static void awaitClockPast(Instant instant) {
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(
				() -> ClockProvider.now().isAfter(instant));
	}

}
