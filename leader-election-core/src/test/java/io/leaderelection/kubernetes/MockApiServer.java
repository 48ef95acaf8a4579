package io.leaderelection.kubernetes;

import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Preconditions;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

/**
 * fabric8's mock API server in CRUD mode on loopback: it stores objects, bumps resourceVersion
 * and answers a stale write with 409. On top of that it can be stopped and restarted on its port
 * with its objects kept, as an API server restarts in front of its etcd, told to answer chosen
 * requests itself (403, 404, 500, an answer that never comes) instead of serving them, and tell
 * of every version of a Lease it stores and of every request about one. The core's tests that need
 * an API server to fail on demand run on it, and so do the chaos suite's runs
 * (leader-election-chaos-tests, through this module's test-jar), as its subclass ChaosApiServer.
 */
public class MockApiServer implements AutoCloseable {

	/** The header naming the client of every request, so that an answer can target one replica. */
	public static final String CLIENT_HEADER = "X-Test-Client";

	/**
	 * The mock server logs every request at INFO through java.util.logging; a chaos run sends
	 * hundreds a second. Held here so that the level set on it is not lost with the logger.
	 */
	private static final Logger MOCK_SERVER_LOGGER = Logger.getLogger(MockWebServer.class.getName());

	private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

	private final AnsweringDispatcher dispatcher = new AnsweringDispatcher();

	private final int port;

	private KubernetesMockServer server;

	protected MockApiServer() {
		MOCK_SERVER_LOGGER.setLevel(Level.WARNING);
		this.server = serve(0);
		this.port = this.server.getPort();
	}

	public static MockApiServer start() {
		return new MockApiServer();
	}

	/** The loopback port it serves on, the same across a restart. */
	public int port() {
		return this.port;
	}

	/** A client that talks to the server, known to it by the given name. */
	public KubernetesClient client(String clientName) {
		return new KubernetesClientBuilder().withConfig(clientConfig(this.port, clientName).build()).build();
	}

	/**
	 * The configuration of a client for a server, or a link to it, on a loopback port. Every
	 * request carries the {@value #CLIENT_HEADER} header with the client's name.
	 */
	public static ConfigBuilder clientConfig(int port, String clientName) {
		return new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + port)
			// plain HTTP: no h2c upgrade for the JDK's HTTP client to ask for
			.withHttp2Disable(true)
			.withConnectionTimeout(500)
			.withCustomHeaders(Map.of(CLIENT_HEADER, clientName));
	}

	/** Stops serving: connections are closed and new ones refused. The stored objects are kept. */
	public synchronized void stop() {
		if (this.server != null) {
			this.server.destroy();
			this.server = null;
		}
	}

	/** Serves again on the same port, with the objects stored before the stop. */
	public synchronized void restart() {
		if (this.server == null) {
			this.server = serve(this.port);
		}
	}

	/**
	 * From now on, answers the matching requests with the given response instead of serving
	 * them, until the returned answer is withdrawn. The latest matching answer wins.
	 */
	public Answer answer(Predicate<RecordedRequest> requests, Supplier<MockResponse> response) {
		Answer answer = new Answer(requests, response, this.dispatcher.answers);
		this.dispatcher.answers.add(0, answer);
		return answer;
	}

	/**
	 * From now on, tells the listener of every version of a Lease the server stores and of every
	 * deletion, in the order they are stored, as they are stored: before any client hears of it.
	 * The client is the one named in {@value #CLIENT_HEADER}.
	 */
	public void onLeaseWritten(LeaseWriteListener listener) {
		this.dispatcher.leaseWriteListener = listener;
	}

	/**
	 * From now on, tells the listener of every request about a Lease the server answered (reads,
	 * writes, watches, those refused and those answered by an {@link #answer}), with the answer's
	 * status code, as it answers: what a gate overlap's timeline shows beside the versions stored.
	 * A watch accepted is answered 101, as the mock accepts it with a WebSocket upgrade.
	 */
	public void onLeaseRequest(LeaseRequestListener listener) {
		this.dispatcher.leaseRequestListener = listener;
	}

	/** Requests sent by the named client. */
	public static Predicate<RecordedRequest> from(String clientName) {
		return (request) -> clientName.equals(request.getHeader(CLIENT_HEADER));
	}

	/** Requests with the given HTTP method, e.g. {@code PUT}. */
	public static Predicate<RecordedRequest> method(String method) {
		return (request) -> method.equalsIgnoreCase(request.getMethod());
	}

	/** An error answer with a Kubernetes Status body, as the API server gives. */
	public static MockResponse status(int code, String reason, String message) {
		return new MockResponse().setResponseCode(code)
			.setHeader("Content-Type", "application/json")
			.setBody(SERIALIZATION.asJson(new StatusBuilder().withStatus("Failure")
				.withCode(code)
				.withReason(reason)
				.withMessage(message)
				.build()));
	}

	/** An answer that comes only after the given delay: a server that hangs. */
	public static MockResponse after(Duration delay, MockResponse response) {
		return response.setBodyDelay(delay.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void close() {
		stop();
	}

	private KubernetesMockServer serve(int port) {
		MockWebServer webServer = new MockWebServer();
		this.dispatcher.requestLog = webServer;
		KubernetesMockServer server = new KubernetesMockServer(new Context(), webServer, new HashMap<>(),
				this.dispatcher, false);
		server.init(InetAddress.getLoopbackAddress(), port);
		return server;
	}

	/** Told of every Lease version the server stores. */
	@FunctionalInterface
	public interface LeaseWriteListener {

		/**
		 * @param name the Lease's name
		 * @param client the name of the client whose request stored it, as the server tells it
		 * @param stored the version stored; {@code null} when the Lease was deleted
		 */
		void written(String name, String client, Lease stored);

	}

	/** Told of every request about a Lease the server answers. */
	@FunctionalInterface
	public interface LeaseRequestListener {

		/**
		 * @param name the Lease's name
		 * @param client the name of the client that sent it
		 * @param request what was asked, e.g. {@code PUT}, {@code GET}, {@code watch}
		 * @param code the status code of the answer (for a watch, that of its start)
		 */
		void requested(String name, String client, String request, int code);

	}

	/** An answer given instead of the server's own until withdrawn. */
	public static final class Answer implements AutoCloseable {

		private final Predicate<RecordedRequest> requests;

		private final Supplier<MockResponse> response;

		private final List<Answer> answers;

		private Answer(Predicate<RecordedRequest> requests, Supplier<MockResponse> response, List<Answer> answers) {
			this.requests = requests;
			this.response = response;
			this.answers = answers;
		}

		/** Withdraws the answer: matching requests are served again. */
		@Override
		public void close() {
			this.answers.remove(this);
		}

	}

	/**
	 * Serves CRUD unless an answer matches, and tells of every Lease version stored. It also
	 * empties the web server's request log at every request: a long chaos run would otherwise
	 * keep every request in memory.
	 * <p>
	 * It checks a deletion's preconditions (uid, resourceVersion) as the API server does, with a
	 * 409 when they do not hold; fabric8's CRUD dispatcher ignores them. Writes are served one at
	 * a time, so that no write comes between that check and the deletion.
	 * <p>
	 * A watch of a Lease from a resourceVersion hears of the Lease's deletion if it came after that
	 * version and the Lease is still missing when the watch opens, as from the API server, which
	 * replays from its watch cache what happened since the version a watch names. fabric8's CRUD
	 * dispatcher replays nothing: it tells a new watch of the objects that exist, so a deletion made
	 * while a client was watching again (after a reset, an API server restart) would never reach
	 * it.
	 */
	private static final class AnsweringDispatcher extends KubernetesCrudDispatcher {

		private static final String COORDINATION_API = "/apis/coordination.k8s.io/v1/";

		/** The client of the request being served on this thread. */
		private static final ThreadLocal<String> CLIENT = new ThreadLocal<>();

		private final List<Answer> answers = new CopyOnWriteArrayList<>();

		private final Object writes = new Object();

		private volatile MockWebServer requestLog;

		/** {@code null} until one is set: a Lease some tests store on purpose may not even parse. */
		private volatile LeaseWriteListener leaseWriteListener;

		private volatile LeaseRequestListener leaseRequestListener;

		/** The last version of each Lease stored, by namespace and name. */
		private final Map<String, GenericKubernetesResource> storedLeases = new ConcurrentHashMap<>();

		/** The last version of each Lease deleted and not created again, by namespace and name. */
		private final Map<String, GenericKubernetesResource> deletedLeases = new ConcurrentHashMap<>();

		@Override
		public MockResponse dispatch(RecordedRequest request) {
			MockResponse response = serve(request);
			LeaseRequestListener listener = this.leaseRequestListener;
			if (listener != null) {
				String lease = leaseAskedFor(request);
				if (lease != null) {
					String path = request.getPath();
					boolean watch = path.contains("watch=true") || path.contains("watch=1");
					// a watch accepted is a WebSocket upgrade, which the mock's answer tells without a code
					int code = (response.getWebSocketListener() != null) ? 101 : response.code();
					listener.requested(lease, request.getHeader(CLIENT_HEADER),
							watch ? "watch" : request.getMethod().toUpperCase(), code);
				}
			}
			return response;
		}

		/**
		 * The name of the Lease a request is about: named in its path, in the field selector of a
		 * watch, or in the body of a creation; {@code null} for any other request.
		 */
		private static String leaseAskedFor(RecordedRequest request) {
			String path = request.getPath();
			if (path == null || !path.startsWith(COORDINATION_API) || !path.contains("/leases")) {
				return null;
			}
			String object = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
			if (object.contains("/leases/")) {
				return object.substring(object.lastIndexOf('/') + 1);
			}
			String watched = watchedLease(path);
			if (watched != null) {
				return watched.substring(watched.indexOf('/') + 1);
			}
			if ("POST".equalsIgnoreCase(request.getMethod())) {
				try {
					ObjectMeta metadata = SERIALIZATION
						.unmarshal(request.getUtf8Body(), GenericKubernetesResource.class)
						.getMetadata();
					return (metadata != null) ? metadata.getName() : null;
				}
				catch (RuntimeException ex) {
					return null;
				}
			}
			return null;
		}

		private MockResponse serve(RecordedRequest request) {
			forgetRequests();
			for (Answer answer : this.answers) {
				if (answer.requests.test(request)) {
					return answer.response.get();
				}
			}
			CLIENT.set(request.getHeader(CLIENT_HEADER));
			try {
				if ("GET".equalsIgnoreCase(request.getMethod())) {
					return super.dispatch(request);
				}
				synchronized (this.writes) {
					MockResponse failedPrecondition = "DELETE".equalsIgnoreCase(request.getMethod())
							? failedPrecondition(request) : null;
					return (failedPrecondition != null) ? failedPrecondition : super.dispatch(request);
				}
			}
			finally {
				CLIENT.remove();
			}
		}

		/** The API server's answer to a deletion whose preconditions do not hold; {@code null} when they do. */
		private MockResponse failedPrecondition(RecordedRequest request) {
			String body = request.getUtf8Body();
			if (body == null || body.isBlank()) {
				return null;
			}
			Preconditions preconditions = SERIALIZATION.unmarshal(body, DeleteOptions.class).getPreconditions();
			if (preconditions == null) {
				return null;
			}
			MockResponse current = handleGet(request.getPath());
			if (current.code() != 200) {
				return null;
			}
			ObjectMeta stored = SERIALIZATION.unmarshal(current.getBody().readUtf8(), GenericKubernetesResource.class)
				.getMetadata();
			if (preconditions.getUid() != null && !preconditions.getUid().equals(stored.getUid())) {
				return status(409, "Conflict", "Precondition failed: UID in precondition: " + preconditions.getUid()
						+ ", UID in object meta: " + stored.getUid());
			}
			if (preconditions.getResourceVersion() != null
					&& !preconditions.getResourceVersion().equals(stored.getResourceVersion())) {
				return status(409, "Conflict", "Precondition failed: ResourceVersion in precondition: "
						+ preconditions.getResourceVersion() + ", ResourceVersion in object meta: "
						+ stored.getResourceVersion());
			}
			return null;
		}

		/** Called for every change stored, under the store's write lock, so in the order stored. */
		@Override
		public void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes,
				GenericKubernetesResource resource, String newState) {
			super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
			if (!path.startsWith(COORDINATION_API) || !path.contains("/leases")) {
				return;
			}
			rememberDeletion(path, newState);
			LeaseWriteListener listener = this.leaseWriteListener;
			if (listener == null) {
				return;
			}
			if (newState != null) {
				Lease stored = SERIALIZATION.unmarshal(newState, Lease.class);
				listener.written(stored.getMetadata().getName(), CLIENT.get(), stored);
			}
			else {
				String object = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
				listener.written(object.substring(object.lastIndexOf('/') + 1), CLIENT.get(), null);
			}
		}

		/** Keeps the last version of each Lease, and of each one deleted, which the dispatcher does not tell. */
		private void rememberDeletion(String path, String newState) {
			if (newState != null) {
				GenericKubernetesResource stored = SERIALIZATION.unmarshal(newState, GenericKubernetesResource.class);
				String key = stored.getMetadata().getNamespace() + "/" + stored.getMetadata().getName();
				this.storedLeases.put(key, stored);
				this.deletedLeases.remove(key);
				return;
			}
			String object = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
			int namespaces = object.indexOf("/namespaces/");
			int leases = object.indexOf("/leases/");
			if (namespaces < 0 || leases < namespaces) {
				return;
			}
			String key = object.substring(namespaces + "/namespaces/".length(), leases) + "/"
					+ object.substring(leases + "/leases/".length());
			GenericKubernetesResource last = this.storedLeases.remove(key);
			if (last != null) {
				this.deletedLeases.put(key, last);
			}
		}

		/** Serves a watch, and, for a watch of a Lease from a version before its deletion, replays that. */
		@Override
		public MockResponse handleWatch(String path) {
			MockResponse response = super.handleWatch(path);
			String key = watchedLease(path);
			Long from = watchedFrom(path);
			if (key == null || from == null || !this.deletedLeases.containsKey(key)) {
				return response;
			}
			WebSocketListener watch = response.getWebSocketListener();
			return response.withWebSocketUpgrade(new ReplayingDeletion(watch, () -> {
				GenericKubernetesResource deleted = this.deletedLeases.get(key);
				Long version = (deleted != null) ? resourceVersion(deleted) : null;
				return (version != null && version >= from) ? deleted : null;
			}));
		}

		/** {@code namespace/name} of the Lease a watch names with its field selector; {@code null} for another watch. */
		private static String watchedLease(String path) {
			if (!path.startsWith(COORDINATION_API) || !path.contains("/leases?")) {
				return null;
			}
			String namespace = path.contains("/namespaces/")
					? path.substring(path.indexOf("/namespaces/") + "/namespaces/".length(), path.indexOf("/leases?")) : null;
			String selector = queryParameter(path, "fieldSelector");
			String prefix = "metadata.name=";
			return (namespace != null && selector != null && selector.startsWith(prefix) && !selector.contains(","))
					? namespace + "/" + selector.substring(prefix.length()) : null;
		}

		private static Long watchedFrom(String path) {
			String version = queryParameter(path, "resourceVersion");
			return (version != null && version.matches("[0-9]{1,18}")) ? Long.valueOf(version) : null;
		}

		private static String queryParameter(String path, String name) {
			int query = path.indexOf('?');
			if (query < 0) {
				return null;
			}
			for (String parameter : path.substring(query + 1).split("&")) {
				if (parameter.startsWith(name + "=")) {
					return URLDecoder.decode(parameter.substring(name.length() + 1), StandardCharsets.UTF_8);
				}
			}
			return null;
		}

		private static Long resourceVersion(GenericKubernetesResource resource) {
			String version = resource.getMetadata().getResourceVersion();
			return (version != null && version.matches("[0-9]{1,18}")) ? Long.valueOf(version) : null;
		}

		/**
		 * A watch that, once open, is told of a deletion it missed: after the objects that exist
		 * (none of that name), before any later change, as writes wait meanwhile.
		 */
		private final class ReplayingDeletion extends WebSocketListener {

			private final WebSocketListener watch;

			private final Supplier<GenericKubernetesResource> missed;

			ReplayingDeletion(WebSocketListener watch, Supplier<GenericKubernetesResource> missed) {
				this.watch = watch;
				this.missed = missed;
			}

			@Override
			public void onBeforeAccept(WebSocket webSocket, Response response) {
				this.watch.onBeforeAccept(webSocket, response);
			}

			@Override
			public void onOpen(WebSocket webSocket, Response response) {
				synchronized (AnsweringDispatcher.this.writes) {
					this.watch.onOpen(webSocket, response);
					GenericKubernetesResource deleted = this.missed.get();
					if (deleted != null) {
						webSocket.send(SERIALIZATION.asJson(new WatchEvent(deleted, "DELETED")));
					}
				}
			}

			@Override
			public void onMessage(WebSocket webSocket, String text) {
				this.watch.onMessage(webSocket, text);
			}

			@Override
			public void onMessage(WebSocket webSocket, ByteString bytes) {
				this.watch.onMessage(webSocket, bytes);
			}

			@Override
			public void onMessage(WebSocket webSocket, byte[] bytes) {
				this.watch.onMessage(webSocket, bytes);
			}

			@Override
			public void onClosing(WebSocket webSocket, int code, String reason) {
				this.watch.onClosing(webSocket, code, reason);
			}

			@Override
			public void onClosed(WebSocket webSocket, int code, String reason) {
				this.watch.onClosed(webSocket, code, reason);
			}

			@Override
			public void onFailure(WebSocket webSocket, Throwable failure, Response response) {
				this.watch.onFailure(webSocket, failure, response);
			}

		}

		private void forgetRequests() {
			try {
				while (this.requestLog.takeRequest(0, TimeUnit.MILLISECONDS) != null) {
					// dropped
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
