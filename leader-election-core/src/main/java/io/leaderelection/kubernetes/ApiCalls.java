package io.leaderelection.kubernetes;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.leaderelection.store.LeaseStoreException;

/**
 * Requests to the API server that never block the caller: sent on the elector's HTTP client from
 * a thread of their own, with a timeout each counted from the call, their failures told as
 * {@link LeaseStoreException}s naming the object.
 */
final class ApiCalls {

	static final String JSON = "application/json";

	private final KubernetesClient client;

	private final HttpClient httpClient;

	private final Executor sender;

	private final KubernetesSerialization serialization;

	/**
	 * @param sender where requests are handed to the HTTP client: fabric8 refreshes the client's
	 * credentials on that thread first, which may run a process (an exec credential plugin) for as
	 * long as it takes
	 */
	ApiCalls(KubernetesClient client, Executor sender) {
		this.client = client;
		this.httpClient = client.getHttpClient();
		this.sender = sender;
		this.serialization = client.getKubernetesSerialization();
	}

	/** How the objects sent and answered are written and read. */
	KubernetesSerialization serialization() {
		return this.serialization;
	}

	/** The API server's address, ending with a slash. */
	String serverUri() {
		String master = this.client.getMasterUrl().toString();
		return master.endsWith("/") ? master : master + "/";
	}

	/** The address of a namespaced object of the core API group, such as a Pod or a Service. */
	String coreObjectUri(String namespace, String resource, String name) {
		return serverUri() + "api/v1/namespaces/" + KubernetesLeaseStore.encode(namespace) + "/" + resource + "/"
				+ KubernetesLeaseStore.encode(name);
	}

	/** Reads an object; {@code null} when it does not exist. */
	<T> CompletableFuture<T> read(String uri, String described, Class<T> type, Duration timeout) {
		HttpRequest request = request(uri, timeout).build();
		return send("get", request, timeout, described).thenApply((response) -> {
			if (response.code() == 404) {
				return null;
			}
			if (response.code() != 200) {
				throw new LeaseStoreException("get", described, response.code(),
						response.code() + " " + reason(response));
			}
			try {
				return this.serialization.unmarshal(response.body(), type);
			}
			catch (RuntimeException ex) {
				throw new LeaseStoreException("get", described, 0, "unreadable answer: " + unreadable(ex), ex);
			}
		});
	}

	/** A request with the given timeout, answered in JSON. */
	HttpRequest.Builder request(String uri, Duration timeout) {
		return this.httpClient.newHttpRequestBuilder()
			.uri(uri)
			.header("Accept", JSON)
			.timeout(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
	}

	/**
	 * Sends the request on the sender; a failure to get an answer within the timeout, counted from
	 * now however long a credential refresh held the send, fails the future with a
	 * {@link LeaseStoreException}.
	 */
	CompletableFuture<HttpResponse<String>> send(String verb, HttpRequest request, Duration timeout,
			String described) {
		CompletableFuture<HttpResponse<String>> response = new CompletableFuture<HttpResponse<String>>()
			.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
		try {
			this.sender.execute(() -> {
				if (response.isDone()) {
					// its time ran out while it waited to be sent: no one waits for an answer
					return;
				}
				try {
					this.httpClient.sendAsync(request, String.class).whenComplete((answer, failure) -> {
						if (failure != null) {
							response.completeExceptionally(failure);
						}
						else {
							response.complete(answer);
						}
					});
				}
				catch (RuntimeException ex) {
					response.completeExceptionally(ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			response.completeExceptionally(ex);
		}
		return response.handle((answer, failure) -> {
			if (failure != null) {
				Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
				if (isNoAnswer(cause)) {
					throw LeaseStoreException.noAnswer(verb, described, timeout, cause);
				}
				throw new LeaseStoreException(verb, described, 0, String.valueOf(cause) + noServerHint(cause), cause);
			}
			return answer;
		});
	}

	/**
	 * Whether the request's timeout ran out before an answer: {@link #send} and Vert.x tell it with a
	 * {@link TimeoutException}, the JDK's client with an {@link HttpTimeoutException}. A connection
	 * that could not be opened in time is no such case: nothing was sent.
	 */
	private static boolean isNoAnswer(Throwable cause) {
		return cause instanceof TimeoutException
				|| (cause instanceof HttpTimeoutException && !(cause instanceof HttpConnectTimeoutException));
	}

	/**
	 * What to do when no API server is there at all, as on a laptop or in a plain test: the
	 * client fell back to the in-cluster address, or the configured one does not answer.
	 */
	private String noServerHint(Throwable cause) {
		Throwable unreachable = cause;
		while (unreachable != null
				&& !(unreachable instanceof UnknownHostException || unreachable instanceof ConnectException)) {
			unreachable = unreachable.getCause();
		}
		if (unreachable == null) {
			return "";
		}
		return "; no Kubernetes API server answers at " + this.client.getMasterUrl()
				+ ": set KUBECONFIG or run in a pod to use a cluster, or use the standalone mode"
				+ " (leader.election.mode=standalone) to lead without one";
	}

	/**
	 * What could not be read, naming the field when it is one, e.g.
	 * {@code spec.leaseDurationSeconds: Cannot deserialize value of type `java.lang.Integer` from
	 * String "fifteen"}: fabric8 wraps Jackson's failure as "An error has occurred.".
	 */
	static String unreadable(RuntimeException ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
				String field = mapping.getPath()
					.stream()
					.map((reference) -> (reference.getFieldName() != null) ? reference.getFieldName()
							: String.valueOf(reference.getIndex()))
					.collect(Collectors.joining("."));
				return field + ": " + mapping.getOriginalMessage();
			}
			if (cause instanceof JsonProcessingException processing) {
				return processing.getOriginalMessage();
			}
		}
		return ex.getMessage();
	}

	/** The server's message in an answer that is no success. */
	String reason(HttpResponse<String> response) {
		String body = response.body();
		try {
			Object parsed = this.serialization.unmarshal(body);
			if (parsed instanceof Status status && status.getMessage() != null) {
				return status.getMessage();
			}
		}
		catch (RuntimeException ex) {
			// not a Status: fall back to the raw answer
		}
		String message = response.message();
		return (body == null || body.isBlank()) ? String.valueOf(message)
				: body.substring(0, Math.min(body.length(), 300));
	}

}
