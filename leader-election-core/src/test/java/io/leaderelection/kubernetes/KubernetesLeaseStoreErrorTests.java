package io.leaderelection.kubernetes;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.store.LeaseConflictException;
import io.leaderelection.store.LeaseNotFoundException;
import io.leaderelection.store.LeaseRecord;
import io.leaderelection.store.LeaseStoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link KubernetesLeaseStore} against fabric8's {@link KubernetesMockServer} in expectations
 * mode, for the answers a CRUD server never gives: 403, 404 for a missing namespace, 500, a
 * server that does not answer, and bodies that are not a Lease.
 */
class KubernetesLeaseStoreErrorTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final String NS = "team-a";

	private static final String NAME = "orders-leader";

	private static final String COLLECTION = "/apis/coordination.k8s.io/v1/namespaces/team-a/leases";

	private static final String OBJECT = COLLECTION + "/orders-leader";

	private static final Instant T0 = Instant.parse("2026-11-21T14:51:52Z");

	private static final LeaseRecord MINE = new LeaseRecord("pod-a", 15, T0, T0, 0, null, null, "41", null);

	private KubernetesMockServer server;

	private KubernetesClient client;

	private KubernetesLeaseStores stores;

	private KubernetesLeaseStore store;

	@BeforeEach
	void startServer() {
		this.server = new KubernetesMockServer(false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
		this.stores = new KubernetesLeaseStores(this.client, Runnable::run, Runnable::run);
		this.store = this.stores.forLease(NS, NAME);
	}

	@AfterEach
	void stopServer() {
		this.stores.close();
		this.client.close();
		this.server.destroy();
	}

	// ---- 403 -------------------------------------------------------------------------------

	@Test
	void forbiddenGet() {
		this.server.expect().get().withPath(OBJECT).andReturn(403, forbidden("get")).always();

		LeaseStoreException failure = failureOf(this.store.get(TIMEOUT));

		assertThat(failure.getStatusCode()).isEqualTo(403);
		assertThat(failure.getVerb()).isEqualTo("get");
		assertThat(failure).hasMessageStartingWith("get Lease team-a/orders-leader: 403")
			.hasMessageContaining("cannot get resource \"leases\"");
	}

	@Test
	void forbiddenCreate() {
		this.server.expect().post().withPath(COLLECTION).andReturn(403, forbidden("create")).always();

		LeaseStoreException failure = failureOf(this.store.create(MINE, TIMEOUT));

		assertThat(failure).isNotInstanceOfAny(LeaseConflictException.class, LeaseNotFoundException.class);
		assertThat(failure.getStatusCode()).isEqualTo(403);
		assertThat(failure.getVerb()).isEqualTo("create");
		assertThat(failure).hasMessageStartingWith("create Lease team-a/orders-leader: 403")
			.hasMessageContaining("cannot create resource \"leases\"");
	}

	@Test
	void forbiddenUpdate() {
		this.server.expect().put().withPath(OBJECT).andReturn(403, forbidden("update")).always();

		LeaseStoreException failure = failureOf(this.store.update(MINE, TIMEOUT));

		assertThat(failure).isNotInstanceOfAny(LeaseConflictException.class, LeaseNotFoundException.class);
		assertThat(failure.getStatusCode()).isEqualTo(403);
		assertThat(failure.getVerb()).isEqualTo("update");
		assertThat(failure).hasMessageStartingWith("update Lease team-a/orders-leader: 403")
			.hasMessageContaining("cannot update resource \"leases\"");
	}

	@Test
	void forbiddenWithoutAStatusBodyStillNamesVerbLeaseAndCode() {
		// e.g. an authenticating proxy in front of the API server
		this.server.expect().get().withPath(OBJECT).andReturn(403, "").always();

		LeaseStoreException failure = failureOf(this.store.get(TIMEOUT));

		assertThat(failure.getStatusCode()).isEqualTo(403);
		assertThat(failure).hasMessageStartingWith("get Lease team-a/orders-leader: 403");
	}

	// ---- 404 namespace ---------------------------------------------------------------------

	@Test
	void createInAMissingNamespaceNamesTheNamespace() {
		Status status = new StatusBuilder().withStatus("Failure")
			.withMessage("namespaces \"team-a\" not found")
			.withReason("NotFound")
			.withNewDetails()
			.withName("team-a")
			.withKind("namespaces")
			.endDetails()
			.withCode(404)
			.build();
		this.server.expect().post().withPath(COLLECTION).andReturn(404, status).always();

		LeaseStoreException failure = failureOf(this.store.create(MINE, TIMEOUT));

		assertThat(failure).isNotInstanceOf(LeaseNotFoundException.class);
		assertThat(failure.getStatusCode()).isEqualTo(404);
		assertThat(failure.getVerb()).isEqualTo("create");
		assertThat(failure).hasMessageStartingWith("create Lease team-a/orders-leader: 404")
			.hasMessageContaining("namespace")
			.hasMessageContaining("'team-a'");
	}

	@Test
	void getInAMissingNamespaceIsAMissingLease() throws Exception {
		// the API server answers 404 for a Lease in a namespace that does not exist, like for a
		// missing Lease; the create that follows reports the namespace
		this.server.expect().get().withPath(OBJECT).andReturn(404, notFound()).always();

		assertThat(this.store.get(TIMEOUT).get(10, TimeUnit.SECONDS)).isNull();
	}

	@Test
	void updateAnswered404IsNotFound() {
		this.server.expect().put().withPath(OBJECT).andReturn(404, notFound()).always();

		LeaseStoreException failure = failureOf(this.store.update(MINE, TIMEOUT));

		assertThat(failure).isInstanceOf(LeaseNotFoundException.class);
		assertThat(failure.getStatusCode()).isEqualTo(404);
		assertThat(failure).hasMessageStartingWith("update Lease team-a/orders-leader: 404");
	}

	// ---- 500 ---------------------------------------------------------------------------------

	@Test
	void serverErrorOnGet() {
		this.server.expect().get().withPath(OBJECT).andReturn(500, internalError()).always();
		Duration timeout = Duration.ofSeconds(2);

		long start = System.nanoTime();
		LeaseStoreException failure = failureOf(this.store.get(timeout));
		Duration took = Duration.ofNanos(System.nanoTime() - start);

		assertThat(failure.getStatusCode()).isEqualTo(500);
		assertThat(failure).hasMessageStartingWith("get Lease team-a/orders-leader: 500")
			.hasMessageContaining("etcdserver: request timed out");
		// fabric8 would retry a 5xx up to 10 times with backoff (about 19 s): one attempt per call
		assertThat(took).as("a 500 must fail the call within its timeout").isLessThan(timeout.plusSeconds(1));
		assertThat(this.server.getRequestCount()).isEqualTo(1);
	}

	@Test
	void serverErrorOnUpdate() {
		this.server.expect().put().withPath(OBJECT).andReturn(500, internalError()).always();
		Duration timeout = Duration.ofSeconds(2);

		long start = System.nanoTime();
		LeaseStoreException failure = failureOf(this.store.update(MINE, timeout));
		Duration took = Duration.ofNanos(System.nanoTime() - start);

		assertThat(failure).isNotInstanceOfAny(LeaseConflictException.class, LeaseNotFoundException.class);
		assertThat(failure.getStatusCode()).isEqualTo(500);
		assertThat(failure).hasMessageStartingWith("update Lease team-a/orders-leader: 500");
		assertThat(took).as("a 500 must fail the call within its timeout").isLessThan(timeout.plusSeconds(1));
		assertThat(this.server.getRequestCount()).isEqualTo(1);
	}

	@Test
	void tooManyRequestsIsNotRetriedBehindTheCallersBack() {
		this.server.expect()
			.put()
			.withPath(OBJECT)
			.andReturn(429, new StatusBuilder().withStatus("Failure")
				.withMessage("Too many requests, please try again later.")
				.withReason("TooManyRequests")
				.withCode(429)
				.build())
			.always();

		LeaseStoreException failure = failureOf(this.store.update(MINE, Duration.ofSeconds(2)));

		assertThat(failure.getStatusCode()).isEqualTo(429);
		assertThat(failure).hasMessageStartingWith("update Lease team-a/orders-leader: 429");
		assertThat(this.server.getRequestCount()).isEqualTo(1);
	}

	@Test
	void serverThatIsGoneFailsTheCallWithinTheTimeout() {
		this.server.destroy();
		Duration timeout = Duration.ofSeconds(2);

		long start = System.nanoTime();
		LeaseStoreException failure = failureOf(this.store.get(timeout));
		Duration took = Duration.ofNanos(System.nanoTime() - start);

		// fabric8 would retry the I/O error up to 10 times with backoff (about 19 s)
		assertThat(failure.getStatusCode()).isZero();
		assertThat(failure).hasMessageStartingWith("get Lease team-a/orders-leader: ");
		assertThat(took).as("connection refused must fail the call within its timeout")
			.isLessThan(timeout.plusSeconds(1));
	}

	// ---- no answer -------------------------------------------------------------------------

	@Test
	void getFailsWhenTheServerDoesNotAnswerWithinTheTimeout() {
		this.server.expect().get().delay(30, TimeUnit.SECONDS).withPath(OBJECT).andReturn(200, lease()).always();

		assertTimesOut("get", (timeout) -> this.store.get(timeout));
	}

	@Test
	void updateFailsWhenTheServerDoesNotAnswerWithinTheTimeout() {
		this.server.expect().put().delay(30, TimeUnit.SECONDS).withPath(OBJECT).andReturn(200, lease()).always();

		assertTimesOut("update", (timeout) -> this.store.update(MINE, timeout));
	}

	@Test
	void createFailsWhenTheServerDoesNotAnswerWithinTheTimeout() {
		this.server.expect().post().delay(30, TimeUnit.SECONDS).withPath(COLLECTION).andReturn(201, lease()).always();

		assertTimesOut("create", (timeout) -> this.store.create(MINE, timeout));
	}

	private void assertTimesOut(String verb, Function<Duration, CompletableFuture<?>> call) {
		Duration timeout = Duration.ofSeconds(1);
		long start = System.nanoTime();
		CompletableFuture<?> future = call.apply(timeout);
		Throwable thrown = catchThrowable(() -> future.get(20, TimeUnit.SECONDS));
		Duration took = Duration.ofNanos(System.nanoTime() - start);

		assertThat(thrown).as("the future must fail, not hang").isInstanceOf(ExecutionException.class);
		assertThat(thrown.getCause()).isInstanceOf(LeaseStoreException.class);
		LeaseStoreException failure = (LeaseStoreException) thrown.getCause();
		assertThat(failure.getStatusCode()).isZero();
		assertThat(failure.getVerb()).isEqualTo(verb);
		assertThat(failure).hasMessage(verb + " Lease team-a/orders-leader: no answer within 1000 ms");
		assertThat(failure.isNoAnswer()).as("told as no answer: it may have been written").isTrue();
		assertThat(took).as("failed after %s for a timeout of %s", took, timeout)
			.isGreaterThanOrEqualTo(timeout.minusMillis(50))
			.isLessThan(timeout.plusSeconds(1));
	}

	// ---- bodies that are not a Lease ---------------------------------------------------------

	@Test
	void getAnsweredWithAnotherKindIsRejected() {
		this.server.expect()
			.get()
			.withPath(OBJECT)
			.andReturn(200, new ConfigMapBuilder().withNewMetadata()
				.withName(NAME)
				.withNamespace(NS)
				.withResourceVersion("7")
				.endMetadata()
				.addToData("holderIdentity", "pod-a")
				.build())
			.always();

		LeaseStoreException failure = failureOf(this.store.get(TIMEOUT));

		assertThat(failure.getVerb()).isEqualTo("get");
		assertThat(failure).hasMessageStartingWith("get Lease team-a/orders-leader: ")
			.hasMessageContaining("ConfigMap")
			.hasMessageContaining("instead of a coordination.k8s.io/v1 Lease");
	}

	@Test
	void updateAnsweredWithAnotherKindIsRejected() {
		this.server.expect()
			.put()
			.withPath(OBJECT)
			.andReturn(200, new ConfigMapBuilder().withNewMetadata().withName(NAME).endMetadata().build())
			.always();

		LeaseStoreException failure = failureOf(this.store.update(MINE, TIMEOUT));

		assertThat(failure).isNotInstanceOfAny(LeaseConflictException.class, LeaseNotFoundException.class);
		assertThat(failure).hasMessageStartingWith("update Lease team-a/orders-leader: ")
			.hasMessageContaining("ConfigMap");
	}

	@Test
	void getAnsweredWithSomethingThatIsNotJsonIsRejected() {
		// e.g. a login page from a proxy
		this.server.expect().get().withPath(OBJECT).andReturn(200, "<html><body>Sign in</body></html>").always();

		LeaseStoreException failure = failureOf(this.store.get(TIMEOUT));

		assertThat(failure).hasMessageStartingWith("get Lease team-a/orders-leader: ");
	}

	// ---- what is sent ----------------------------------------------------------------------

	@Test
	void namespaceAndNameAreSentAsGiven() throws Exception {
		KubernetesLeaseStore dotted = this.stores.forLease("team-a-prod-2", "orders.billing-leader.v1");
		String object = "/apis/coordination.k8s.io/v1/namespaces/team-a-prod-2/leases/orders.billing-leader.v1";
		this.server.expect().get().withPath(object).andReturn(200, lease()).once();
		this.server.expect().put().withPath(object).andReturn(200, lease()).once();
		this.server.expect()
			.post()
			.withPath("/apis/coordination.k8s.io/v1/namespaces/team-a-prod-2/leases")
			.andReturn(201, lease())
			.once();

		dotted.get(TIMEOUT).get(10, TimeUnit.SECONDS);
		dotted.update(MINE, TIMEOUT).get(10, TimeUnit.SECONDS);
		dotted.create(MINE, TIMEOUT).get(10, TimeUnit.SECONDS);

		assertThat(this.server.takeRequest(5, TimeUnit.SECONDS).getPath()).isEqualTo(object);
		assertThat(this.server.takeRequest(5, TimeUnit.SECONDS).getPath()).isEqualTo(object);
		assertThat(this.server.takeRequest(5, TimeUnit.SECONDS).getPath())
			.isEqualTo("/apis/coordination.k8s.io/v1/namespaces/team-a-prod-2/leases");
	}

	@Test
	void createSendsNoResourceVersionAndUpdateSendsTheRecordsOne() throws Exception {
		this.server.expect().post().withPath(COLLECTION).andReturn(201, lease()).once();
		this.server.expect().put().withPath(OBJECT).andReturn(200, lease()).once();

		this.store.create(MINE, TIMEOUT).get(10, TimeUnit.SECONDS);
		this.store.update(new LeaseRecord("pod-a", 15, T0, T0.plusSeconds(2), 0, null, null, "42", null), TIMEOUT)
			.get(10, TimeUnit.SECONDS);

		ObjectMapper json = new ObjectMapper();
		RecordedRequest post = this.server.takeRequest(5, TimeUnit.SECONDS);
		assertThat(post.getMethod()).isEqualTo("POST");
		JsonNode created = json.readTree(post.getUtf8Body());
		assertThat(created.path("metadata").has("resourceVersion")).isFalse();
		assertThat(created.path("metadata").path("name").asText()).isEqualTo(NAME);
		assertThat(created.path("kind").asText()).isEqualTo("Lease");
		RecordedRequest put = this.server.takeRequest(5, TimeUnit.SECONDS);
		assertThat(put.getMethod()).isEqualTo("PUT");
		JsonNode updated = json.readTree(put.getUtf8Body());
		assertThat(updated.path("metadata").path("resourceVersion").asText()).isEqualTo("42");
		assertThat(updated.path("spec").path("renewTime").asText()).isEqualTo("2026-11-21T14:51:54.000000Z");
	}

	@Test
	void requestsCarryTheClientsCredentialsAndImpersonation() throws Exception {
		this.server.expect().get().withPath(OBJECT).andReturn(200, lease()).once();
		try (KubernetesClient impersonating = this.server.createClient((builder) -> builder.editOrNewConfig()
			.withImpersonateUsername("system:serviceaccount:team-a:elector")
			.endConfig());
				KubernetesLeaseStores stores = new KubernetesLeaseStores(impersonating, Runnable::run, Runnable::run)) {
			stores.forLease(NS, NAME).get(TIMEOUT).get(10, TimeUnit.SECONDS);
		}

		RecordedRequest get = this.server.takeRequest(5, TimeUnit.SECONDS);
		assertThat(get.getHeader("Authorization")).isEqualTo("Bearer secret");
		assertThat(get.getHeader("Impersonate-User")).isEqualTo("system:serviceaccount:team-a:elector");
	}

	@Test
	void requestsCarryWhatTheApplicationSetOnItsClientsBuilderAndClosingLeavesItsClientOpen() throws Exception {
		this.server.expect().get().withPath(OBJECT).andReturn(200, lease()).times(2);
		try (KubernetesClient application = this.server.createClient(new ApplicationHeader("X-Tenant", "blue")::addTo)) {
			try (KubernetesLeaseStores stores = new KubernetesLeaseStores(application, Runnable::run, Runnable::run)) {
				stores.forLease(NS, NAME).get(TIMEOUT).get(10, TimeUnit.SECONDS);
			}

			RecordedRequest get = this.server.takeRequest(5, TimeUnit.SECONDS);
			assertThat(get.getHeader("X-Tenant")).isEqualTo("blue");
			assertThat(application.leases().inNamespace(NS).withName(NAME).get()).isNotNull();
		}
	}

	// ---- helpers ---------------------------------------------------------------------------

	private static Status forbidden(String verb) {
		return new StatusBuilder().withStatus("Failure")
			.withMessage("leases.coordination.k8s.io \"orders-leader\" is forbidden: User "
					+ "\"system:serviceaccount:team-a:default\" cannot " + verb + " resource \"leases\" in API group "
					+ "\"coordination.k8s.io\" in the namespace \"team-a\"")
			.withReason("Forbidden")
			.withNewDetails()
			.withName(NAME)
			.withGroup("coordination.k8s.io")
			.withKind("leases")
			.endDetails()
			.withCode(403)
			.build();
	}

	private static Status notFound() {
		return new StatusBuilder().withStatus("Failure")
			.withMessage("leases.coordination.k8s.io \"orders-leader\" not found")
			.withReason("NotFound")
			.withCode(404)
			.build();
	}

	private static Status internalError() {
		return new StatusBuilder().withStatus("Failure")
			.withMessage("etcdserver: request timed out")
			.withReason("InternalError")
			.withCode(500)
			.build();
	}

	private static Object lease() {
		return new LeaseBuilder().withNewMetadata()
			.withName(NAME)
			.withNamespace(NS)
			.withResourceVersion("43")
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity("pod-a")
			.withLeaseDurationSeconds(15)
			.endSpec()
			.build();
	}

	private static LeaseStoreException failureOf(CompletableFuture<?> future) {
		Throwable thrown = catchThrowable(() -> future.get(20, TimeUnit.SECONDS));
		assertThat(thrown).as("the future must fail").isInstanceOf(ExecutionException.class);
		assertThat(thrown.getCause()).isInstanceOf(LeaseStoreException.class);
		return (LeaseStoreException) thrown.getCause();
	}

}
