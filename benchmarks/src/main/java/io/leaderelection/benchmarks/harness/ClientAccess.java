package io.leaderelection.benchmarks.harness;

import java.util.Map;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;

/**
 * How one client reaches a {@link BenchmarkServer}: its URL, the namespace its Leases are in,
 * and what identifies the client there, a header naming it (the mock server) or a bearer token
 * of its own ServiceAccount (the real control plane, on loopback, whose certificate it trusts).
 *
 * @param bearerToken {@code null} for a server without authentication
 */
public record ClientAccess(String masterUrl, String namespace, Map<String, String> headers, String bearerToken) {

	/** A fabric8 client configuration with fabric8's defaults otherwise. */
	public Config config() {
		ConfigBuilder config = new ConfigBuilder().withMasterUrl(this.masterUrl)
			.withNamespace(this.namespace)
			.withCustomHeaders(this.headers);
		if (this.bearerToken != null) {
			config.withOauthToken(this.bearerToken).withTrustCerts(true).withDisableHostnameVerification(true);
		}
		return config.build();
	}

}
