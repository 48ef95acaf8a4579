package io.leaderelection.controlplane;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * One kube-apiserver in front of the control plane's etcd, on a loopback port of its own, with its
 * own watch cache and audit log. Several can serve one etcd, as in a highly available control
 * plane; each can be killed and started again, which ends every watch it served and empties its
 * watch cache.
 */
public final class ApiServer {

	private final String name;

	private final int port = ServerProcess.freePort();

	private final AuditLog auditLog;

	private final ServerProcess process;

	private final HttpClient http = HttpClient.newBuilder()
		.sslContext(trustingEveryCertificate())
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private final String adminToken;

	ApiServer(String name, KubeBinaries binaries, Etcd etcd, ControlPlaneFiles files, List<String> extraFlags) {
		this(name, binaries, etcd.url(), files, extraFlags);
	}

	/** An API server that reaches etcd at the given address (a proxy in front of it, say). */
	ApiServer(String name, KubeBinaries binaries, String etcdUrl, ControlPlaneFiles files, List<String> extraFlags) {
		this.name = name;
		this.adminToken = files.adminToken();
		Path directory = files.directory().resolve(name);
		this.auditLog = new AuditLog(directory.resolve("audit.log"));
		List<String> command = new ArrayList<>(List.of(binaries.kubeApiServer().toString(),
				"--etcd-servers=" + etcdUrl, "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
				"--secure-port=" + this.port, "--cert-dir=" + directory.resolve("certificates"),
				"--token-auth-file=" + files.tokens(), "--authorization-mode=RBAC",
				"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
				"--service-account-key-file=" + files.serviceAccountKey(),
				"--service-account-signing-key-file=" + files.serviceAccountKey(),
				"--service-cluster-ip-range=10.96.0.0/16", "--audit-policy-file=" + files.auditPolicy(),
				"--audit-log-path=" + this.auditLog.file(), "--audit-log-maxbackup=0", "--profiling=false",
				// a loopback address cannot be the kubernetes Service's endpoint, and nothing here needs it
				"--endpoint-reconciler-type=none"));
		command.addAll(extraFlags);
		this.process = new ServerProcess(name, command, directory.resolve(name + ".log"), this::ready);
	}

	public ApiServer start() {
		this.process.start();
		return this;
	}

	/** Kills the server, as a crash would; every watch it served ends, its connections reset. */
	public void kill() {
		this.process.kill();
	}

	/** Kills the server and starts it again on the same port and etcd, with an empty watch cache. */
	void restart() {
		kill();
		start();
	}

	String name() {
		return this.name;
	}

	public int port() {
		return this.port;
	}

	String url() {
		return "https://127.0.0.1:" + this.port;
	}

	public AuditLog auditLog() {
		return this.auditLog;
	}

	private boolean ready() {
		try {
			HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(url() + "/readyz"))
				.header("Authorization", "Bearer " + this.adminToken)
				.timeout(Duration.ofSeconds(5))
				.build(), HttpResponse.BodyHandlers.ofString());
			return response.statusCode() == 200;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** The API server serves a certificate it signed itself; this harness trusts it, as kubeconfigs here do. */
	private static SSLContext trustingEveryCertificate() {
		try {
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, new TrustManager[] { new TrustingEveryCertificate() }, null);
			return context;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public String toString() {
		return this.name + " " + url();
	}

	private static final class TrustingEveryCertificate extends X509ExtendedTrustManager {

		@Override
		public void checkClientTrusted(X509Certificate[] chain, String authType) {
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType) {
		}

		@Override
		public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
		}

		@Override
		public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
		}

		@Override
		public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
		}

		@Override
		public X509Certificate[] getAcceptedIssuers() {
			return new X509Certificate[0];
		}

	}

}
