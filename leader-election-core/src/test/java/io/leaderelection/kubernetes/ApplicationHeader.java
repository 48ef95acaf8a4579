package io.leaderelection.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * A header an application sets on every request of its client, by an interceptor it adds on the
 * builder of the client's HTTP client: what the elector's own client must keep.
 */
record ApplicationHeader(String name, String value) implements Interceptor {

	@Override
	public void before(BasicBuilder request, HttpRequest sent, RequestTags tags) {
		request.header(this.name, this.value);
	}

	/** Adds the interceptor on the client's builder, as the application does. */
	void addTo(KubernetesClientBuilder client) {
		client.withHttpClientBuilderConsumer((http) -> http.addOrReplaceInterceptor("application-header", this));
	}

}
