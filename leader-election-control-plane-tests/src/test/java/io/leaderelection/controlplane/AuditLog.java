package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The audit log of one API server: one JSON line per request once it was answered, naming the
 * user, the verb, the object and the answer's code. What the control-plane tests count requests
 * and refusals with, as the server itself saw them.
 */
final class AuditLog {

	private static final ObjectMapper JSON = new ObjectMapper();

	private final Path file;

	AuditLog(Path file) {
		this.file = file;
	}

	Path file() {
		return this.file;
	}

	/** Where the log ends now: the requests answered from here on are those after this mark. */
	long mark() {
		try {
			return Files.exists(this.file) ? Files.size(this.file) : 0;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The requests answered since the mark, that match. */
	List<Request> since(long mark, Predicate<Request> matching) {
		List<Request> requests = new ArrayList<>();
		if (!Files.exists(this.file)) {
			return requests;
		}
		byte[] all;
		try {
			all = Files.readAllBytes(this.file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		// the mark is the size at some moment, always at the end of a line the server had written
		String text = new String(all, (int) Math.min(mark, all.length), (int) Math.max(0, all.length - mark),
				StandardCharsets.UTF_8);
		for (String line : text.split("\n")) {
			if (line.isBlank() || !line.endsWith("}")) {
				continue;
			}
			Request request = Request.of(line);
			if (request != null && matching.test(request)) {
				requests.add(request);
			}
		}
		return requests;
	}

	/**
	 * One request as the API server answered it. A watch is logged twice, when it started and when
	 * it ended; {@link #completed()} tells which.
	 *
	 * @param user who sent it, e.g. {@code system:serviceaccount:ns:name}
	 * @param verb the API verb: get, list, watch, create, update, patch, delete
	 * @param resource the resource, with its API group, e.g. {@code leases.coordination.k8s.io}
	 * @param subresource e.g. {@code status}; empty when none
	 * @param namespace the namespace; empty when none
	 * @param name the object's name; empty when none
	 * @param code the answer's HTTP status
	 * @param stage ResponseStarted (a watch began) or ResponseComplete
	 * @param uri the request's path and query
	 */
	record Request(String user, String verb, String resource, String subresource, String namespace, String name,
			int code, String stage, String uri) {

		static Request of(String line) {
			JsonNode event;
			try {
				event = JSON.readTree(line);
			}
			catch (IOException ex) {
				return null;
			}
			JsonNode object = event.path("objectRef");
			String group = object.path("apiGroup").asText("");
			String resource = object.path("resource").asText("");
			return new Request(event.path("user").path("username").asText(""), event.path("verb").asText(""),
					group.isEmpty() ? resource : resource + "." + group, object.path("subresource").asText(""),
					object.path("namespace").asText(""), object.path("name").asText(""),
					event.path("responseStatus").path("code").asInt(0), event.path("stage").asText(""),
					event.path("requestURI").asText(""));
		}

		/** Whether this tells the answer's end: every request but a watch that only began. */
		boolean completed() {
			return "ResponseComplete".equals(this.stage) || "Panic".equals(this.stage);
		}

		/** Whether the server refused it: forbidden by RBAC (403) or invalid (422). */
		boolean refused() {
			return this.code == 403 || this.code == 422;
		}

		@Override
		public String toString() {
			return this.user + " " + this.verb + " " + this.resource
					+ (this.subresource.isEmpty() ? "" : "/" + this.subresource)
					+ (this.namespace.isEmpty() ? "" : " in " + this.namespace)
					+ (this.name.isEmpty() ? "" : " " + this.name) + ": " + this.code;
		}

	}

}
