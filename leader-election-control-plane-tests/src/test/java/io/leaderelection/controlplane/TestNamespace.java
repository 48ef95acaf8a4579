package io.leaderelection.controlplane;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A namespace of one test on the control plane, and the ServiceAccounts its replicas talk as, each
 * bound to exactly the rules the test gives it (those the docs give for the features it uses:
 * {@link DocumentedRoles}). Every request a ServiceAccount of the namespace sent, to any API
 * server of the control plane, is in their audit logs: {@link #assertNothingRefused()} fails
 * with each one answered 403 or 422.
 */
public final class TestNamespace implements AutoCloseable {

	static final String CREATED_BY_LABEL = "app.kubernetes.io/created-by";

	private final ControlPlane controlPlane;

	private final String name;

	private final List<ApiServer> servers = new ArrayList<>();

	private TestNamespace(ControlPlane controlPlane, String name) {
		this.controlPlane = controlPlane;
		this.name = name;
		this.servers.add(controlPlane.apiServer());
	}

	static TestNamespace create(ControlPlane controlPlane, String prefix) {
		String name = prefix + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6);
		createNamespace(controlPlane, name);
		return new TestNamespace(controlPlane, name);
	}

	/**
	 * The namespace of exactly the given name, created if missing, for a harness whose names are
	 * fixed (the chaos suite's Leases are in {@code chaos}). Without the namespace controller a
	 * namespace deleted stays terminating for good: such a harness keeps it for the JVM's life and
	 * does not {@link #close()} it.
	 */
	public static TestNamespace named(ControlPlane controlPlane, String name) {
		if (controlPlane.admin().namespaces().withName(name).get() == null) {
			createNamespace(controlPlane, name);
		}
		return new TestNamespace(controlPlane, name);
	}

	private static void createNamespace(ControlPlane controlPlane, String name) {
		controlPlane.admin()
			.namespaces()
			.resource(new NamespaceBuilder().withNewMetadata()
				.withName(name)
				.addToLabels(CREATED_BY_LABEL, "leader-election-control-plane-tests")
				.endMetadata()
				.build())
			.create();
	}

	public String name() {
		return this.name;
	}

	ControlPlane controlPlane() {
		return this.controlPlane;
	}

	/**
	 * Creates a ServiceAccount and a Role with exactly the given rules, bound to it.
	 */
	public ServiceAccount serviceAccount(String account, List<PolicyRule> rules) {
		KubernetesClient admin = this.controlPlane.admin();
		admin.serviceAccounts()
			.inNamespace(this.name)
			.resource(new ServiceAccountBuilder().withNewMetadata().withName(account).endMetadata().build())
			.create();
		admin.rbac()
			.roles()
			.inNamespace(this.name)
			.resource(new RoleBuilder().withNewMetadata().withName(account).endMetadata().withRules(rules).build())
			.create();
		admin.rbac()
			.roleBindings()
			.inNamespace(this.name)
			.resource(new RoleBindingBuilder().withNewMetadata()
				.withName(account)
				.endMetadata()
				.withNewRoleRef("rbac.authorization.k8s.io", "Role", account)
				.addNewSubject()
				.withKind("ServiceAccount")
				.withName(account)
				.withNamespace(this.name)
				.endSubject()
				.build())
			.create();
		return new ServiceAccount(account, token(account));
	}

	/** A token of the ServiceAccount, as the kubelet projects one into a Pod, valid for an hour. */
	String token(String account) {
		TokenRequest request = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build();
		return this.controlPlane.admin()
			.serviceAccounts()
			.inNamespace(this.name)
			.withName(account)
			.tokenRequest(request)
			.getStatus()
			.getToken();
	}

	/** Counts an API server the test started in the checks of what it refused. */
	void alsoServedBy(ApiServer server) {
		this.servers.add(server);
	}

	/** Every request of a ServiceAccount of this namespace that an API server refused (403 or 422). */
	List<AuditLog.Request> refused() {
		String users = "system:serviceaccount:" + this.name + ":";
		return this.servers.stream()
			.flatMap((server) -> server.auditLog()
				.since(0, (request) -> request.user().startsWith(users) && request.refused())
				.stream())
			.toList();
	}

	/** Every request of a ServiceAccount of this namespace answered by the given server since the mark. */
	List<AuditLog.Request> requests(ApiServer server, long mark) {
		String users = "system:serviceaccount:" + this.name + ":";
		return server.auditLog().since(mark, (request) -> request.user().startsWith(users));
	}

	/** Fails with each request of this namespace's ServiceAccounts that was refused, with its verb and resource. */
	void assertNothingRefused() {
		assertThat(refused()).as("requests of the replicas in %s that the API server refused", this.name).isEmpty();
	}

	@Override
	public void close() {
		this.controlPlane.admin().namespaces().withName(this.name).delete();
	}

	/** A ServiceAccount of the namespace, bound to its Role, and a token of it. */
	public final class ServiceAccount {

		private final String account;

		private final String token;

		private ServiceAccount(String account, String token) {
			this.account = account;
			this.token = token;
		}

		String name() {
			return this.account;
		}

		/** The user name the API server knows it by. */
		String user() {
			return "system:serviceaccount:" + TestNamespace.this.name + ":" + this.account;
		}

		public String token() {
			return this.token;
		}

		/** A client configuration as this ServiceAccount, for the given API server, in the namespace. */
		Config config(ApiServer server) {
			return ControlPlane.clientConfig(server, this.token, TestNamespace.this.name);
		}

		/** A client as this ServiceAccount of the control plane's first API server. */
		KubernetesClient client() {
			return client(TestNamespace.this.controlPlane.apiServer());
		}

		KubernetesClient client(ApiServer server) {
			return new KubernetesClientBuilder().withConfig(config(server)).build();
		}

	}

}
