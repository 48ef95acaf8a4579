package io.leaderelection.sample.apiserver;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * The sample's local API server: fabric8's CRUD mock API server's store (which keeps any object,
 * bumps resourceVersion and answers a stale update with 409, as a real API server does), on
 * loopback, with what {@code kubectl} needs of a real API server besides: the
 * {@link Discovery discovery documents} of the resources the starter uses, {@link Tables Tables}
 * for {@code kubectl get}, lists of their kind ({@code EventList}), field selectors on any field
 * ({@code kubectl describe} selects Events by {@code involvedObject}), and watches over plain HTTP
 * ({@code kubectl get -w}) as well as over WebSockets (fabric8's clients).
 */
public final class LocalApiServer implements AutoCloseable {

	/** The port the standalone server listens on, and the one replicas look for it on. */
	public static final int DEFAULT_PORT = 7070;

	private static final String NETTY_NO_UNSAFE = "io.netty.noUnsafe";

	private static final String CONTENT_TYPE = "Content-Type";

	private static final String JSON = "application/json";

	private final Vertx vertx;

	private final HttpServer httpServer;

	private final KubernetesCrudDispatcher store = new KubernetesCrudDispatcher();

	private final Discovery discovery = new Discovery();

	private final Tables tables;

	private final ObjectMapper json = new ObjectMapper();

	private final HttpServerRequestHandler storeHandler;

	private LocalApiServer(Vertx vertx, int port, Tables tables) {
		this.vertx = vertx;
		this.tables = tables;
		this.storeHandler = new HttpServerRequestHandler(vertx) {

			@Override
			protected MockResponse onHttpRequest(RecordedRequest request) {
				return respond(request);
			}

		};
		this.httpServer = vertx
			.createHttpServer(new HttpServerOptions().setHost(InetAddress.getLoopbackAddress().getHostAddress())
				.setPort(port)
				.setHandle100ContinueAutomatically(true))
			.requestHandler(this::handle);
	}

	/**
	 * Starts a local API server on 127.0.0.1.
	 * @param port the port, 0 for any free one
	 * @return the server, listening
	 * @throws BindException when the port is taken
	 */
	public static LocalApiServer start(int port) throws BindException {
		// Netty, under Vert.x, would otherwise use sun.misc.Unsafe, for which JDK 24 and later warn at
		// the start of every application that serves one; a local API server does not need its speed
		if (System.getProperty(NETTY_NO_UNSAFE) == null) {
			System.setProperty(NETTY_NO_UNSAFE, "true");
		}
		Vertx vertx = Vertx.vertx();
		LocalApiServer server = new LocalApiServer(vertx, port, new Tables(Clock.systemUTC()));
		try {
			server.httpServer.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
			return server;
		}
		catch (ExecutionException ex) {
			server.close();
			if (ex.getCause() instanceof BindException taken) {
				throw taken;
			}
			throw new IllegalStateException("Cannot start a local API server on 127.0.0.1:" + port, ex.getCause());
		}
		catch (TimeoutException ex) {
			server.close();
			throw new IllegalStateException("Cannot start a local API server on 127.0.0.1:" + port, ex);
		}
		catch (InterruptedException ex) {
			server.close();
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting a local API server", ex);
		}
	}

	/** The port it listens on. */
	public int port() {
		return this.httpServer.actualPort();
	}

	/** The command that lists the Leases of the local API server on that port. */
	public static String kubectlGetLeases(int port) {
		return "kubectl --server http://127.0.0.1:" + port + " get leases";
	}

	@Override
	public void close() {
		try {
			this.vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("Cannot stop the local API server", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void handle(HttpServerRequest request) {
		ApiRequest apiRequest = ApiRequest.of(request.uri());
		if (apiRequest.watch() && apiRequest.invalidSelector() == null && request.getHeader("Upgrade") == null) {
			watchOverHttp(request, apiRequest);
		}
		else {
			this.storeHandler.handle(request);
		}
	}

	private MockResponse respond(RecordedRequest request) {
		ApiRequest apiRequest = ApiRequest.of(request.getPath());
		if (apiRequest.invalidSelector() != null) {
			return status(400, "BadRequest", apiRequest.invalidSelector());
		}
		if (!isApiPath(apiRequest.path())) {
			// /version, /openapi/v2, /healthz...: not served, where the store would answer any path
			return status(404, "NotFound", "the server could not find the requested resource");
		}
		boolean get = request.method() == HttpMethod.GET;
		if (get) {
			Optional<KubernetesResource> document = this.discovery.document(apiRequest.path());
			if (document.isPresent()) {
				return jsonResponse(200, document.get());
			}
		}
		MockResponse response = this.store.dispatch(new RecordedRequest(request.getHttpVersion(), request.method(),
				apiRequest.forStore(), request.getHeaders(), request.getBody()));
		if (response.getWebSocketListener() != null) {
			return response;
		}
		if (response.code() == 404 && apiRequest.name() != null && apiRequest.resource().isPresent()) {
			return notFound(apiRequest.resource().get(), apiRequest.name());
		}
		if (response.getBody() == null || response.getBody().size() == 0) {
			return response;
		}
		if (!get || response.code() != 200 || apiRequest.resource().isEmpty()) {
			return response.setHeader(CONTENT_TYPE, JSON);
		}
		ServedResource resource = apiRequest.resource().get();
		try {
			JsonNode body = this.json.readTree(response.getBody().getBytes());
			if (body.has("items")) {
				body = ofKind(resource, (ObjectNode) body, apiRequest);
			}
			if (Tables.requested(request.getHeader("Accept"))) {
				body = this.tables.table(resource, body, apiRequest.parameter("includeObject"));
			}
			return jsonResponse(200, body);
		}
		catch (IOException ex) {
			return status(500, "InternalError", "The store answered what is not JSON: " + ex.getMessage());
		}
	}

	private static boolean isApiPath(String path) {
		return path.equals("/api") || path.equals("/apis") || path.startsWith("/api/") || path.startsWith("/apis/");
	}

	/**
	 * The list as a real API server answers it: of the resource's kind ({@code EventList}, where the
	 * store answers {@code List}), with only the items that meet the field selector.
	 */
	private ObjectNode ofKind(ServedResource resource, ObjectNode list, ApiRequest apiRequest) {
		list.put("kind", resource.kind() + "List");
		list.put("apiVersion", resource.groupVersion());
		if (apiRequest.selectsOnServer()) {
			ArrayNode items = list.withArray("items");
			for (int i = items.size() - 1; i >= 0; i--) {
				if (!apiRequest.selects(items.get(i))) {
					items.remove(i);
				}
			}
		}
		return list;
	}

	private void watchOverHttp(HttpServerRequest request, ApiRequest apiRequest) {
		RecordedRequest recorded = new RecordedRequest("HTTP/1.1", HttpMethod.GET, request.uri(),
				Headers.builder().addAll(request.headers()).build(), null);
		MockResponse watch = this.store.handleWatch(apiRequest.forStore());
		WebSocketListener listener = watch.getWebSocketListener();
		UnaryOperator<JsonNode> shape = (Tables.requested(request.getHeader("Accept"))
				&& apiRequest.resource().isPresent())
						? (object) -> this.tables.table(apiRequest.resource().get(), object,
								apiRequest.parameter("includeObject"))
						: UnaryOperator.identity();
		HttpServerResponse response = request.response().setChunked(true).putHeader(CONTENT_TYPE, JSON);
		HttpWatch stream = new HttpWatch(recorded, response, apiRequest, shape, this.json);
		response.closeHandler((closed) -> this.vertx.executeBlocking(() -> {
			listener.onClosed(stream, 1000, "The client closed the watch");
			return null;
		}));
		// the headers now: the client waits for them before it reads events, which may be long in coming
		response.write(Buffer.buffer());
		listener.onOpen(stream, watch);
	}

	private MockResponse jsonResponse(int code, Object body) {
		try {
			return new MockResponse().setResponseCode(code)
				.setHeader(CONTENT_TYPE, JSON)
				.setBody(this.json.writeValueAsString(body));
		}
		catch (JsonProcessingException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The answer of a real API server when there is no such object: {@code leases.coordination.k8s.io "x" not found}. */
	private MockResponse notFound(ServedResource resource, String name) {
		String groupResource = resource.group().isEmpty() ? resource.plural()
				: resource.plural() + "." + resource.group();
		return jsonResponse(404, new StatusBuilder().withStatus("Failure")
			.withCode(404)
			.withReason("NotFound")
			.withMessage(groupResource + " \"" + name + "\" not found")
			.withNewDetails()
			.withName(name)
			.withGroup(resource.group())
			.withKind(resource.plural())
			.endDetails()
			.build());
	}

	private MockResponse status(int code, String reason, String message) {
		return jsonResponse(code, new StatusBuilder().withStatus("Failure")
			.withCode(code)
			.withReason(reason)
			.withMessage(message)
			.build());
	}

}
