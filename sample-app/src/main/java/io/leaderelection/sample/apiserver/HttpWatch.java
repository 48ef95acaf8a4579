package io.leaderelection.sample.apiserver;

import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * A watch over plain HTTP, as {@code kubectl get -w} sends it: the store's watch writes its events
 * to this stand-in for a WebSocket, which streams them as a real API server does, one JSON object
 * per line of a chunked response.
 * <p>
 * The store starts every watch with an {@code ADDED} event per object; a watch from a resource
 * version (the one of the list {@code kubectl} printed first) leaves out those the client has
 * seen: added at or before that version.
 */
final class HttpWatch implements WebSocket {

	private final RecordedRequest request;

	private final HttpServerResponse response;

	private final ApiRequest apiRequest;

	private final long sinceVersion;

	/** What each event's object is turned into before it is sent: a Table, or itself. */
	private final UnaryOperator<JsonNode> shape;

	private final ObjectMapper json;

	HttpWatch(RecordedRequest request, HttpServerResponse response, ApiRequest apiRequest,
			UnaryOperator<JsonNode> shape, ObjectMapper json) {
		this.request = request;
		this.response = response;
		this.apiRequest = apiRequest;
		this.sinceVersion = version(apiRequest.parameter("resourceVersion"));
		this.shape = shape;
		this.json = json;
	}

	@Override
	public RecordedRequest request() {
		return this.request;
	}

	@Override
	public boolean send(String event) {
		try {
			ObjectNode watchEvent = (ObjectNode) this.json.readTree(event);
			JsonNode object = watchEvent.get("object");
			if (seenAlready(watchEvent.path("type").asText(), object) || !this.apiRequest.selects(object)) {
				return true;
			}
			watchEvent.set("object", this.shape.apply(object));
			this.response.write(Buffer.buffer(this.json.writeValueAsString(watchEvent) + "\n"));
			return true;
		}
		catch (JsonProcessingException | IllegalStateException ex) {
			// not JSON, or the response has ended: the client is gone
			return false;
		}
	}

	@Override
	public boolean send(byte[] event) {
		return send(new String(event, StandardCharsets.UTF_8));
	}

	@Override
	public boolean close(int code, String reason) {
		try {
			this.response.end();
			return true;
		}
		catch (IllegalStateException ex) {
			// ended already, or the client is gone
			return false;
		}
	}

	private boolean seenAlready(String type, JsonNode object) {
		return "ADDED".equals(type)
				&& version(object.at("/metadata/resourceVersion").asText()) <= this.sinceVersion;
	}

	/** A resource version as a number; 0 (before any) when absent or not a number. */
	private static long version(String resourceVersion) {
		try {
			return (resourceVersion != null) ? Long.parseLong(resourceVersion) : 0;
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

}
