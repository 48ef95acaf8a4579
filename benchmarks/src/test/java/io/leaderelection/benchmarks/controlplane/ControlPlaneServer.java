package io.leaderelection.benchmarks.controlplane;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.leaderelection.benchmarks.harness.ApiServer;
import io.leaderelection.benchmarks.harness.BenchmarkServer;
import io.leaderelection.benchmarks.harness.ClientAccess;
import io.leaderelection.controlplane.AuditLog;
import io.leaderelection.controlplane.ControlPlane;
import io.leaderelection.controlplane.TestNamespace;

/**
 * The real control plane of the control-plane tests (etcd, kube-apiserver, the garbage collector)
 * as the server of one implementation's benchmarks: a namespace of its own, each client a
 * ServiceAccount of it bound to a Role of the given rules, over HTTPS. Its requests are counted
 * from the API server's audit log by ServiceAccount, as the mock server counts them by header: a
 * thread follows the log as it grows. It keeps every request of its clients the server refused
 * (403 or 422).
 */
final class ControlPlaneServer implements BenchmarkServer, AutoCloseable {

	/** How often the audit log is read for what was written since. */
	private static final Duration AUDIT_LOG_POLL = Duration.ofMillis(10);

	private final ControlPlane controlPlane;

	private final TestNamespace namespace;

	private final List<PolicyRule> rules;

	private final String users;

	private final Map<String, TestNamespace.ServiceAccount> accounts = new ConcurrentHashMap<>();

	private final Map<String, ApiServer.Counts> counts = new ConcurrentHashMap<>();

	private final List<AuditLog.Request> refused = new CopyOnWriteArrayList<>();

	private final Thread auditLogReader;

	private volatile boolean open = true;

	/**
	 * @param namespacePrefix begins the name of its namespace
	 * @param rules what each client's Role grants
	 */
	ControlPlaneServer(ControlPlane controlPlane, String namespacePrefix, List<PolicyRule> rules) {
		this.controlPlane = controlPlane;
		this.namespace = controlPlane.namespace(namespacePrefix);
		this.rules = rules;
		this.users = "system:serviceaccount:" + this.namespace.name() + ":";
		long mark = controlPlane.apiServer().auditLog().mark();
		this.auditLogReader = new Thread(() -> follow(mark), "audit-log-" + this.namespace.name());
		this.auditLogReader.setDaemon(true);
		this.auditLogReader.start();
	}

	@Override
	public int port() {
		return this.controlPlane.apiServer().port();
	}

	/** The client's own ServiceAccount, made on first use; the server's certificate trusted. */
	@Override
	public ClientAccess access(String client, int port) {
		TestNamespace.ServiceAccount account = this.accounts.computeIfAbsent(client,
				(name) -> this.namespace.serviceAccount(name, this.rules));
		return new ClientAccess("https://127.0.0.1:" + port, this.namespace.name(), Map.of(), account.token());
	}

	@Override
	public ApiServer.Counts counts(String client) {
		return this.counts.computeIfAbsent(client, (name) -> new ApiServer.Counts());
	}

	/** The namespace its Leases and ServiceAccounts are in. */
	String namespace() {
		return this.namespace.name();
	}

	/** Every request of its clients the API server refused (403 or 422) so far. */
	List<AuditLog.Request> refused() {
		return List.copyOf(this.refused);
	}

	private void follow(long from) {
		AuditLog log = this.controlPlane.apiServer().auditLog();
		long mark = from;
		while (this.open) {
			mark = log.read(mark, this::count);
			try {
				Thread.sleep(AUDIT_LOG_POLL.toMillis());
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/**
	 * Counts a request of one of its clients as the mock server counts it: once, as it is
	 * answered, or, for a watch, as it begins (the log has it again when it ends).
	 */
	private void count(AuditLog.Request request) {
		if (!request.user().startsWith(this.users)) {
			return;
		}
		boolean watch = "watch".equals(request.verb());
		boolean counted = watch ? !request.completed() || request.code() != 200 : request.completed();
		if (counted) {
			counts(request.user().substring(this.users.length())).add(kind(request.verb()));
		}
		if (request.completed() && request.refused()) {
			this.refused.add(request);
		}
	}

	private static ApiServer.Kind kind(String verb) {
		return switch (verb) {
			case "get", "list" -> ApiServer.Kind.GET;
			case "watch" -> ApiServer.Kind.WATCH;
			case "update" -> ApiServer.Kind.PUT;
			case "patch" -> ApiServer.Kind.PATCH;
			case "create" -> ApiServer.Kind.POST;
			default -> ApiServer.Kind.OTHER;
		};
	}

	@Override
	public void close() {
		this.open = false;
		this.auditLogReader.interrupt();
		this.namespace.close();
	}

}
