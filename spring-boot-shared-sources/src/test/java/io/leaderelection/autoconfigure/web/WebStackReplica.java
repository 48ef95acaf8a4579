package io.leaderelection.autoconfigure.web;

import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * One web application instance on a real web server on a random port, Spring MVC on Tomcat or
 * Spring WebFlux (on Tomcat too: the test class path has no Reactor Netty), with its own identity
 * and fabric8 client, and the controllers it is given.
 */
public final class WebStackReplica implements AutoCloseable {

	/**
	 * Test timings: lease 10s, renew deadline 8s, retry 500ms. Handovers here are step-downs, which
	 * take a retry period at most; a long renew deadline keeps a leader on a busy machine (two
	 * web servers per test) from losing its gate between two requests.
	 */
	public static final Map<String, Object> TIMINGS = Map.of("leader.election.lease-duration", "10s",
			"leader.election.renew-deadline", "8s", "leader.election.retry-period", "500ms");

	private final ConfigurableApplicationContext context;

	private final KubernetesClient client;

	private final RestClient http = RestClient.create();

	private final String baseUrl;

	private WebStackReplica(ConfigurableApplicationContext context, KubernetesClient client) {
		this.context = context;
		this.client = client;
		this.baseUrl = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
	}

	public static WebStackReplica start(WebApplicationType stack, String identity, KubernetesClient client,
			Map<String, Object> properties, Class<?>... components) {
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("server.port", "0");
		all.put("leader.election.identity", identity);
		all.putAll(TIMINGS);
		all.putAll(properties);
		Class<?>[] sources = new Class<?>[components.length + 1];
		sources[0] = WebStackApplication.class;
		System.arraycopy(components, 0, sources, 1, components.length);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(sources).web(stack)
			.properties(all)
			.initializers((applicationContext) -> applicationContext.getBeanFactory()
				.registerSingleton("kubernetesClient", client))
			.run();
		return new WebStackReplica(context, client);
	}

	public LeaderElector elector() {
		return this.context.getBean(LeaderElector.class);
	}

	public <T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	public int port() {
		return Integer.parseInt(this.context.getEnvironment().getProperty("local.server.port"));
	}

	/** The answer whatever its status. */
	public ResponseEntity<String> get(String path) {
		return this.http.get()
			.uri(this.baseUrl + path)
			.retrieve()
			.onStatus((status) -> true, (request, response) -> {
			})
			.toEntity(String.class);
	}

	@Override
	public void close() {
		this.context.close();
		this.client.close();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class WebStackApplication {

	}

}
