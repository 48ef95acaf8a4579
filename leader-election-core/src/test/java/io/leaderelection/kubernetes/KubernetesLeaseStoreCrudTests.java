package io.leaderelection.kubernetes;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TimeZone;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStoreException;
import io.leaderelection.store.LeaseWatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link KubernetesLeaseStore} against fabric8's {@link KubernetesMockServer} in CRUD mode: a
 * real HTTP server that stores objects and bumps resourceVersion. Nothing is mocked on the
 * client side; the "other party" (kubectl, client-go, another tool) is a second fabric8 client
 * or raw HTTP on the same server.
 */
class KubernetesLeaseStoreCrudTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	/** client-go's MicroTime (metav1.RFC3339Micro) in UTC. */
	private static final Pattern MICRO_TIME = Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$");

	private static final String NS = "team-a";

	private static final String NAME = "orders-leader";

	private final ObjectMapper json = new ObjectMapper();

	private KubernetesMockServer server;

	/** The client the store uses. */
	private KubernetesClient client;

	/** Someone else: kubectl, client-go, an admission webhook. */
	private KubernetesClient other;

	private KubernetesLeaseStores stores;

	@BeforeEach
	void startServer() {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
		this.other = this.server.createClient();
		this.stores = new KubernetesLeaseStores(this.client, Runnable::run, Runnable::run);
	}

	@AfterEach
	void stopServer() {
		this.stores.close();
		this.client.close();
		this.other.close();
		this.server.destroy();
	}

	// ---- 1. reading and writing client-go's format ------------------------------------

	@Test
	void getOfMissingLeaseReturnsNull() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		assertThat(await(store.get(TIMEOUT))).isNull();
	}

	@Test
	void createThenGetReturnsTheRecord() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		LeaseRecord wanted = LeaseRecord.of("pod-a_x1y2", 15, Instant.parse("2026-11-21T14:51:52.123456Z"),
				Instant.parse("2026-11-21T14:51:53.654321Z"), 0);

		LeaseRecord created = await(store.create(wanted, TIMEOUT));
		assertThat(created.resourceVersion()).isNotBlank();
		assertThat(withoutVersion(created)).isEqualTo(wanted);

		LeaseRecord read = await(store(NS, NAME).get(TIMEOUT));
		assertThat(read).isEqualTo(created);
	}

	@Test
	void storedLeaseLooksLikeOneClientGoWrote() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		// nanoseconds must be cut to micros; a whole second must still get six zeros
		Instant acquire = Instant.parse("2026-11-21T14:51:52.123456789Z");
		Instant renew = Instant.parse("2026-11-21T14:52:07Z");
		await(store.create(LeaseRecord.of("pod-a_x1y2", 15, acquire, renew, 3), TIMEOUT));

		// as the fabric8 typed client reads it
		Lease lease = this.other.leases().inNamespace(NS).withName(NAME).get();
		assertThat(lease).isNotNull();
		assertThat(lease.getApiVersion()).isEqualTo("coordination.k8s.io/v1");
		assertThat(lease.getKind()).isEqualTo("Lease");
		assertThat(lease.getMetadata().getName()).isEqualTo(NAME);
		assertThat(lease.getMetadata().getNamespace()).isEqualTo(NS);
		assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("pod-a_x1y2");
		assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
		assertThat(lease.getSpec().getAcquireTime().toInstant()).isEqualTo("2026-11-21T14:51:52.123456Z");
		assertThat(lease.getSpec().getRenewTime().toInstant()).isEqualTo("2026-11-21T14:52:07Z");
		assertThat(lease.getSpec().getLeaseTransitions()).isEqualTo(3);

		// as raw JSON, the way kubectl and client-go see it
		JsonNode raw = rawGet(NS, NAME);
		assertThat(raw.path("apiVersion").asText()).isEqualTo("coordination.k8s.io/v1");
		assertThat(raw.path("kind").asText()).isEqualTo("Lease");
		JsonNode spec = raw.path("spec");
		assertThat(spec.path("holderIdentity").isTextual()).isTrue();
		assertThat(spec.path("holderIdentity").asText()).isEqualTo("pod-a_x1y2");
		assertThat(spec.path("leaseDurationSeconds").isInt()).isTrue();
		assertThat(spec.path("leaseDurationSeconds").asInt()).isEqualTo(15);
		assertThat(spec.path("leaseTransitions").isInt()).isTrue();
		assertThat(spec.path("leaseTransitions").asInt()).isEqualTo(3);
		assertThat(spec.path("acquireTime").isTextual()).isTrue();
		assertThat(spec.path("acquireTime").asText()).matches(MICRO_TIME).isEqualTo("2026-11-21T14:51:52.123456Z");
		assertThat(spec.path("renewTime").isTextual()).isTrue();
		assertThat(spec.path("renewTime").asText()).matches(MICRO_TIME).isEqualTo("2026-11-21T14:52:07.000000Z");
		// nothing that client-go would not write
		assertThat(spec.has("preferredHolder")).isFalse();
		assertThat(spec.has("strategy")).isFalse();

		// an update writes the same format
		LeaseRecord current = await(store.get(TIMEOUT));
		Instant renew2 = Instant.parse("2026-11-21T14:52:09.000001999Z");
		await(store.update(current.rewrite("pod-a_x1y2", 15, acquire, renew2, 3), TIMEOUT));
		JsonNode updated = rawGet(NS, NAME);
		assertThat(updated.path("apiVersion").asText()).isEqualTo("coordination.k8s.io/v1");
		assertThat(updated.path("kind").asText()).isEqualTo("Lease");
		assertThat(updated.path("spec").path("renewTime").asText()).isEqualTo("2026-11-21T14:52:09.000001Z");
		assertThat(updated.path("spec").path("acquireTime").asText()).isEqualTo("2026-11-21T14:51:52.123456Z");
	}

	@Test
	void releaseIsWrittenLikeClientGoWritesIt() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		Instant now = Instant.parse("2026-11-21T14:51:52.5Z");
		LeaseRecord held = await(store.create(LeaseRecord.of("pod-a", 15, now, now, 1), TIMEOUT));

		// client-go's release: holderIdentity "", leaseDurationSeconds 1, times kept
		await(store.update(held.rewrite("", 1, now, now, 1), TIMEOUT));

		JsonNode spec = rawGet(NS, NAME).path("spec");
		assertThat(spec.has("holderIdentity")).isTrue();
		assertThat(spec.path("holderIdentity").asText()).isEmpty();
		assertThat(spec.path("leaseDurationSeconds").asInt()).isEqualTo(1);
		assertThat(spec.path("renewTime").asText()).isEqualTo("2026-11-21T14:51:52.500000Z");
		LeaseRecord read = await(store(NS, NAME).get(TIMEOUT));
		assertThat(read.hasHolder()).isFalse();
	}

	@Test
	void readsALeaseWrittenByClientGo() throws Exception {
		String clientGoLease = """
				{"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
				 "metadata":{"name":"orders-leader","namespace":"team-a"},
				 "spec":{"holderIdentity":"orders-7d9f8b6c4-xk2lp_5c1e3a9b-2f4d-4e8a-9c7b-1d2e3f4a5b6c",
				         "leaseDurationSeconds":15,
				         "acquireTime":"2026-11-21T14:51:52.123456Z",
				         "renewTime":"2026-11-21T14:53:07.654321Z",
				         "leaseTransitions":7}}
				""";
		HttpResponse<String> posted = rawSend(this.other.getHttpClient()
			.newHttpRequestBuilder()
			.uri(collectionUrl(NS))
			.post("application/json", clientGoLease)
			.build());
		assertThat(posted.code()).isEqualTo(201);
		String version = this.json.readTree(posted.body()).path("metadata").path("resourceVersion").asText();

		LeaseRecord read = await(store(NS, NAME).get(TIMEOUT));

		assertThat(withoutVersion(read)).isEqualTo(LeaseRecord.of(
				"orders-7d9f8b6c4-xk2lp_5c1e3a9b-2f4d-4e8a-9c7b-1d2e3f4a5b6c", 15,
				Instant.parse("2026-11-21T14:51:52.123456Z"), Instant.parse("2026-11-21T14:53:07.654321Z"), 7));
		assertThat(read.resourceVersion()).isEqualTo(version);
	}

	@Test
	void readsALeaseWithoutTimesOrTransitions() throws Exception {
		// what `kubectl create -f` with only a holder (or an empty spec) leaves behind
		this.other.leases()
			.inNamespace(NS)
			.resource(new LeaseBuilder().withNewMetadata()
				.withName(NAME)
				.endMetadata()
				.withNewSpec()
				.withHolderIdentity("someone")
				.endSpec()
				.build())
			.create();

		LeaseRecord read = await(store(NS, NAME).get(TIMEOUT));

		assertThat(read.holderIdentity()).isEqualTo("someone");
		assertThat(read.leaseDurationSeconds()).isNull();
		assertThat(read.acquireTime()).isNull();
		assertThat(read.renewTime()).isNull();
		assertThat(read.leaseTransitions()).isNull();
		assertThat(read.transitions()).isZero();
		assertThat(read.resourceVersion()).isNotBlank();
	}

	@Test
	void timesDoNotDependOnTheDefaultTimeZone() throws Exception {
		TimeZone saved = TimeZone.getDefault();
		TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));
		try (KubernetesClient shifted = this.server.createClient();
				KubernetesLeaseStores shiftedStores = new KubernetesLeaseStores(shifted, Runnable::run,
						Runnable::run)) {
			KubernetesLeaseStore store = shiftedStores.forLease(NS, NAME);
			Instant acquire = Instant.parse("2026-11-21T14:51:52.123456Z");
			await(store.create(LeaseRecord.of("pod-a", 15, acquire, acquire, 0), TIMEOUT));

			assertThat(rawGet(NS, NAME).path("spec").path("acquireTime").asText())
				.isEqualTo("2026-11-21T14:51:52.123456Z");
			assertThat(await(shiftedStores.forLease(NS, NAME).get(TIMEOUT)).acquireTime())
				.isEqualTo(acquire);
		}
		finally {
			TimeZone.setDefault(saved);
		}
	}

	// ---- 2. optimistic locking -----------------------------------------------------------

	@Test
	void crudServerAnswers409ToAPutWithAStaleResourceVersion() throws Exception {
		// The premise of leader election on this server: a write with an old resourceVersion loses.
		Lease created = this.other.leases()
			.inNamespace(NS)
			.resource(new LeaseBuilder().withNewMetadata()
				.withName(NAME)
				.endMetadata()
				.withNewSpec()
				.withHolderIdentity("a")
				.endSpec()
				.build())
			.create();
		String stale = created.getMetadata().getResourceVersion();
		Lease bumped = this.other.leases().inNamespace(NS).withName(NAME).edit((l) -> {
			l.getSpec().setHolderIdentity("b");
			return l;
		});
		assertThat(bumped.getMetadata().getResourceVersion()).isNotEqualTo(stale);

		created.getSpec().setHolderIdentity("c");
		created.getMetadata().setResourceVersion(stale);
		HttpResponse<String> answer = rawSend(this.other.getHttpClient()
			.newHttpRequestBuilder()
			.uri(objectUrl(NS, NAME))
			.put("application/json", this.other.getKubernetesSerialization().asJson(created))
			.build());

		assertThat(answer.code()).as("answer to a PUT with a stale resourceVersion: %s", answer.body())
			.isEqualTo(409);
		assertThat(this.other.leases().inNamespace(NS).withName(NAME).get().getSpec().getHolderIdentity())
			.isEqualTo("b");
	}

	@Test
	void crudServerAnswers409ToAPostOfAnExistingName() throws Exception {
		String body = "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
				+ "\"metadata\":{\"name\":\"" + NAME + "\",\"namespace\":\"" + NS + "\"},"
				+ "\"spec\":{\"holderIdentity\":\"%s\"}}";
		HttpRequest.Builder post = this.other.getHttpClient().newHttpRequestBuilder().uri(collectionUrl(NS));
		assertThat(rawSend(post.post("application/json", body.formatted("a")).build()).code()).isEqualTo(201);

		HttpResponse<String> second = rawSend(post.post("application/json", body.formatted("b")).build());

		assertThat(second.code()).as("answer to a second POST: %s", second.body()).isEqualTo(409);
		assertThat(this.other.leases().inNamespace(NS).withName(NAME).get().getSpec().getHolderIdentity())
			.isEqualTo("a");
	}

	@Test
	void updateWithAStaleResourceVersionFailsWithConflict() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");
		LeaseRecord mine = await(store.create(LeaseRecord.of("pod-a", 15, t0, t0, 0), TIMEOUT));

		// another candidate wins the race with the same version
		KubernetesLeaseStore rival = store(NS, NAME);
		LeaseRecord seen = await(rival.get(TIMEOUT));
		assertThat(seen.resourceVersion()).isEqualTo(mine.resourceVersion());
		LeaseRecord taken = await(rival.update(seen.rewrite("pod-b", 15, t0.plusSeconds(20), t0.plusSeconds(20), 1), TIMEOUT));
		assertThat(taken.resourceVersion()).isNotEqualTo(mine.resourceVersion());

		Throwable failure = failureOf(store.update(mine.rewrite("pod-a", 15, t0, t0.plusSeconds(2), 0), TIMEOUT));

		assertThat(failure).isInstanceOf(LeaseConflictException.class);
		assertThat(((LeaseStoreException) failure).getStatusCode()).isEqualTo(409);
		assertThat(((LeaseStoreException) failure).getVerb()).isEqualTo("update");
		assertThat(failure).hasMessageStartingWith("update Lease team-a/orders-leader: 409");
		// the winner's write stands
		assertThat(await(store.get(TIMEOUT))).isEqualTo(taken);
	}

	@Test
	void renewWithTheVersionOfTheLastWriteSucceedsAndBumpsTheVersion() throws Exception {
		// client-go's fast path: renew = one PUT of the last object with its resourceVersion
		KubernetesLeaseStore store = store(NS, NAME);
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");
		LeaseRecord last = await(store.create(LeaseRecord.of("pod-a", 15, t0, t0, 0), TIMEOUT));
		for (int i = 1; i <= 3; i++) {
			LeaseRecord renewed = await(store.update(last.rewrite("pod-a", 15, t0, t0.plusSeconds(2 * i), 0), TIMEOUT));
			assertThat(renewed.resourceVersion()).isNotEqualTo(last.resourceVersion());
			assertThat(renewed.renewTime()).isEqualTo(t0.plusSeconds(2 * i));
			last = renewed;
		}
		assertThat(this.other.leases().inNamespace(NS).withName(NAME).get().getMetadata().getResourceVersion())
			.isEqualTo(last.resourceVersion());
	}

	@Test
	void createOfAnExistingLeaseFailsWithConflict() throws Exception {
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");
		LeaseRecord first = await(store(NS, NAME).create(LeaseRecord.of("pod-a", 15, t0, t0, 0), TIMEOUT));

		Throwable failure = failureOf(store(NS, NAME).create(LeaseRecord.of("pod-b", 15, t0, t0, 0), TIMEOUT));

		assertThat(failure).isInstanceOf(LeaseConflictException.class);
		assertThat(((LeaseStoreException) failure).getStatusCode()).isEqualTo(409);
		assertThat(failure).hasMessageStartingWith("create Lease team-a/orders-leader: 409");
		assertThat(await(store(NS, NAME).get(TIMEOUT))).isEqualTo(first);
	}

	// ---- 3. deleted Lease ------------------------------------------------------------------

	@Test
	void updateOfADeletedLeaseFailsWithNotFound() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");
		LeaseRecord mine = await(store.create(LeaseRecord.of("pod-a", 15, t0, t0, 0), TIMEOUT));
		assertThat(this.other.leases().inNamespace(NS).withName(NAME).delete()).hasSize(1);

		Throwable failure = failureOf(
				store.update(mine.rewrite("pod-a", 15, t0, t0.plusSeconds(2), 0), TIMEOUT));

		assertThat(failure).isInstanceOf(LeaseNotFoundException.class);
		assertThat(((LeaseStoreException) failure).getStatusCode()).isEqualTo(404);
		assertThat(failure).hasMessageStartingWith("update Lease team-a/orders-leader: 404");
		// and the update did not bring it back
		assertThat(this.other.leases().inNamespace(NS).withName(NAME).get()).isNull();
		assertThat(await(store.get(TIMEOUT))).isNull();
	}

	@Test
	void createAfterDeleteStartsAFreshLease() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");
		LeaseRecord first = await(store.create(LeaseRecord.of("pod-a", 15, t0, t0, 4), TIMEOUT));
		this.other.leases().inNamespace(NS).withName(NAME).delete();
		assertThat(await(store.get(TIMEOUT))).isNull();

		// the engine hands in the old record; its resourceVersion must not be sent on a create
		// (the CRUD mock server would accept it, a real API server rejects it: the body is checked
		// in KubernetesLeaseStoreErrorTests)
		LeaseRecord again = await(store.create(first.rewrite("pod-a", 15, t0.plusSeconds(30), t0.plusSeconds(30), 5), TIMEOUT));

		assertThat(again.leaseTransitions()).isEqualTo(5);
		assertThat(again.resourceVersion()).isNotBlank();
		assertThat(this.other.leases().inNamespace(NS).withName(NAME).get().getSpec().getLeaseTransitions())
			.isEqualTo(5);
	}

	// ---- 4. fields the store does not own ------------------------------------------------

	@Test
	void updateKeepsFieldsItDoesNotOwn() throws Exception {
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");
		this.other.leases().inNamespace(NS).resource(foreignLease("pod-z", t0, 2)).create();

		KubernetesLeaseStore store = store(NS, NAME);
		LeaseRecord seen = await(store.get(TIMEOUT));
		Instant t1 = t0.plusSeconds(60);
		LeaseRecord written = await(store.update(seen.rewrite("pod-a", 10, t1, t1, 3),
				TIMEOUT));

		assertThat(withoutVersion(written)).isEqualTo(LeaseRecord.of("pod-a", 10, t1, t1, 3));
		assertForeignFieldsKept(this.other.leases().inNamespace(NS).withName(NAME).get());
	}

	@Test
	void updateAfterAConflictKeepsFieldsSomeoneAddedMeanwhile() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");
		LeaseRecord mine = await(store.create(LeaseRecord.of("pod-a", 15, t0, t0, 0), TIMEOUT));

		// someone decorates the Lease between two renewals
		Lease decorated = this.other.leases().inNamespace(NS).withName(NAME).edit((l) -> {
			Lease foreign = foreignLease("ignored", t0, 0);
			l.getMetadata().setLabels(foreign.getMetadata().getLabels());
			l.getMetadata().setAnnotations(foreign.getMetadata().getAnnotations());
			l.getMetadata().setOwnerReferences(foreign.getMetadata().getOwnerReferences());
			l.getSpec().setPreferredHolder(foreign.getSpec().getPreferredHolder());
			l.getSpec().setStrategy(foreign.getSpec().getStrategy());
			return l;
		});
		assertThat(decorated.getMetadata().getResourceVersion()).isNotEqualTo(mine.resourceVersion());

		// the renew from the last object we wrote conflicts ...
		assertThat(failureOf(store.update(mine.rewrite("pod-a", 15, t0, t0.plusSeconds(2), 0), TIMEOUT))).isInstanceOf(LeaseConflictException.class);
		// ... a read and a second try succeed and keep what was added
		LeaseRecord seen = await(store.get(TIMEOUT));
		assertThat(seen.resourceVersion()).isEqualTo(decorated.getMetadata().getResourceVersion());
		await(store.update(seen.rewrite("pod-a", 15, t0, t0.plusSeconds(2), 0), TIMEOUT));

		Lease stored = this.other.leases().inNamespace(NS).withName(NAME).get();
		assertForeignFieldsKept(stored);
		assertThat(stored.getSpec().getHolderIdentity()).isEqualTo("pod-a");
		assertThat(stored.getSpec().getRenewTime().toInstant()).isEqualTo(t0.plusSeconds(2));
	}

	@Test
	void updateKeepsUnknownFieldsAndItsOwnWritesDoNotDropThemLater() throws Exception {
		// A Lease from a newer API version carries a spec field this client's model does not know.
		String lease = """
				{"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
				 "metadata":{"name":"orders-leader","namespace":"team-a","labels":{"app":"orders"}},
				 "spec":{"holderIdentity":"pod-z","leaseDurationSeconds":15,
				         "acquireTime":"2026-11-21T14:51:52.000000Z","renewTime":"2026-11-21T14:51:52.000000Z",
				         "leaseTransitions":2,"futureField":{"x":1}}}
				""";
		assertThat(rawSend(this.other.getHttpClient()
			.newHttpRequestBuilder()
			.uri(collectionUrl(NS))
			.post("application/json", lease)
			.build()).code()).isEqualTo(201);

		KubernetesLeaseStore store = store(NS, NAME);
		LeaseRecord seen = await(store.get(TIMEOUT));
		Instant t1 = Instant.parse("2026-11-21T14:53:00Z");
		LeaseRecord first = await(store.update(seen.rewrite("pod-a", 15, t1, t1, 3),
				TIMEOUT));
		await(store.update(first.rewrite("pod-a", 15, t1, t1.plusSeconds(2), 3), TIMEOUT));

		JsonNode stored = rawGet(NS, NAME);
		assertThat(stored.path("metadata").path("labels").path("app").asText()).isEqualTo("orders");
		assertThat(stored.path("spec").path("futureField").path("x").asInt()).isEqualTo(1);
		assertThat(stored.path("spec").path("renewTime").asText()).isEqualTo("2026-11-21T14:53:02.000000Z");
	}

	// ---- 6. names as given ----------------------------------------------------------------

	@Test
	void namespaceAndNameAreUsedAsGiven() throws Exception {
		String ns = "team-a-prod-2";
		String name = "orders.billing-leader.v1";
		KubernetesLeaseStore store = store(ns, name);
		assertThat(store.describe()).isEqualTo("Lease team-a-prod-2/orders.billing-leader.v1");
		Instant t0 = Instant.parse("2026-11-21T14:51:52Z");

		LeaseRecord created = await(store.create(LeaseRecord.of("pod-a", 15, t0, t0, 0), TIMEOUT));
		await(store.update(created.rewrite("pod-a", 15, t0, t0.plusSeconds(2), 0),
				TIMEOUT));

		Lease lease = this.other.leases().inNamespace(ns).withName(name).get();
		assertThat(lease).isNotNull();
		assertThat(lease.getMetadata().getName()).isEqualTo(name);
		assertThat(lease.getMetadata().getNamespace()).isEqualTo(ns);
		assertThat(lease.getSpec().getRenewTime().toInstant()).isEqualTo(t0.plusSeconds(2));
		// nothing leaked into a neighbouring namespace or name
		assertThat(this.other.leases().inNamespace(NS).list().getItems()).isEmpty();
		assertThat(this.other.leases().inNamespace(ns).list().getItems()).extracting((l) -> l.getMetadata().getName())
			.containsExactly(name);
		assertThat(await(store(ns, "orders").get(TIMEOUT))).isNull();
	}

	// ---- helpers ---------------------------------------------------------------------------

	@Test
	void aWatchTellsTheCurrentVersionThenEveryChangeAndTheDeletion() throws Exception {
		KubernetesLeaseStore store = store(NS, NAME);
		LeaseRecord created = await(store.create(LeaseRecord.of("a", 15, Instant.now(), Instant.now(), 0),
				TIMEOUT));
		BlockingQueue<Optional<LeaseRecord>> changes = new LinkedBlockingQueue<>();
		LeaseWatch watch = store.watch(new LeaseWatch.Listener() {
			@Override
			public void opened() {
			}

			@Override
			public void changed(LeaseRecord record) {
				changes.add(Optional.ofNullable(record));
			}

			@Override
			public void ended(Throwable cause) {
			}
		});
		try {
			Optional<LeaseRecord> current = changes.poll(5, TimeUnit.SECONDS);
			assertThat(current).hasValueSatisfying(
					(record) -> assertThat(record.resourceVersion()).isEqualTo(created.resourceVersion()));
			LeaseRecord renewed = await(store.update(created.rewrite("a", 15, created.acquireTime(), Instant.now(), 0), TIMEOUT));
			Optional<LeaseRecord> first = changes.poll(5, TimeUnit.SECONDS);
			assertThat(first).isNotNull();
			assertThat(first).hasValueSatisfying((record) -> {
				assertThat(record.resourceVersion()).isEqualTo(renewed.resourceVersion());
				assertThat(record.renewTime()).isEqualTo(renewed.renewTime());
			});
			this.client.leases().inNamespace(NS).withName(NAME).delete();
			assertThat(changes.poll(5, TimeUnit.SECONDS)).isEmpty();
		}
		finally {
			watch.close();
		}
	}

	private KubernetesLeaseStore store(String namespace, String name) {
		return this.stores.forLease(namespace, name);
	}

	private static Lease foreignLease(String holder, Instant time, int transitions) {
		return new LeaseBuilder().withNewMetadata()
			.withName(NAME)
			.withNamespace(NS)
			.withLabels(Map.of("app.kubernetes.io/name", "orders", "team", "a"))
			.withAnnotations(Map.of("example.com/owner", "platform", "kubectl.kubernetes.io/last-applied-configuration",
					"{}"))
			.withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1")
				.withKind("Deployment")
				.withName("orders")
				.withUid("6f1c8a57-0f4e-4bd4-9a8c-1b2c3d4e5f60")
				.withController(true)
				.build())
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity(holder)
			.withLeaseDurationSeconds(15)
			.withAcquireTime(time.atZone(ZoneOffset.UTC))
			.withRenewTime(time.atZone(ZoneOffset.UTC))
			.withLeaseTransitions(transitions)
			.withPreferredHolder("pod-b")
			.withStrategy("OldestEmulationVersion")
			.endSpec()
			.build();
	}

	private static void assertForeignFieldsKept(Lease stored) {
		assertThat(stored.getMetadata().getLabels()).containsEntry("app.kubernetes.io/name", "orders")
			.containsEntry("team", "a");
		assertThat(stored.getMetadata().getAnnotations()).containsEntry("example.com/owner", "platform")
			.containsEntry("kubectl.kubernetes.io/last-applied-configuration", "{}");
		assertThat(stored.getMetadata().getOwnerReferences()).singleElement().satisfies((ref) -> {
			assertThat(ref.getKind()).isEqualTo("Deployment");
			assertThat(ref.getName()).isEqualTo("orders");
			assertThat(ref.getUid()).isEqualTo("6f1c8a57-0f4e-4bd4-9a8c-1b2c3d4e5f60");
			assertThat(ref.getController()).isTrue();
		});
		assertThat(stored.getSpec().getPreferredHolder()).isEqualTo("pod-b");
		assertThat(stored.getSpec().getStrategy()).isEqualTo("OldestEmulationVersion");
	}

	private static LeaseRecord withoutVersion(LeaseRecord record) {
		return LeaseRecord.of(record.holderIdentity(), record.leaseDurationSeconds(), record.acquireTime(),
				record.renewTime(), record.leaseTransitions());
	}

	private String collectionUrl(String namespace) {
		return this.server.url("/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases");
	}

	private String objectUrl(String namespace, String name) {
		return collectionUrl(namespace) + "/" + name;
	}

	private JsonNode rawGet(String namespace, String name) throws Exception {
		HttpResponse<String> response = rawSend(
				this.other.getHttpClient().newHttpRequestBuilder().uri(objectUrl(namespace, name)).build());
		assertThat(response.code()).isEqualTo(200);
		return this.json.readTree(response.body());
	}

	private HttpResponse<String> rawSend(HttpRequest request) throws Exception {
		HttpClient http = this.other.getHttpClient();
		return http.sendAsync(request, String.class).get(10, TimeUnit.SECONDS);
	}

	private static <T> T await(CompletableFuture<T> future) throws Exception {
		return future.get(10, TimeUnit.SECONDS);
	}

	private static Throwable failureOf(CompletableFuture<?> future) {
		Throwable thrown = catchThrowable(() -> future.get(10, TimeUnit.SECONDS));
		assertThat(thrown).as("the future must fail").isInstanceOf(ExecutionException.class);
		return thrown.getCause();
	}

}
