package io.leaderelection.badinput;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.leaderelection.kubernetes.MockApiServer;
import io.leaderelection.kubernetes.MockApiServer.Answer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.leaderelection.badinput.ElectorUnderTest.LEASE_DURATION;
import static io.leaderelection.badinput.ElectorUnderTest.NAMESPACE;
import static io.leaderelection.kubernetes.MockApiServer.after;
import static io.leaderelection.kubernetes.MockApiServer.method;
import static io.leaderelection.kubernetes.MockApiServer.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An API server that refuses, fails or does not answer: a namespace that does not exist, RBAC
 * that denies get, create or update, 500s and requests that hang. Each time the elector says
 * why in its status and health, naming the verb and the Lease, keeps trying without ever
 * opening its gate, leaves the user's Lease as it was, and wins once the cause is gone.
 */
class UnreachableApiTests extends AbstractBadInputTests {

	private static final String ELECTOR_NAME = "pod-a";

	/** Only the elector's requests are refused, not the test's own. */
	private static final Predicate<RecordedRequest> ELECTOR = MockApiServer.from(ELECTOR_NAME);

	@Test
	void namespaceThatDoesNotExistIsNamedAndTheElectorWinsOnceItIsCreated() {
		// The API server answers a get in a missing namespace with 404 like a missing Lease;
		// only the create says which is missing.
		try (Answer missingNamespace = this.server.answer(ELECTOR.and(method("POST")),
				() -> status(404, "NotFound", "namespaces \"team-a\" not found"))) {
			this.elector = ElectorUnderTest.start(this.server, ELECTOR_NAME);
			assertThat(awaitReason("create Lease team-a/orders-leader: 404 namespaces \"team-a\" not found"))
				.endsWith("(does namespace 'team-a' exist?)");
			assertKeepsTryingWithoutLeading();
		}
		awaitLeaderWithoutError();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "get, GET", "create, POST", "update, PUT" })
	void rbacDenialIsNamedAndTheUsersLeaseIsLeftAsItWas(String verb, String method) {
		Lease users = (verb.equals("update")) ? this.kubectl.resource(expiredLeaseWithUsersLabels()).create() : null;
		try (Answer denied = this.server.answer(ELECTOR.and(method(method)), () -> forbidden(verb))) {
			this.elector = ElectorUnderTest.start(this.server, ELECTOR_NAME);
			assertThat(awaitReason(verb + " Lease team-a/orders-leader: 403 leases.coordination.k8s.io "
					+ "\"orders-leader\" is forbidden")).contains("cannot " + verb + " resource \"leases\"");
			assertKeepsTryingWithoutLeading();
			assertThat(lease()).as("the Lease as the user left it").isEqualTo(users);
		}
		awaitLeaderWithoutError();
		if (users != null) {
			assertThat(lease().getMetadata().getLabels()).containsAllEntriesOf(users.getMetadata().getLabels());
		}
	}

	@Test
	void rbacDenialWhileLeadingClosesTheGateByTheRenewDeadlineAndIsNamed() {
		this.elector = ElectorUnderTest.start(this.server, ELECTOR_NAME);
		await().until(this.elector::isLeader);
		try (Answer denied = this.server.answer(ELECTOR.and(method("PUT")), () -> forbidden("update"))) {
			awaitGateClosedByTheRenewDeadline();
			awaitReason("update Lease team-a/orders-leader: 403");
			assertKeepsTryingWithoutLeading();
		}
		awaitLeaderWithoutError();
	}

	@Test
	void serverErrorsAreNamedAndTheElectorWinsOnceTheyStop() {
		try (Answer failing = this.server.answer(ELECTOR,
				() -> status(500, "InternalError", "etcdserver: request timed out"))) {
			this.elector = ElectorUnderTest.start(this.server, ELECTOR_NAME);
			awaitFailingLongerThanALeaseDuration();
			assertThat(this.elector.status().lastError())
				.isEqualTo("get Lease team-a/orders-leader: 500 etcdserver: request timed out");
			assertKeepsTryingWithoutLeading();
		}
		awaitLeaderWithoutError();
	}

	@Test
	void requestsThatGetNoAnswerTimeOutNamedAndTheElectorWinsOnceAnswered() {
		try (Answer hanging = this.server.answer(ELECTOR,
				() -> after(Duration.ofMinutes(1), status(500, "InternalError", "too late")))) {
			this.elector = ElectorUnderTest.start(this.server, ELECTOR_NAME);
			awaitFailingLongerThanALeaseDuration();
			assertThat(this.elector.status().lastError())
				.isEqualTo("get Lease team-a/orders-leader: no answer within "
						+ ElectorUnderTest.RENEW_DEADLINE.toMillis() + " ms");
			assertKeepsTryingWithoutLeading();
		}
		awaitLeaderWithoutError();
	}

	@Test
	void renewalsThatGetNoAnswerCloseTheGateByTheRenewDeadline() {
		this.elector = ElectorUnderTest.start(this.server, ELECTOR_NAME);
		await().until(this.elector::isLeader);
		try (Answer hanging = this.server.answer(ELECTOR.and(method("PUT")),
				() -> after(Duration.ofMinutes(1), status(500, "InternalError", "too late")))) {
			awaitGateClosedByTheRenewDeadline();
			awaitReason("update Lease team-a/orders-leader: no answer within ");
		}
		awaitLeaderWithoutError();
	}

	/**
	 * The gate closes at the latest a renew deadline after the last renewal that went through,
	 * whatever the loop is doing; the loop then tells why.
	 */
	private void awaitGateClosedByTheRenewDeadline() {
		await().atMost(ElectorUnderTest.RENEW_DEADLINE.plus(ElectorUnderTest.RETRY_PERIOD))
			.until(() -> !this.elector.isLeader());
		await().until(this.elector::events, (events) -> events.size() == 2);
		assertThat(this.elector.events()).containsExactly("granted", "revoked RENEW_DEADLINE_PASSED");
	}

	/** Waits for the status to give the reason, and returns it. */
	private String awaitReason(String start) {
		return await().atMost(LEASE_DURATION.multipliedBy(3))
			.until(() -> this.elector.status().lastError(), (reason) -> reason != null && reason.startsWith(start));
	}

	/**
	 * The health a health indicator reads when every call fails: failing for longer than a lease
	 * duration, with the reason.
	 */
	private void awaitFailingLongerThanALeaseDuration() {
		await().atMost(LEASE_DURATION.multipliedBy(5))
			.until(() -> this.elector.health().failingFor().compareTo(LEASE_DURATION) > 0);
		assertThat(this.elector.health().lastError()).isEqualTo(this.elector.status().lastError());
	}

	/** The loop goes on attempting, every retry period or so, and the gate stays closed. */
	private void assertKeepsTryingWithoutLeading() {
		List<String> events = this.elector.events();
		await().during(LEASE_DURATION).atMost(LEASE_DURATION.multipliedBy(2)).until(() -> !this.elector.isLeader()
				&& !this.elector.health().loopStalled()
				&& this.elector.health().sinceLastAttempt().compareTo(LEASE_DURATION) < 0);
		assertThat(this.elector.events()).isEqualTo(events);
	}

	private void awaitLeaderWithoutError() {
		await().atMost(LEASE_DURATION.multipliedBy(5)).until(this.elector::isLeader);
		assertThat(this.elector.status().lastError()).isNull();
		assertThat(this.elector.health().failingFor()).isZero();
	}

	private Lease lease() {
		return this.kubectl.leases().inNamespace(NAMESPACE).withName(ElectorUnderTest.LEASE).get();
	}

	/** A Lease whose holder stopped renewing long ago, with labels the user relies on. */
	private static Lease expiredLeaseWithUsersLabels() {
		ZonedDateTime longAgo = ZonedDateTime.now(ZoneOffset.UTC).minusDays(1);
		return new LeaseBuilder().withNewMetadata()
			.withNamespace(NAMESPACE)
			.withName(ElectorUnderTest.LEASE)
			.withLabels(Map.of("app.kubernetes.io/part-of", "orders"))
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity("pod-gone")
			.withLeaseDurationSeconds(1)
			.withAcquireTime(longAgo)
			.withRenewTime(longAgo)
			.withLeaseTransitions(7)
			.endSpec()
			.build();
	}

	private static MockResponse forbidden(String verb) {
		return status(403, "Forbidden", "leases.coordination.k8s.io \"orders-leader\" is forbidden: User "
				+ "\"system:serviceaccount:team-a:orders\" cannot " + verb + " resource \"leases\" in API group "
				+ "\"coordination.k8s.io\" in the namespace \"team-a\"");
	}

}
