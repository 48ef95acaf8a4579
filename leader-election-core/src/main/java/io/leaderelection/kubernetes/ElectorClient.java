package io.leaderelection.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.StandardHttpClientBuilder;

/**
 * A fabric8 client of the elector's own, with what the application set on its own client: its
 * HTTP client factory (JDK, Vert.x, OkHttp, Jetty, or a subclass of one), the interceptors of its
 * HTTP client (fabric8's credential refresh, impersonation and headers, and any the application
 * added), its TLS key and trust managers, TLS versions, proxy and HTTP version. Not its
 * serialization: the elector reads and writes objects exactly as the API server has them.
 * <p>
 * The application's factory builds the HTTP client anew, so its connections are its own. What
 * fabric8 derives with {@code HttpClient.newBuilder()} would not do: it sends on the application's
 * connections (the JDK's {@code java.net.http.HttpClient}, Vert.x's client), and closing the JDK's
 * closes the application's. Nor would a copy of that builder without its client
 * ({@code copy(null)}): with Vert.x it keeps the application's Vert.x instance, and closes it on
 * closing when fabric8 made it.
 */
final class ElectorClient {

	private ElectorClient() {
	}

	/**
	 * @param application the application's client, whose settings are taken over
	 * @param config the elector's configuration: server, credentials, namespace, timeouts, retries
	 */
	static KubernetesClient of(KubernetesClient application, Config config) {
		KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(config);
		// as all of fabric8's own are, a client whose settings can be read; of another, the
		// configuration is all there is to take over
		if (application.getHttpClient().newBuilder() instanceof StandardHttpClientBuilder<?, ?, ?> settings) {
			builder.withHttpClientFactory(settings.getClientFactory())
				.withHttpClientBuilderConsumer((own) -> takeOver(settings, own));
		}
		return builder.build();
	}

	/**
	 * Sets on the elector's builder, made from its configuration, what the application's client was
	 * built with; the request settings (timeouts, retries) stay the elector's.
	 */
	private static void takeOver(StandardHttpClientBuilder<?, ?, ?> application, HttpClient.Builder own) {
		// the same instances: a token refreshed for one client is the other's too
		application.getInterceptors().forEach(own::addOrReplaceInterceptor);
		if (application.getSslContext() != null) {
			own.sslContext(application.getKeyManagers(), application.getTrustManagers());
		}
		if (application.getTlsVersions() != null) {
			own.tlsVersions(application.getTlsVersions());
		}
		own.proxyType(application.getProxyType())
			.proxyAddress(application.getProxyAddress())
			.proxyAuthorization(application.getProxyAuthorization());
		if (application.isPreferHttp11()) {
			own.preferHttp11();
		}
		if (application.isFollowRedirects()) {
			own.followAllRedirects();
		}
		if (application.isAuthenticatorNone()) {
			own.authenticatorNone();
		}
	}

}
