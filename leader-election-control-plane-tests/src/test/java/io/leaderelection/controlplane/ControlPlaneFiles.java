package io.leaderelection.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the control plane's processes share, written once into its directory: the static token of
 * the administrator (group {@code system:masters}, for the harness and kube-controller-manager
 * only; replicas talk as ServiceAccounts), the key that signs and checks ServiceAccount tokens,
 * and the audit policy that logs every request with its answer.
 */
record ControlPlaneFiles(Path directory, String adminToken, Path tokens, Path serviceAccountKey, Path auditPolicy) {

	static ControlPlaneFiles write(Path directory) {
		try {
			Files.createDirectories(directory);
			String adminToken = HexFormat.of().formatHex(randomBytes());
			Path tokens = Files.writeString(directory.resolve("tokens.csv"),
					adminToken + ",control-plane-admin,control-plane-admin,\"system:masters\"\n");
			Path key = Files.writeString(directory.resolve("service-account.key"), newServiceAccountKey());
			// Metadata: who, which verb on which object, and the answer's code, for every request
			Path policy = Files.writeString(directory.resolve("audit-policy.yaml"), """
					apiVersion: audit.k8s.io/v1
					kind: Policy
					omitStages: ["RequestReceived"]
					rules:
					  - level: Metadata
					""");
			return new ControlPlaneFiles(directory, adminToken, tokens, key, policy);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A kubeconfig for the given server and bearer token; the server's own certificate is trusted. */
	static String kubeconfig(String server, String user, String token, String namespace) {
		return """
				apiVersion: v1
				kind: Config
				clusters:
				  - name: control-plane
				    cluster:
				      server: %s
				      insecure-skip-tls-verify: true
				users:
				  - name: %s
				    user:
				      token: %s
				contexts:
				  - name: %s
				    context:
				      cluster: control-plane
				      user: %s
				      namespace: %s
				current-context: %s
				""".formatted(server, user, token, user, user, namespace, user);
	}

	private static byte[] randomBytes() {
		byte[] bytes = new byte[16];
		ThreadLocalRandom.current().nextBytes(bytes);
		return bytes;
	}

	/** An RSA key in PKCS #8 PEM, which the API server reads both to sign tokens and to check them. */
	private static String newServiceAccountKey() {
		try {
			KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
			generator.initialize(2048);
			byte[] encoded = generator.generateKeyPair().getPrivate().getEncoded();
			return "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(encoded)
					+ "\n-----END PRIVATE KEY-----\n";
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
