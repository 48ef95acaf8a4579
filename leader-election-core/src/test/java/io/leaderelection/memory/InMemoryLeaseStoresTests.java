package io.leaderelection.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import io.leaderelection.RevocationCause;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The in-memory Leases under the real engine: one process leads at once; replicas sharing them
 * elect among themselves, handing over without two gates open and with rising fencing tokens.
 */
class InMemoryLeaseStoresTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** Long enough that nothing expires during a test: every handover here is a release. */
	private static final ElectionSettings ELECTION = new ElectionSettings("default", "test", "app-leader",
			Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofMillis(100));

	private final List<AutoCloseable> resources = new ArrayList<>();

	/** Each term: when its gate opened and closed, on the engines' shared monotonic clock, and its token. */
	private final List<long[]> terms = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int last = this.resources.size() - 1; last >= 0; last--) {
			this.resources.get(last).close();
		}
	}

	@Test
	void aLeaseForOneProcessIsLedAtOnce() throws InterruptedException {
		InMemoryLeaseStores leases = open(InMemoryLeaseStores.forOneProcess());
		ElectionEngine engine = engine("solo", leases);
		engine.start();
		assertThat(engine.awaitLeadership("default", true, WAIT)).isTrue();
		assertThat(this.terms).hasSize(1);
		assertThat(leases.read("test", "app-leader").holderIdentity()).isEqualTo("solo");
	}

	@Test
	void writesAreCompareAndSwapOnTheResourceVersion() {
		InMemoryLeaseStores leases = open(InMemoryLeaseStores.shared());
		LeaseStore store = leases.create(ELECTION);
		assertThat(store.get(WAIT).join()).isNull();
		assertThatThrownBy(() -> store.update(created("a").rewrite("a", 1, null, null, 0), WAIT).join())
			.isInstanceOf(CompletionException.class)
			.hasCauseInstanceOf(LeaseNotFoundException.class);
		LeaseRecord first = store.create(created("a"), WAIT).join();
		assertThatThrownBy(() -> store.create(created("b"), WAIT).join()).hasCauseInstanceOf(LeaseConflictException.class);
		LeaseRecord second = store.update(first.rewrite("b", 60, null, Instant.now(), 1), WAIT).join();
		assertThat(Long.parseLong(second.resourceVersion())).isGreaterThan(Long.parseLong(first.resourceVersion()));
		assertThatThrownBy(() -> store.update(first.rewrite("c", 60, null, Instant.now(), 1), WAIT).join())
			.hasCauseInstanceOf(LeaseConflictException.class);
		leases.delete("test", "app-leader");
		LeaseRecord again = store.create(created("c"), WAIT).join();
		assertThat(again.uid()).isNotEqualTo(first.uid());
		assertThat(Long.parseLong(again.resourceVersion())).isGreaterThan(Long.parseLong(second.resourceVersion()));
	}

	@Test
	void replicasSharingLeasesHandOverOnStepDownWithoutTwoGatesAndWithRisingTokens() throws InterruptedException {
		InMemoryLeaseStores leases = open(InMemoryLeaseStores.shared());
		// released, as a previous leader leaves it, so that the first leader need not wait a lease duration
		LeaseStore store = leases.create(ELECTION);
		store.create(LeaseRecord.of(null, 60, null, Instant.now(), 0), WAIT).join();
		List<ElectionEngine> replicas = List.of(engine("a", leases), engine("b", leases), engine("c", leases));
		replicas.forEach(ElectionEngine::start);
		for (int handover = 0; handover < 6; handover++) {
			ElectionEngine leader = awaitLeader(replicas);
			leader.stepDown("default");
			assertThat(leader.awaitLeadership("default", false, WAIT)).isTrue();
		}
		awaitLeader(replicas);
		List<long[]> terms = this.terms.stream().sorted(Comparator.comparingLong((long[] term) -> term[0])).toList();
		assertThat(terms).hasSize(7);
		for (int term = 1; term < terms.size(); term++) {
			assertThat(terms.get(term)[0]).as("term %d opens after term %d closed", term, term - 1)
				.isGreaterThan(terms.get(term - 1)[1]);
			assertThat(terms.get(term)[2]).as("fencing token of term %d", term).isGreaterThan(terms.get(term - 1)[2]);
		}
	}

	@Test
	void aReplicaThatSteppedDownLeadsAgainOnceAnotherTookOverAndReleasedWithoutWaitingALeaseDuration()
			throws InterruptedException {
		InMemoryLeaseStores leases = open(InMemoryLeaseStores.forOneProcess());
		ElectionEngine first = engine("first", leases);
		first.start();
		assertThat(first.awaitLeadership("default", true, WAIT)).isTrue();
		ElectionEngine second = engine("second", leases);
		second.start();
		first.stepDown("default");
		assertThat(second.awaitLeadership("default", true, WAIT)).isTrue();
		second.stepDown("default");
		// within the wait, far shorter than the 60 s lease duration the first stays out for at most
		assertThat(first.awaitLeadership("default", true, WAIT)).isTrue();
	}

	/** The one replica that leads, once it leads and its grant was told. */
	private ElectionEngine awaitLeader(List<ElectionEngine> replicas) throws InterruptedException {
		ElectionEngine leader = await().atMost(WAIT)
			.pollInterval(Duration.ofMillis(5))
			.until(() -> replicas.stream().filter(ElectionEngine::isLeader).findFirst(), Optional::isPresent)
			.orElseThrow();
		assertThat(leader.awaitLeadership("default", true, WAIT)).as("%s's grant told", leader.identity()).isTrue();
		return leader;
	}

	private static LeaseRecord created(String holder) {
		return LeaseRecord.of(holder, 60, Instant.now(), Instant.now(), 0);
	}

	private ElectionEngine engine(String identity, InMemoryLeaseStores leases) {
		LeaderElectionThreads threads = open(new LeaderElectionThreads());
		ElectionListener recordTerms = new ElectionListener() {

			private long[] current;

			@Override
			public void granted(String election, long fencingToken, long gateOpenedAt) {
				this.current = new long[] { gateOpenedAt, Long.MAX_VALUE, fencingToken };
				InMemoryLeaseStoresTests.this.terms.add(this.current);
			}

			@Override
			public void revoked(String election, RevocationCause cause, long gateClosedAt) {
				this.current[1] = gateClosedAt;
			}

		};
		ElectionEngine engine = new ElectionEngine(identity, List.of(ELECTION), leases, threads.runtime(),
				List.of(recordTerms));
		this.resources.add(() -> engine.stop(false).join());
		return engine;
	}

	private <T extends AutoCloseable> T open(T resource) {
		this.resources.add(resource);
		return resource;
	}

}
