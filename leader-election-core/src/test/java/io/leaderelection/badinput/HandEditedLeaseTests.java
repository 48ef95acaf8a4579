package io.leaderelection.badinput;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.mockwebserver.http.MockResponse;
import io.leaderelection.kubernetes.MockApiServer;
import io.leaderelection.kubernetes.MockApiServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.leaderelection.badinput.ElectorUnderTest.LEASE;
import static io.leaderelection.badinput.ElectorUnderTest.LEASE_DURATION;
import static io.leaderelection.badinput.ElectorUnderTest.NAMESPACE;
import static io.leaderelection.kubernetes.MockApiServer.method;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leases that a person or another tool wrote: no holder, no times, a lease duration that is
 * zero, negative, huge or not a number, another kind of object under the Lease's name or in
 * its place, and a Lease deleted or edited while we lead. The elector either does the safe
 * thing or says what is wrong in its status, naming the Lease and the field; it never writes
 * over what it cannot read, and keeps the fields it does not own.
 */
class HandEditedLeaseTests extends AbstractBadInputTests {

	private static final String ME = "pod-a";

	private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/" + NAMESPACE + "/leases";

	@Test
	void leaseWithoutHolderIsTakenAtOnceKeepingWhatTheUserWrote() {
		Lease users = create(usersLease().editSpec().withHolderIdentity(null).endSpec().build());
		long startedAt = System.nanoTime();
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().until(this.elector::leadsAndListenersKnow);
		assertThat(Duration.ofNanos(this.elector.grantedAt().get(0) - startedAt)).isLessThan(LEASE_DURATION);
		assertThat(this.elector.events()).containsExactly("granted");
		assertKeptWhatTheUserWrote(users);
	}

	@Test
	void leaseWithoutTimesOrDurationIsTakenOnlyOnceUnchangedForALeaseDuration() {
		create(usersLease().withNewSpec().withHolderIdentity("pod-gone").endSpec().build());
		long startedAt = System.nanoTime();
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().until(() -> "pod-gone".equals(this.elector.status().holderIdentity()));
		assertThat(this.elector.status().lastError()).isNull();
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(this.elector::leadsAndListenersKnow);
		assertThat(Duration.ofNanos(this.elector.grantedAt().get(0) - startedAt)).isGreaterThan(LEASE_DURATION);
		assertThat(this.elector.events()).containsExactly("granted");
		assertThat(lease().getSpec().getLeaseTransitions()).isEqualTo(1);
	}

	@ParameterizedTest(name = "leaseDurationSeconds: {0}")
	@ValueSource(ints = { 0, -15 })
	void nonPositiveLeaseDurationIsReadAsOurs(int leaseDurationSeconds) {
		// client-go would take such a Lease at once, from under a holder that may be alive.
		Lease users = create(
				usersLease().editSpec().withLeaseDurationSeconds(leaseDurationSeconds).endSpec().build());
		long startedAt = System.nanoTime();
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(this.elector::leadsAndListenersKnow);
		assertThat(Duration.ofNanos(this.elector.grantedAt().get(0) - startedAt)).isGreaterThan(LEASE_DURATION);
		assertKeptWhatTheUserWrote(users);
	}

	@Test
	void hugeLeaseDurationIsWaitedOutAsTheHolderDeclared() {
		create(usersLease().editSpec().withLeaseDurationSeconds(Integer.MAX_VALUE).endSpec().build());
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().during(LEASE_DURATION.multipliedBy(2))
			.atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> !this.elector.isLeader() && "pod-gone".equals(this.elector.status().holderIdentity()));
		assertThat(this.elector.status().lastError()).isNull();
	}

	@Test
	void leaseDurationThatIsNotANumberIsNamedAndNothingIsWrittenOverIt() throws Exception {
		String unreadable = """
				{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
				 "metadata": {"name": "orders-leader", "namespace": "team-a"},
				 "spec": {"holderIdentity": "pod-gone", "leaseDurationSeconds": "fifteen"}}""";
		assertThat(raw("POST", LEASES, unreadable).statusCode()).isEqualTo(201);
		String stored = raw("GET", LEASES + "/" + LEASE, null).body();
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().atMost(LEASE_DURATION.multipliedBy(5))
			.until(() -> this.elector.health().failingFor().compareTo(LEASE_DURATION) > 0);
		assertThat(this.elector.status().lastError()).startsWith(
				"get Lease team-a/orders-leader: unreadable answer: spec.leaseDurationSeconds: Cannot deserialize "
						+ "value of type `java.lang.Integer` from String \"fifteen\"");
		assertThat(this.elector.isLeader()).isFalse();
		assertThat(raw("GET", LEASES + "/" + LEASE, null).body()).as("nothing written").isEqualTo(stored);
		raw("DELETE", LEASES + "/" + LEASE, null);
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(this.elector::leadsAndListenersKnow);
		assertThat(this.elector.status().lastError()).isNull();
	}

	@Test
	void objectOfAnotherKindNamedLikeTheLeaseIsLeftAlone() {
		ConfigMap users = this.kubectl.resource(new ConfigMapBuilder().withNewMetadata()
			.withNamespace(NAMESPACE)
			.withName(LEASE)
			.endMetadata()
			.addToData("holderIdentity", "not-a-lease")
			.build()).create();
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().until(this.elector::leadsAndListenersKnow);
		assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(ME);
		assertThat(this.kubectl.configMaps().inNamespace(NAMESPACE).withName(LEASE).get()).isEqualTo(users);
	}

	@Test
	void answerOfAnotherKindInPlaceOfTheLeaseIsNamedAndNothingIsWritten() {
		// e.g. an aggregated API or a proxy that serves the Lease's path with something else
		MockResponse configMap = new MockResponse().setResponseCode(200)
			.setBody(this.kubectl.getKubernetesSerialization()
				.asJson(new ConfigMapBuilder().withNewMetadata()
					.withNamespace(NAMESPACE)
					.withName(LEASE)
					.withResourceVersion("7")
					.endMetadata()
					.build()));
		try (Answer otherKind = this.server.answer(MockApiServer.from(ME).and(method("GET")), () -> configMap)) {
			this.elector = ElectorUnderTest.start(this.server, ME);
			await().atMost(LEASE_DURATION.multipliedBy(5))
				.until(() -> this.elector.health().failingFor().compareTo(LEASE_DURATION) > 0);
			assertThat(this.elector.status().lastError()).isEqualTo("get Lease team-a/orders-leader: the server "
					+ "answered with ConfigMap instead of a coordination.k8s.io/v1 Lease");
			assertThat(this.elector.isLeader()).isFalse();
			assertThat(lease()).as("nothing created").isNull();
		}
		await().atMost(LEASE_DURATION.multipliedBy(3)).until(this.elector::leadsAndListenersKnow);
	}

	@Test
	void leaseDeletedWhileLeadingClosesTheGateAndIsCreatedAgainOnlyAfterALeaseDurationWithAHigherToken() {
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().until(this.elector::leadsAndListenersKnow);
		this.kubectl.resource(lease()).delete();
		long deletedAt = System.nanoTime();
		await().atMost(LEASE_DURATION.multipliedBy(3))
			.until(this.elector::events, (events) -> events.size() == 3);
		assertThat(this.elector.events()).containsExactly("granted", "revoked LEASE_DELETED", "granted");
		assertThat(Duration.ofNanos(this.elector.grantedAt().get(1) - deletedAt)).isGreaterThan(LEASE_DURATION);
		assertThat(this.elector.tokens().get(1)).isGreaterThan(this.elector.tokens().get(0));
		assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(ME);
		// created without holder at the count seen (1, the first term's claim of the first such
		// Lease), then claimed
		assertThat(lease().getSpec().getLeaseTransitions()).isEqualTo(2);
	}

	@Test
	void holderChangedByHandWhileLeadingIsRespectedUntilUnchangedForALeaseDuration() {
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().until(this.elector::leadsAndListenersKnow);
		long editedAt = System.nanoTime();
		patch("{\"spec\": {\"holderIdentity\": \"operator\"}}");
		await().atMost(LEASE_DURATION.multipliedBy(3))
			.until(this.elector::events, (events) -> events.size() == 3);
		assertThat(this.elector.events()).containsExactly("granted", "revoked LEASE_TAKEN", "granted");
		assertThat(Duration.ofNanos(this.elector.grantedAt().get(1) - editedAt)).isGreaterThan(LEASE_DURATION);
		assertThat(this.elector.tokens().get(1)).isGreaterThan(this.elector.tokens().get(0));
	}

	@Test
	void labelsAndAnnotationsAddedWhileLeadingAreKeptByEveryRenewal() {
		this.elector = ElectorUnderTest.start(this.server, ME);
		await().until(this.elector::leadsAndListenersKnow);
		Lease edited = patch("{\"metadata\": {\"labels\": {\"team\": \"payments\"}, "
				+ "\"annotations\": {\"owner\": \"payments@example.com\"}}}");
		await().until(() -> !lease().getSpec().getRenewTime().equals(edited.getSpec().getRenewTime()));
		assertThat(lease().getMetadata().getLabels()).containsEntry("team", "payments");
		assertThat(lease().getMetadata().getAnnotations()).containsEntry("owner", "payments@example.com");
		assertThat(this.elector.events()).containsExactly("granted");
	}

	private void assertKeptWhatTheUserWrote(Lease users) {
		Lease now = lease();
		assertThat(now.getSpec().getHolderIdentity()).isEqualTo(ME);
		assertThat(now.getSpec().getLeaseTransitions()).isEqualTo(users.getSpec().getLeaseTransitions() + 1);
		assertThat(now.getMetadata().getLabels()).isEqualTo(users.getMetadata().getLabels());
		assertThat(now.getMetadata().getAnnotations()).isEqualTo(users.getMetadata().getAnnotations());
	}

	/** A Lease written by hand, with labels and annotations, held by a pod that is gone. */
	private static LeaseBuilder usersLease() {
		ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
		return new LeaseBuilder().withNewMetadata()
			.withNamespace(NAMESPACE)
			.withName(LEASE)
			.withLabels(Map.of("app.kubernetes.io/part-of", "orders"))
			.withAnnotations(Map.of("note", "written by hand"))
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity("pod-gone")
			.withLeaseDurationSeconds(1)
			.withAcquireTime(now)
			.withRenewTime(now)
			.withLeaseTransitions(4)
			.endSpec();
	}

	private Lease create(Lease lease) {
		return this.kubectl.resource(lease).create();
	}

	private Lease lease() {
		return this.kubectl.leases().inNamespace(NAMESPACE).withName(LEASE).get();
	}

	/** What {@code kubectl patch lease --type merge} does: a merge patch, at whatever version is stored. */
	private Lease patch(String mergePatch) {
		return this.kubectl.leases()
			.inNamespace(NAMESPACE)
			.withName(LEASE)
			.patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
	}

	/** A request as raw JSON, for a Lease whose fields the client's model cannot hold. */
	private HttpResponse<String> raw(String method, String path, String json) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.server.port() + path))
			.header("Content-Type", "application/json")
			.method(method, (json != null) ? BodyPublishers.ofString(json) : BodyPublishers.noBody())
			.build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
	}

}
