package io.leaderelection.migration;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.readiness.Readiness;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * fabric8's Kubernetes mock server in CRUD mode on the loopback address, for the replicas of the
 * old (spring-cloud-kubernetes ConfigMap) protocol and of the new one: it stores ConfigMaps, Pods
 * and Leases, bumps resourceVersion, answers stale updates and duplicate creates with 409 and
 * serves watches, like an API server. Every replica gets a client of its own (its own
 * connections), whose default namespace is the replica's: the old protocol reads Pods in its
 * client's namespace, whatever namespace it is told for its ConfigMap.
 * <p>
 * It also plays the kubelet: it creates a replica's Pod and flips the Pod's {@code Ready}
 * condition, which is all the old protocol knows of a replica's liveness.
 * <p>
 * A test class may hold one in a static {@code @RegisterExtension} field, which stops it after
 * the class's tests.
 */
public final class MigrationApiServer implements AutoCloseable, AfterAllCallback {

	/**
	 * The mock server logs every request it serves through java.util.logging, which nothing
	 * bridges when no Spring application runs; held so that its level stays set.
	 */
	private static final java.util.logging.Logger mockServerLogger = quiet("io.fabric8.mockwebserver");

	private final Server server;

	/** The test's own client: for Pods and reads; never handed to a replica. */
	private final KubernetesClient client;

	private MigrationApiServer() {
		this.server = new Server();
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
	}

	public static MigrationApiServer start() {
		return new MigrationApiServer();
	}

	/**
	 * A new client on this server with the namespace as its default, for one replica, which
	 * closes it: clients are never shared between replicas.
	 */
	public KubernetesClient newClient(String namespace) {
		return newClient(namespace, null);
	}

	/**
	 * A new client on this server, as {@link #newClient(String)}, whose requests the holds may
	 * hold.
	 */
	public KubernetesClient newClient(String namespace, RequestHolds holds) {
		return newClient(namespace, holds, null);
	}

	/**
	 * A new client on this server, as {@link #newClient(String, RequestHolds)}, whose requests
	 * carry the replica's name as their {@code User-Agent}, for {@link #recordRequests}; clients
	 * built from its configuration (as this starter builds its own) carry it too.
	 */
	public KubernetesClient newClient(String namespace, RequestHolds holds, String replica) {
		ConfigBuilder config = new ConfigBuilder(this.server.config()).withNamespace(namespace);
		if (replica != null) {
			config.withUserAgent(replica);
		}
		return this.server.createClient((builder) -> {
			builder.withConfig(config.build());
			if (holds != null) {
				builder.withHttpClientBuilderConsumer(
						(httpClient) -> httpClient.addOrReplaceInterceptor(RequestHolds.NAME, holds));
			}
		});
	}

	/**
	 * Records in the timeline every request on the namespace's objects as the server answers it
	 * (watches left out), under the name of the replica whose client sent it.
	 */
	public void recordRequests(String namespace, RequestTimeline timeline) {
		this.server.dispatcher.timelines.put(namespace, timeline);
	}

	/** The test's own client. */
	public KubernetesClient client() {
		return this.client;
	}

	// ---- Pods, as the kubelet keeps them

	/** Creates a running Pod whose {@code Ready} condition is as given. */
	public void createPod(String namespace, String name, boolean ready) {
		Pod pod = new PodBuilder().withNewMetadata()
			.withNamespace(namespace)
			.withName(name)
			.endMetadata()
			.withNewStatus()
			.withPhase("Running")
			.withConditions(readyCondition(ready))
			.endStatus()
			.build();
		this.client.pods().inNamespace(namespace).resource(pod).create();
	}

	/**
	 * Sets the Pod's {@code Ready} condition, through its status subresource, as the kubelet does
	 * when a readiness probe starts or stops passing.
	 */
	public void setPodReady(String namespace, String name, boolean ready) {
		this.client.pods().inNamespace(namespace).withName(name).editStatus((pod) -> {
			List<PodCondition> conditions = new ArrayList<>();
			for (PodCondition condition : pod.getStatus().getConditions()) {
				if (!"Ready".equals(condition.getType())) {
					conditions.add(condition);
				}
			}
			conditions.add(readyCondition(ready));
			return new PodBuilder(pod).editStatus().withConditions(conditions).endStatus().build();
		});
	}

	/** Deletes the Pod, as when its node is gone; a no-op if it does not exist. */
	public void deletePod(String namespace, String name) {
		this.client.pods().inNamespace(namespace).withName(name).delete();
	}

	/** Whether the Pod exists and is Ready, as fabric8's {@code Readiness} tells it. */
	public boolean isPodReady(String namespace, String name) {
		Pod pod = this.client.pods().inNamespace(namespace).withName(name).get();
		return pod != null && Readiness.isPodReady(pod);
	}

	private static PodCondition readyCondition(boolean ready) {
		return new PodConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False").build();
	}

	// ---- the old protocol's ConfigMap

	/** The ConfigMap, or {@code null} if there is none. */
	public ConfigMap configMap(String namespace, String name) {
		return this.client.configMaps().inNamespace(namespace).withName(name).get();
	}

	/**
	 * The value of the ConfigMap's data key, or {@code null} if there is no ConfigMap or no such
	 * key.
	 */
	public String configMapValue(String namespace, String name, String key) {
		ConfigMap configMap = configMap(namespace, name);
		if (configMap == null || configMap.getData() == null) {
			return null;
		}
		return configMap.getData().get(key);
	}

	private static java.util.logging.Logger quiet(String name) {
		java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
		logger.setLevel(java.util.logging.Level.WARNING);
		return logger;
	}

	@Override
	public void afterAll(ExtensionContext context) {
		close();
	}

	@Override
	public void close() {
		this.client.close();
		this.server.destroy();
	}

	private static final class Server extends KubernetesMockServer {

		private final RecordingDispatcher dispatcher;

		Server() {
			this(new RecordingDispatcher());
		}

		private Server(RecordingDispatcher dispatcher) {
			super(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
			this.dispatcher = dispatcher;
		}

		// HTTP/1.1 only, as the Boot 3.5 line's Vert.x client speaks to plain HTTP: the JDK's
		// client (the Boot 4 line's) would ask for an h2c upgrade, which a real API server, on
		// TLS, never sees.
		@Override
		protected Config initConfig() {
			Config config = super.initConfig();
			config.setHttp2Disable(true);
			return config;
		}

		Config config() {
			return initConfig();
		}

	}

	/** The CRUD dispatcher, telling the timeline of a namespace what it answered. */
	private static final class RecordingDispatcher extends KubernetesCrudDispatcher {

		private final Map<String, RequestTimeline> timelines = new ConcurrentHashMap<>();

		@Override
		public MockResponse dispatch(RecordedRequest request) {
			String method = request.getMethod();
			// read before the dispatcher reads it; getBytes() leaves it to be read
			String body = (("PUT".equals(method) || "POST".equals(method)) && request.getBody() != null)
					? new String(request.getBody().getBytes(), StandardCharsets.UTF_8) : null;
			MockResponse response = super.dispatch(request);
			String path = request.getPath();
			String agent = request.getHeader("User-Agent");
			boolean testsRead = "GET".equals(method) && (agent == null || agent.startsWith("fabric8"));
			if (path == null || path.contains("watch=true") || testsRead) {
				return response;
			}
			int start = path.indexOf("/namespaces/");
			if (start < 0) {
				return response;
			}
			int end = path.indexOf('/', start + "/namespaces/".length());
			String namespace = path.substring(start + "/namespaces/".length(), (end < 0) ? path.length() : end);
			RequestTimeline timeline = this.timelines.get(namespace);
			if (timeline != null) {
				timeline.answered(agent, method, path.substring(start), response.code(), body);
			}
			return response;
		}

	}

	/** For messages: the data of a ConfigMap, or that there is none. */
	static String describe(ConfigMap configMap) {
		if (configMap == null) {
			return "no ConfigMap";
		}
		Map<String, String> data = configMap.getData();
		return "ConfigMap " + configMap.getMetadata().getName() + " v" + configMap.getMetadata().getResourceVersion()
				+ " " + ((data != null) ? data : Map.of());
	}

}
