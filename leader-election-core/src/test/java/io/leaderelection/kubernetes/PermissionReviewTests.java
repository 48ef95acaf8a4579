package io.leaderelection.kubernetes;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PermissionReview} through {@link KubernetesLeaseStores#reviewPermissions} against
 * fabric8's {@link KubernetesMockServer} in expectations mode, answering each
 * SelfSubjectAccessReview by what it asks, as an API server does: verdicts, refusals of the review
 * itself, answers without a verdict and no answer at all.
 */
class PermissionReviewTests {

	private static final String REVIEWS = "/" + PermissionReview.PATH;

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final KubernetesSerialization serialization = new KubernetesSerialization();

	private KubernetesMockServer server;

	private KubernetesClient client;

	private KubernetesLeaseStores stores;

	/** What the reviews the server answered asked, in the order they came. */
	private final List<ResourceAttributes> asked = new ArrayList<>();

	@BeforeEach
	void startServer() {
		this.server = new KubernetesMockServer(false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
		this.stores = new KubernetesLeaseStores(this.client, Runnable::run, Runnable::run);
	}

	@AfterEach
	void stopServer() {
		this.stores.close();
		this.client.close();
		this.server.destroy();
	}

	@Test
	void whatTheServerDeniesIsMissingAndWhatItAllowsIsNot() {
		Set<String> granted = Set.of("coordination.k8s.io/leases get team-a", "coordination.k8s.io/leases create team-a",
				"coordination.k8s.io/leases watch team-a", "coordination.k8s.io/leases delete team-a",
				"/nodes get");
		answerFrom(granted);
		List<Permission> needed = Permission.neededBy(
				Map.of("team-a", EnumSet.of(ElectorFeature.LEASES, ElectorFeature.NOT_READY_NODE_TAKEOVER,
						ElectorFeature.FOR_LIFE)));

		PermissionReview.Result result = this.stores.reviewPermissions(needed, TIMEOUT).join();

		assertThat(result.asked()).isEqualTo(needed.size()).isEqualTo(7);
		assertThat(result.unanswered()).isEmpty();
		assertThat(result.missing()).extracting(Permission::describe)
			.containsExactly("'update' on 'leases' (API group coordination.k8s.io) in namespace 'team-a', needed by "
					+ "leader election", "'get' on 'pods' (core API group) in namespace 'team-a', needed by for-life mode");
		assertThat(this.asked).hasSize(7)
			.anySatisfy((attributes) -> {
				assertThat(attributes.getResource()).isEqualTo("nodes");
				assertThat(attributes.getGroup()).isEmpty();
				assertThat(attributes.getVerb()).isEqualTo("get");
				assertThat(attributes.getNamespace()).as("cluster-wide").isNull();
			})
			.anySatisfy((attributes) -> {
				assertThat(attributes.getResource()).isEqualTo("leases");
				assertThat(attributes.getGroup()).isEqualTo("coordination.k8s.io");
				assertThat(attributes.getVerb()).isEqualTo("update");
				assertThat(attributes.getNamespace()).isEqualTo("team-a");
			});
	}

	@Test
	void aRefusedReviewIsUnansweredNeverMissing() {
		this.server.expect()
			.post()
			.withPath(REVIEWS)
			.andReturn(403, new StatusBuilder().withCode(403)
				.withReason("Forbidden")
				.withMessage("selfsubjectaccessreviews.authorization.k8s.io is forbidden")
				.build())
			.always();

		PermissionReview.Result result = review(ElectorFeature.LEASES);

		assertThat(result.missing()).isEmpty();
		assertThat(result.unanswered()).hasSize(4)
			.allSatisfy((permission, why) -> assertThat(why).isEqualTo(
					"create SelfSubjectAccessReview: 403 selfsubjectaccessreviews.authorization.k8s.io is forbidden"));
	}

	@Test
	void aServerThatDoesNotKnowTheApiLeavesItUnanswered() {
		PermissionReview.Result result = review(ElectorFeature.EVENTS);

		assertThat(result.missing()).isEmpty();
		assertThat(result.unanswered()).hasSize(1)
			.allSatisfy((permission, why) -> assertThat(why).startsWith("create SelfSubjectAccessReview: 404"));
	}

	/** As a server that stores the review without judging it would answer: as it was sent. */
	@Test
	void anAnswerWithoutStatusIsUnanswered() {
		this.server.expect()
			.post()
			.withPath(REVIEWS)
			.andReply(201, (request) -> request.getUtf8Body())
			.always();

		PermissionReview.Result result = review(ElectorFeature.EVENTS);

		assertThat(result.missing()).isEmpty();
		assertThat(result.unanswered()).containsValue(
				"create SelfSubjectAccessReview: the answer has no verdict (no status.allowed)");
	}

	/** Where the other tests of the starter run: the start must go on there. */
	@Test
	void fabric8sCrudMockServerLeavesEveryReviewUnanswered() {
		KubernetesMockServer crud = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false);
		crud.init(InetAddress.getLoopbackAddress(), 0);
		try (KubernetesClient crudClient = crud.createClient();
				KubernetesLeaseStores crudStores = new KubernetesLeaseStores(crudClient, Runnable::run, Runnable::run)) {
			List<Permission> needed = Permission.neededBy(Map.of("team-a", Set.of(ElectorFeature.LEASES)));

			PermissionReview.Result result = crudStores.reviewPermissions(needed, TIMEOUT).join();

			assertThat(result.missing()).isEmpty();
			// it keeps objects by name, and a review has none
			assertThat(result.unanswered()).hasSize(4)
				.containsValue("create SelfSubjectAccessReview: 422 SelfSubjectAccessReview is invalid");
		}
		finally {
			crud.destroy();
		}
	}

	@Test
	void aReviewNotAnsweredInTimeIsUnanswered() {
		this.server.expect()
			.post()
			.delay(30, TimeUnit.SECONDS)
			.withPath(REVIEWS)
			.andReply(201, (request) -> verdict(request, Set.of()))
			.always();
		List<Permission> needed = Permission.neededBy(Map.of("team-a", Set.of(ElectorFeature.EVENTS)));

		PermissionReview.Result result = this.stores.reviewPermissions(needed, Duration.ofMillis(200)).join();

		assertThat(result.missing()).isEmpty();
		assertThat(result.unanswered()).containsValue("create SelfSubjectAccessReview: no answer within 200 ms");
	}

	@Test
	void anUnreachableServerLeavesEveryReviewUnanswered() {
		this.server.destroy();

		PermissionReview.Result result = review(ElectorFeature.LEASES);

		assertThat(result.missing()).isEmpty();
		assertThat(result.unanswered()).hasSize(4);
	}

	private PermissionReview.Result review(ElectorFeature feature) {
		return this.stores.reviewPermissions(Permission.neededBy(Map.of("team-a", Set.of(feature))), TIMEOUT).join();
	}

	/**
	 * Answers every review as an API server whose authorizer grants the given permissions, each
	 * written {@code group/resource verb namespace} ({@code group/resource verb} when cluster-wide).
	 */
	private void answerFrom(Set<String> granted) {
		this.server.expect().post().withPath(REVIEWS).andReply(201, (request) -> verdict(request, granted)).always();
	}

	private synchronized String verdict(RecordedRequest request, Set<String> granted) {
		SelfSubjectAccessReview review = serialization.unmarshal(request.getUtf8Body(), SelfSubjectAccessReview.class);
		ResourceAttributes attributes = review.getSpec().getResourceAttributes();
		this.asked.add(attributes);
		String asked = attributes.getGroup() + "/" + attributes.getResource() + " " + attributes.getVerb()
				+ ((attributes.getNamespace() != null) ? " " + attributes.getNamespace() : "");
		review.setStatus(new SubjectAccessReviewStatusBuilder()
			.withAllowed(granted.contains(asked))
			.build());
		return serialization.asJson(review);
	}

}
