package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The audit log of one API server: one JSON line per request once it was answered, naming the
 * user, the verb, the object and the answer's code. What the control-plane tests count requests
 * and refusals with, as the server itself saw them.
 */
public final class AuditLog {

	private static final ObjectMapper JSON = new ObjectMapper();

	private final Path file;

	AuditLog(Path file) {
		this.file = file;
	}

	Path file() {
		return this.file;
	}

	/** Where the log ends now: the requests answered from here on are those after this mark. */
	public long mark() {
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
		read(mark, (request) -> {
			if (matching.test(request)) {
				requests.add(request);
			}
		});
		return requests;
	}

	/**
	 * Reads the requests answered since the mark, only the part of the log written since, and
	 * returns the mark after the last whole line read: what a reader that follows the log as it
	 * grows passes next. A log shorter than the mark was rotated (the API server starts a new file
	 * at 100 MB): it is read from its start.
	 */
	public long read(long mark, Consumer<Request> each) {
		if (!Files.exists(this.file)) {
			return mark;
		}
		byte[] written;
		long from;
		try (FileChannel channel = FileChannel.open(this.file, StandardOpenOption.READ)) {
			long size = channel.size();
			from = (size < mark) ? 0 : mark;
			ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8, size - from));
			while (buffer.hasRemaining() && channel.read(buffer, from + buffer.position()) > 0) {
				// reads on until the size seen, however the channel splits it
			}
			written = buffer.array();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		// only whole lines: the server may be writing the last one
		int end = written.length;
		while (end > 0 && written[end - 1] != '\n') {
			end--;
		}
		for (String line : new String(written, 0, end, StandardCharsets.UTF_8).split("\n")) {
			Request request = line.isBlank() ? null : Request.of(line);
			if (request != null) {
				each.accept(request);
			}
		}
		return from + end;
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
	 * @param at when the server logged the stage, on its wall clock, which is this machine's;
	 * {@code null} when the line does not tell
	 */
	public record Request(String user, String verb, String resource, String subresource, String namespace, String name,
			int code, String stage, String uri, Instant at) {

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
					event.path("requestURI").asText(""), instant(event.path("stageTimestamp").asText("")));
		}

		private static Instant instant(String timestamp) {
			try {
				return Instant.parse(timestamp);
			}
			catch (DateTimeParseException ex) {
				return null;
			}
		}

		/** Whether this tells the answer's end: every request but a watch that only began. */
		public boolean completed() {
			return "ResponseComplete".equals(this.stage) || "Panic".equals(this.stage);
		}

		/** Whether the server refused it: forbidden by RBAC (403) or invalid (422). */
		public boolean refused() {
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
