package io.leaderelection.kubernetes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;

/**
 * Asks the API server whether this client may do what the elector's features need: one
 * SelfSubjectAccessReview per {@link Permission}, all sent at once, so that the check takes one
 * round trip. Every authenticated user may create one, and the server answers it with the
 * verdict of all its authorizers (RBAC, webhooks, Node), cluster-wide resources included.
 * (A SelfSubjectRulesReview per namespace would take fewer requests, but a webhook authorizer
 * leaves its answer incomplete, and its rules would have to be matched here as RBAC matches them.)
 * <p>
 * A review that gets no verdict (no answer, a refusal of the review itself, a server that does
 * not know the API, fabric8's CRUD mock server's 422, an answer without status) proves nothing:
 * it is told as unanswered, never as missing.
 */
public final class PermissionReview {

	static final String PATH = "apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

	private static final String REVIEW = "SelfSubjectAccessReview";

	private final ApiCalls calls;

	PermissionReview(ApiCalls calls) {
		this.calls = calls;
	}

	/** Sends every review at once; completes, never exceptionally, when each is answered or timed out. */
	CompletableFuture<Result> review(List<Permission> needed, Duration timeout) {
		List<CompletableFuture<Verdict>> answers = needed.stream().map((permission) -> ask(permission, timeout)).toList();
		return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply((all) -> {
			List<Permission> missing = new ArrayList<>();
			Map<Permission, String> unanswered = new LinkedHashMap<>();
			for (int i = 0; i < needed.size(); i++) {
				Verdict verdict = answers.get(i).join();
				if (verdict.noVerdict() != null) {
					unanswered.put(needed.get(i), verdict.noVerdict());
				}
				else if (!verdict.allowed()) {
					missing.add(needed.get(i));
				}
			}
			return new Result(needed.size(), missing, unanswered);
		});
	}

	private CompletableFuture<Verdict> ask(Permission permission, Duration timeout) {
		HttpRequest request = this.calls.request(this.calls.serverUri() + PATH, timeout)
			.post(ApiCalls.JSON, this.calls.serialization().asJson(request(permission)))
			.build();
		return this.calls.send("create", request, timeout, REVIEW)
			.thenApply(this::verdict)
			.exceptionally((failure) -> Verdict.none(
					(failure.getCause() != null) ? failure.getCause().getMessage() : failure.getMessage()));
	}

	/** The review asking for the permission. */
	static SelfSubjectAccessReview request(Permission permission) {
		return new SelfSubjectAccessReviewBuilder().withNewSpec()
			.withNewResourceAttributes()
			.withGroup(permission.apiGroup())
			.withResource(permission.resource())
			.withVerb(permission.verb())
			.withNamespace(permission.namespace())
			.endResourceAttributes()
			.endSpec()
			.build();
	}

	private Verdict verdict(HttpResponse<String> response) {
		if (response.code() != 200 && response.code() != 201) {
			return Verdict.none("create " + REVIEW + ": " + response.code() + " " + this.calls.reason(response));
		}
		SubjectAccessReviewStatus status;
		try {
			status = this.calls.serialization().unmarshal(response.body(), SelfSubjectAccessReview.class).getStatus();
		}
		catch (RuntimeException ex) {
			return Verdict.none("create " + REVIEW + ": unreadable answer: " + ApiCalls.unreadable(ex));
		}
		if (status == null || status.getAllowed() == null) {
			return Verdict.none("create " + REVIEW + ": the answer has no verdict (no status.allowed)");
		}
		return new Verdict(status.getAllowed(), null);
	}

	/**
	 * @param allowed whether the server allowed it, when it gave a verdict
	 * @param noVerdict why it gave none; {@code null} when it did
	 */
	private record Verdict(boolean allowed, String noVerdict) {

		static Verdict none(String why) {
			return new Verdict(false, String.valueOf(why));
		}

	}

	/**
	 * What the API server said.
	 *
	 * @param asked how many permissions were asked for
	 * @param missing the permissions it denied
	 * @param unanswered the permissions it gave no verdict on, with why
	 */
	public record Result(int asked, List<Permission> missing, Map<Permission, String> unanswered) {

		public Result {
			missing = List.copyOf(missing);
			unanswered = Collections.unmodifiableMap(new LinkedHashMap<>(unanswered));
		}

	}

}
