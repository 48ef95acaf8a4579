package io.leaderelection.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.leaderelection.controlplane.ApiServer;
import io.leaderelection.controlplane.AuditLog;
import io.leaderelection.controlplane.ControlPlane;
import io.leaderelection.controlplane.TestNamespace;
import io.leaderelection.kubernetes.MockApiServer;
import io.leaderelection.kubernetes.MockApiServer.LeaseRequestListener;
import io.leaderelection.kubernetes.MockApiServer.LeaseWriteListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real control plane of the control-plane tests as the API server of a chaos run. The
 * replicas talk to a kube-apiserver of their own on the control plane's etcd, which {@link #stop()}
 * kills and {@link #restart()} starts again, as an API server crashes and comes back (its watches
 * end, its watch cache starts empty); each replica as a ServiceAccount of the namespace
 * {@value ChaosSettings#NAMESPACE} bound to the elector's Role. Foreign writers are
 * ServiceAccounts too, allowed to read, patch and delete Leases, and talk to the control plane's
 * first API server, which stays up, as a controller or {@code kubectl} would.
 * <p>
 * A real API server tells nobody first of what it stores: the run hears of each Lease version
 * through the administrator's watch of the namespace's Leases, in the order etcd stored them,
 * each writer told from the versions ({@link LeaseWriters}); and of requests through the replicas'
 * API server's audit log, followed as it grows, which also keeps every request of theirs refused
 * (403 or 422). It cannot answer in the API server's place ({@link #failing}).
 */
final class ControlPlaneChaosServer implements ChaosServer {

	private static final Logger logger = LoggerFactory.getLogger(ControlPlaneChaosServer.class);

	/** How often the replicas' audit log is read for what was written since. */
	private static final Duration AUDIT_LOG_POLL = Duration.ofMillis(10);

	/** What a foreign writer does to Leases: deletions, edits of metadata and of preferredHolder. */
	private static final List<PolicyRule> FOREIGN_WRITER_RULES = List.of(new PolicyRuleBuilder()
		.withApiGroups("coordination.k8s.io")
		.withResources("leases")
		.withVerbs("get", "patch", "delete")
		.build());

	/** Numbers the runs of this JVM, whose ServiceAccounts share the namespace. */
	private static final AtomicInteger RUNS = new AtomicInteger();

	private final ControlPlane controlPlane;

	private final TestNamespace namespace;

	private final List<PolicyRule> rules;

	/** Begins the names of this run's ServiceAccounts, e.g. {@code run1-}. */
	private final String accounts;

	/** Begins the user names of this run's replicas, as the audit log has them. */
	private final String replicaUsers;

	private final ApiServer replicasServer;

	/** The tokens of the replicas' ServiceAccounts, by client name. */
	private final Map<String, String> tokens = new ConcurrentHashMap<>();

	/** The tokens of the foreign writers' ServiceAccounts, by client name. */
	private final Map<String, String> foreignTokens = new ConcurrentHashMap<>();

	private final LeaseWriters writers = new LeaseWriters();

	private final List<AuditLog.Request> refused = new CopyOnWriteArrayList<>();

	/**
	 * When the replicas' API server was starting again, from its kill to its first ready answer:
	 * it serves requests before its caches are filled, and RBAC then refuses what the Roles allow.
	 */
	private final List<Instant[]> starts = new CopyOnWriteArrayList<>();

	private volatile Instant killedAt;

	private final Thread auditLogReader;

	private volatile LeaseRequestListener requestListener;

	private volatile boolean open = true;

	private Watch leaseWatch;

	private ControlPlaneChaosServer(List<PolicyRule> rules) {
		this.controlPlane = ControlPlane.shared();
		this.namespace = TestNamespace.named(this.controlPlane, ChaosSettings.NAMESPACE);
		this.rules = rules;
		int run = RUNS.incrementAndGet();
		this.accounts = "run" + run + "-";
		this.replicaUsers = "system:serviceaccount:" + ChaosSettings.NAMESPACE + ":" + this.accounts;
		// what an earlier run left; none of its replicas runs any more
		leases().delete();
		this.replicasServer = this.controlPlane.startApiServer("chaos-run" + run);
		long mark = this.replicasServer.auditLog().mark();
		this.auditLogReader = new Thread(() -> follow(mark), "chaos-audit-log");
		this.auditLogReader.setDaemon(true);
		this.auditLogReader.start();
	}

	/** Starts a server whose replicas are granted the given rules. */
	static ControlPlaneChaosServer start(List<PolicyRule> rules) {
		return new ControlPlaneChaosServer(rules);
	}

	@Override
	public int port() {
		return this.replicasServer.port();
	}

	/** HTTPS to the port as the client's own ServiceAccount, made on first use; the server's certificate trusted. */
	@Override
	public ConfigBuilder config(int port, String clientName) {
		String token = this.tokens.computeIfAbsent(clientName,
				(name) -> this.namespace.serviceAccount(this.accounts + name, this.rules).token());
		return https(port, token);
	}

	/** A foreign writer as its own ServiceAccount, made on first use, talking to the first API server. */
	@Override
	public KubernetesClient client(String clientName) {
		String token = this.foreignTokens.computeIfAbsent(clientName,
				(name) -> this.namespace.serviceAccount(this.accounts + name, FOREIGN_WRITER_RULES).token());
		return new KubernetesClientBuilder()
			.withConfig(https(this.controlPlane.apiServer().port(), token).withNamespace(ChaosSettings.NAMESPACE).build())
			.build();
	}

	/**
	 * HTTPS to a loopback port with a bearer token, the server's own certificate trusted, and the
	 * connection timeout the mock's clients have ({@link MockApiServer#clientConfig}).
	 */
	private static ConfigBuilder https(int port, String token) {
		return new ConfigBuilder().withMasterUrl("https://127.0.0.1:" + port)
			.withOauthToken(token)
			.withTrustCerts(true)
			.withDisableHostnameVerification(true)
			.withConnectionTimeout(500);
	}

	/**
	 * Watches the namespace's Leases from now on as the administrator, telling the listener of
	 * each version, or deletion, and of its writer as {@link LeaseWriters} tells it.
	 */
	@Override
	public synchronized void onLeaseWritten(LeaseWriteListener listener) {
		String from = leases().list().getMetadata().getResourceVersion();
		this.leaseWatch = leases().withResourceVersion(from).watch(new Watcher<Lease>() {

			@Override
			public void eventReceived(Action action, Lease lease) {
				if (action == Action.BOOKMARK || action == Action.ERROR) {
					return;
				}
				String name = lease.getMetadata().getName();
				Lease stored = (action == Action.DELETED) ? null : lease;
				listener.written(name, ControlPlaneChaosServer.this.writers.writerOf(name, stored), stored);
			}

			@Override
			public void onClose(WatcherException cause) {
				logger.error("The watch of the Leases ended, the run hears of no more versions: {}", cause.toString());
			}

		});
	}

	@Override
	public void onLeaseRequest(LeaseRequestListener listener) {
		this.requestListener = listener;
	}

	/** Kills the replicas' API server. */
	@Override
	public void stop() {
		this.killedAt = Instant.now();
		this.replicasServer.kill();
	}

	/** Starts the replicas' API server again, and returns once it answers ready. */
	@Override
	public void restart() {
		this.replicasServer.start();
		this.starts.add(new Instant[] { this.killedAt, Instant.now() });
	}

	@Override
	public Runnable failing(String clientName) {
		throw new UnsupportedOperationException("A real API server answers with its own logic");
	}

	/**
	 * Every request of a replica the API server refused (403 or 422), but those it answered while
	 * it was starting again ({@link #refusedWhileStarting()}).
	 */
	List<AuditLog.Request> refused() {
		return this.refused.stream().filter((request) -> !whileStarting(request)).toList();
	}

	/**
	 * The requests of replicas the API server refused (403 or 422) while it was starting again,
	 * after a kill, before it answered ready.
	 */
	List<AuditLog.Request> refusedWhileStarting() {
		return this.refused.stream().filter(this::whileStarting).toList();
	}

	private boolean whileStarting(AuditLog.Request request) {
		return request.at() != null && this.starts.stream()
			.anyMatch((start) -> !request.at().isBefore(start[0]) && !request.at().isAfter(start[1]));
	}

	@Override
	public synchronized void close() {
		this.open = false;
		this.auditLogReader.interrupt();
		try {
			this.auditLogReader.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (this.leaseWatch != null) {
			this.leaseWatch.close();
		}
		this.controlPlane.stopApiServer(this.replicasServer);
		leases().delete();
	}

	private NonNamespaceOperation<Lease, LeaseList, Resource<Lease>> leases() {
		return this.controlPlane.admin().leases().inNamespace(ChaosSettings.NAMESPACE);
	}

	/** Follows the replicas' audit log until closed, then reads it once more to its end. */
	private void follow(long from) {
		AuditLog log = this.replicasServer.auditLog();
		long mark = from;
		while (this.open) {
			mark = log.read(mark, this::answered);
			try {
				Thread.sleep(AUDIT_LOG_POLL.toMillis());
			}
			catch (InterruptedException ex) {
				break;
			}
		}
		log.read(mark, this::answered);
	}

	/**
	 * A request of a replica, answered: kept if refused; told to the listener if it was about a
	 * Lease, a watch as it began.
	 */
	private void answered(AuditLog.Request request) {
		if (!request.user().startsWith(this.replicaUsers)) {
			return;
		}
		if (request.completed() && request.refused()) {
			this.refused.add(request);
		}
		boolean watch = "watch".equals(request.verb());
		LeaseRequestListener listener = this.requestListener;
		if (listener != null && "leases.coordination.k8s.io".equals(request.resource()) && !request.name().isEmpty()
				&& (watch ? !request.completed() : request.completed())) {
			listener.requested(request.name(), request.user().substring(this.replicaUsers.length()),
					asked(request.verb()), request.code());
		}
	}

	/** A verb as the mock tells the request: its HTTP method, or {@code watch}. */
	private static String asked(String verb) {
		return switch (verb) {
			case "get", "list" -> "GET";
			case "update" -> "PUT";
			case "patch" -> "PATCH";
			case "create" -> "POST";
			case "delete" -> "DELETE";
			default -> verb;
		};
	}

}
