package io.leaderelection.autoconfigure;

import java.net.InetAddress;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * fabric8's Kubernetes mock server in CRUD mode on the loopback address: it stores Leases,
 * bumps resourceVersion and answers stale updates with 409, like an API server. A test class
 * may hold one in a static {@code @RegisterExtension} field, which stops it after the class's
 * tests.
 */
public final class CrudKubernetesServer implements AutoCloseable, AfterAllCallback {

	private final KubernetesMockServer server;

	/** A client for the test's own reads; never handed to an application context. */
	private final KubernetesClient client;

	private CrudKubernetesServer() {
		this.server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
				new KubernetesCrudDispatcher(), false) {

			// HTTP/1.1 only, as the Boot 3.5 line's Vert.x client speaks to plain HTTP: the JDK's
			// client (the Boot 4 line's) would ask for an h2c upgrade, which a real API server, on
			// TLS, never sees.
			@Override
			protected Config initConfig() {
				Config config = super.initConfig();
				config.setHttp2Disable(true);
				return config;
			}

		};
		this.server.init(InetAddress.getLoopbackAddress(), 0);
		this.client = this.server.createClient();
	}

	public static CrudKubernetesServer start() {
		return new CrudKubernetesServer();
	}

	/**
	 * A new client on this server, for one application context: a context closes the
	 * {@code KubernetesClient} bean it was given, so clients are not shared between contexts.
	 */
	public KubernetesClient newClient() {
		return this.server.createClient();
	}

	/**
	 * A new client as {@link #newClient()} makes, that reaches this server through the TCP proxy
	 * listening on the given loopback port.
	 */
	public KubernetesClient newClientThrough(int proxyPort) {
		return new KubernetesClientBuilder().withConfig(new ConfigBuilder(this.client.getConfiguration())
			.withMasterUrl("http://127.0.0.1:" + proxyPort + "/")
			.build()).build();
	}

	/** The loopback port the server listens on. */
	public int port() {
		return this.server.getPort();
	}

	/** The URL of the server, for fabric8's {@code kubernetes.master} system property. */
	String url() {
		return this.server.url("/");
	}

	/** The namespace of the clients this server creates. */
	String clientNamespace() {
		return this.client.getNamespace();
	}

	public Lease lease(String namespace, String name) {
		return this.client.leases().inNamespace(namespace).withName(name).get();
	}

	/** Creates the Lease as another candidate or a user would. */
	public void create(Lease lease) {
		this.client.resource(lease).create();
	}

	/**
	 * Creates the Lease as a holder leaves it when it releases it: no holder, a lease duration of
	 * one second. A candidate that never saw it held claims it once it stayed unchanged for a lease
	 * duration, as any other version.
	 */
	public void createReleased(String namespace, String name) {
		createHeld(namespace, name, "", 1);
	}

	/**
	 * Writes the Lease as its holder does when it releases it: no holder, renewed now. A
	 * candidate that saw it held claims it at once.
	 */
	public void release(String namespace, String name) {
		this.client.leases()
			.inNamespace(namespace)
			.withName(name)
			.edit((lease) -> new LeaseBuilder(lease).editSpec()
				.withHolderIdentity("")
				.withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
				.withLeaseDurationSeconds(1)
				.endSpec()
				.build());
	}

	/** Creates the Lease as its holder writes it when it acquires it, renewed now. */
	public void createHeld(String namespace, String name, String holderIdentity, int leaseDurationSeconds) {
		ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
		create(new LeaseBuilder().withNewMetadata()
			.withNamespace(namespace)
			.withName(name)
			.endMetadata()
			.withNewSpec()
			.withHolderIdentity(holderIdentity)
			.withLeaseDurationSeconds(leaseDurationSeconds)
			.withAcquireTime(now)
			.withRenewTime(now)
			.withLeaseTransitions(0)
			.endSpec()
			.build());
	}

	/** Creates a running Pod, as the one a replica runs in; returns its uid. */
	public String runPod(String namespace, String name) {
		return createRunningPod(namespace, name);
	}

	/**
	 * Creates a Pod with one container, reported running by the kubelet at restartCount 0, as the
	 * one a replica runs in; returns its uid.
	 */
	public String runContainer(String namespace, String name, String container) {
		return this.client.pods()
			.inNamespace(namespace)
			.resource(new PodBuilder().withNewMetadata()
				.withNamespace(namespace)
				.withName(name)
				.endMetadata()
				.withNewSpec()
				.addNewContainer()
				.withName(container)
				.withImage("orders")
				.endContainer()
				.endSpec()
				.withNewStatus()
				.withPhase("Running")
				.addNewContainerStatus()
				.withName(container)
				.withRestartCount(0)
				.withNewState()
				.withNewRunning()
				.withStartedAt(java.time.Instant.now().toString())
				.endRunning()
				.endState()
				.endContainerStatus()
				.endStatus()
				.build())
			.create()
			.getMetadata()
			.getUid();
	}

	/**
	 * Creates a running Pod whose {@code Ready} condition is true, as the kubelet reports one
	 * that passes its readiness probe; returns its uid.
	 */
	public String runReadyPod(String namespace, String name) {
		return createRunningPod(namespace, name, new PodConditionBuilder().withType("Ready").withStatus("True").build());
	}

	private String createRunningPod(String namespace, String name, PodCondition... conditions) {
		return this.client.pods()
			.inNamespace(namespace)
			.resource(new PodBuilder().withNewMetadata()
				.withNamespace(namespace)
				.withName(name)
				.endMetadata()
				.withNewStatus()
				.withPhase("Running")
				.withConditions(conditions)
				.endStatus()
				.build())
			.create()
			.getMetadata()
			.getUid();
	}

	/** The data of the ConfigMap, or {@code null} when there is none. */
	public Map<String, String> configMapData(String namespace, String name) {
		ConfigMap configMap = this.client.configMaps().inNamespace(namespace).withName(name).get();
		return (configMap != null) ? configMap.getData() : null;
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

}
