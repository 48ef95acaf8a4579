package io.leaderelection.benchmarks.harness;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Preconditions;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * fabric8's mock API server in CRUD mode on loopback, counting every request it serves by the
 * client that sent it (the {@value #CLIENT_HEADER} header each benchmark client carries) and by
 * kind. A thread drains the server's record of requests as they come, so that it never grows.
 * <p>
 * {@link #startCheckingDeletions()} starts one that also checks a deletion's preconditions, as
 * the API server does and fabric8's CRUD dispatcher does not: what leader-for-life's lock
 * deletions rely on.
 */
public final class ApiServer implements BenchmarkServer, AutoCloseable {

	public static final String CLIENT_HEADER = "X-Benchmark-Client";

	public static final String NAMESPACE = "bench";

	/** The mock server logs every request at INFO through java.util.logging: kept quiet (and referenced). */
	private static final java.util.logging.Logger MOCK_SERVER_LOG = quiet("io.fabric8.mockwebserver");

	/** What a request was: a read, an update, a create, the start of a watch, or else. */
	public enum Kind {

		GET, PUT, PATCH, POST, WATCH, OTHER

	}

	private final KubernetesMockServer server;

	private final Map<String, Counts> counts = new ConcurrentHashMap<>();

	/** Requests by client and resource ("client resource", e.g. "a endpointslices"), by kind. */
	private final Map<String, Counts> byResource = new ConcurrentHashMap<>();

	/** Reads of a Pod (GET .../pods/NAME), by client. */
	private final Map<String, LongAdder> podReads = new ConcurrentHashMap<>();

	/** Lists (GET of a collection, not a watch), by client; counted as {@link Kind#GET} as well. */
	private final Map<String, LongAdder> lists = new ConcurrentHashMap<>();

	private final Thread drain;

	private volatile boolean open = true;

	private ApiServer(KubernetesCrudDispatcher dispatcher) {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher,
				false);
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.drain = new Thread(this::drain, "api-server-request-log");
		this.drain.setDaemon(true);
		this.drain.start();
	}

	private static java.util.logging.Logger quiet(String name) {
		java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
		logger.setLevel(java.util.logging.Level.WARNING);
		return logger;
	}

	public static ApiServer start() {
		return new ApiServer(new KubernetesCrudDispatcher());
	}

	/**
	 * A server that answers a deletion whose preconditions (uid, resourceVersion) do not hold with
	 * 409, as the API server does, serving writes one at a time so that no write comes between
	 * that check and the deletion (as leader-election-core's test MockApiServer does).
	 */
	public static ApiServer startCheckingDeletions() {
		return new ApiServer(new DeletionCheckingDispatcher());
	}

	@Override
	public int port() {
		return this.server.getPort();
	}

	@Override
	public ClientAccess access(String client, int port) {
		return accessAt(port, client);
	}

	/** Plain HTTP to a loopback port, every request naming the client in {@value #CLIENT_HEADER}. */
	public static ClientAccess accessAt(int port, String client) {
		return new ClientAccess("http://127.0.0.1:" + port, NAMESPACE, Map.of(CLIENT_HEADER, client), null);
	}

	@Override
	public Counts counts(String client) {
		return this.counts.computeIfAbsent(client, (name) -> new Counts());
	}

	/**
	 * The requests counted for a client to one kind of resource so far, e.g. {@code endpointslices}
	 * or {@code pods}: the path segment after the namespace.
	 */
	public Counts counts(String client, String resource) {
		return this.byResource.computeIfAbsent(client + " " + resource, (key) -> new Counts());
	}

	/** How many times the client has read a Pod so far. */
	public long podReads(String client) {
		LongAdder reads = this.podReads.get(client);
		return (reads != null) ? reads.sum() : 0;
	}

	/** How many lists (GETs of a collection, watches apart) the client has sent so far; also counted as GET. */
	public long lists(String client) {
		LongAdder lists = this.lists.get(client);
		return (lists != null) ? lists.sum() : 0;
	}

	private void drain() {
		while (this.open) {
			RecordedRequest request;
			try {
				request = this.server.takeRequest(100, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				continue;
			}
			if (request != null) {
				String client = request.getHeader(CLIENT_HEADER);
				String name = (client != null) ? client : "unknown";
				Kind kind = kind(request);
				counts(name).add(kind);
				String resource = resource(String.valueOf(request.getPath()));
				if (resource != null) {
					counts(name, resource).add(kind);
				}
				if (kind == Kind.GET && String.valueOf(request.getPath()).contains("/pods/")) {
					this.podReads.computeIfAbsent(name, (key) -> new LongAdder()).increment();
				}
				if (kind == Kind.GET && isList(String.valueOf(request.getPath()))) {
					this.lists.computeIfAbsent(name, (key) -> new LongAdder()).increment();
				}
			}
		}
	}

	private static Kind kind(RecordedRequest request) {
		String method = request.getMethod();
		String path = String.valueOf(request.getPath());
		if ("GET".equals(method)) {
			return path.contains("watch=true") ? Kind.WATCH : Kind.GET;
		}
		if ("PUT".equals(method)) {
			return Kind.PUT;
		}
		if ("PATCH".equals(method)) {
			return Kind.PATCH;
		}
		if ("POST".equals(method)) {
			return Kind.POST;
		}
		return Kind.OTHER;
	}

	/** The resource of a namespaced path: the segment after the namespace; {@code null} for another path. */
	public static String resource(String path) {
		int query = path.indexOf('?');
		String[] segments = ((query >= 0) ? path.substring(0, query) : path).replaceAll("^/+|/+$", "").split("/+");
		int namespaces = java.util.Arrays.asList(segments).indexOf("namespaces");
		return (namespaces >= 0 && namespaces + 2 < segments.length) ? segments[namespaces + 2] : null;
	}

	/**
	 * Whether the path names a collection (/api/v1/namespaces/NS/pods, /apis/G/V/namespaces/NS/leases,
	 * /api/v1/nodes) rather than one object.
	 */
	public static boolean isList(String path) {
		int query = path.indexOf('?');
		String[] segments = ((query >= 0) ? path.substring(0, query) : path).replaceAll("^/+|/+$", "").split("/+");
		int namespaces = java.util.Arrays.asList(segments).indexOf("namespaces");
		if (namespaces >= 0 && namespaces + 1 < segments.length) {
			return segments.length - namespaces == 3;
		}
		return segments.length == (("api".equals(segments[0])) ? 3 : 4);
	}

	/**
	 * The kinds with a count above zero, each with its count as given.
	 * @param counts by {@link Kind#ordinal()}
	 */
	public static String byKind(long[] counts, LongFunction<String> format) {
		List<String> kinds = new ArrayList<>();
		for (Kind kind : Kind.values()) {
			if (counts[kind.ordinal()] > 0) {
				kinds.add(kind + " " + format.apply(counts[kind.ordinal()]));
			}
		}
		return String.join(", ", kinds);
	}

	@Override
	public void close() {
		this.open = false;
		this.drain.interrupt();
		this.server.destroy();
	}

	/** Requests of one client, by kind. */
	public static final class Counts {

		private final Map<Kind, LongAdder> byKind = new ConcurrentHashMap<>();

		public void add(Kind kind) {
			this.byKind.computeIfAbsent(kind, (k) -> new LongAdder()).increment();
		}

		public long get(Kind kind) {
			LongAdder adder = this.byKind.get(kind);
			return (adder != null) ? adder.sum() : 0;
		}

		public long total() {
			long total = 0;
			for (Kind kind : Kind.values()) {
				total += get(kind);
			}
			return total;
		}

		/** The kinds counted, with their counts: {@code GET 3, WATCH 1}. */
		@Override
		public String toString() {
			return byKind(snapshot(), String::valueOf);
		}

		/** The counts now, to subtract from later ones. */
		public long[] snapshot() {
			long[] snapshot = new long[Kind.values().length];
			for (Kind kind : Kind.values()) {
				snapshot[kind.ordinal()] = get(kind);
			}
			return snapshot;
		}

	}

	/**
	 * CRUD, checking a deletion's preconditions as the API server does: a uid or resourceVersion
	 * that does not match the stored object's is answered with 409 Conflict. Writes are served one
	 * at a time, so that the check and the deletion see the same object.
	 */
	private static final class DeletionCheckingDispatcher extends KubernetesCrudDispatcher {

		private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

		private final Object writes = new Object();

		@Override
		public MockResponse dispatch(RecordedRequest request) {
			if ("GET".equalsIgnoreCase(request.getMethod())) {
				return super.dispatch(request);
			}
			synchronized (this.writes) {
				MockResponse failed = "DELETE".equalsIgnoreCase(request.getMethod()) ? failedPrecondition(request)
						: null;
				return (failed != null) ? failed : super.dispatch(request);
			}
		}

		/** The answer to a deletion whose preconditions do not hold; {@code null} when they do. */
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
				return conflict("Precondition failed: UID in precondition: " + preconditions.getUid()
						+ ", UID in object meta: " + stored.getUid());
			}
			if (preconditions.getResourceVersion() != null
					&& !preconditions.getResourceVersion().equals(stored.getResourceVersion())) {
				return conflict("Precondition failed: ResourceVersion in precondition: "
						+ preconditions.getResourceVersion() + ", ResourceVersion in object meta: "
						+ stored.getResourceVersion());
			}
			return null;
		}

		private static MockResponse conflict(String message) {
			return new MockResponse().setResponseCode(409)
				.setHeader("Content-Type", "application/json")
				.setBody(SERIALIZATION.asJson(new StatusBuilder().withStatus("Failure")
					.withCode(409)
					.withReason("Conflict")
					.withMessage(message)
					.build()));
		}

	}

}
