package io.leaderelection.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * One web application instance with the actuator, on a random port, with its own identity and
 * fabric8 client. Health, info, leader and prometheus are exposed, with health details, and the
 * liveness group includes the {@code leaderElectionLiveness} watchdog.
 */
public final class WebReplica implements AutoCloseable {

	/**
	 * Test timings: lease 4s, renew deadline 3s, retry 500ms. A follower takes a released Lease
	 * within a retry period, and a leader on a busy machine does not lose leadership between two
	 * assertions.
	 */
	public static final Map<String, Object> TIMINGS = Map.of("leader.election.lease-duration", "4s",
			"leader.election.renew-deadline", "3s", "leader.election.retry-period", "500ms");

	private static final ObjectMapper json = new ObjectMapper();

	private final ConfigurableApplicationContext context;

	private final KubernetesClient client;

	private final RestClient http = RestClient.create();

	private final String baseUrl;

	private WebReplica(ConfigurableApplicationContext context, KubernetesClient client) {
		this.context = context;
		this.client = client;
		this.baseUrl = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
	}

	/**
	 * Starts an instance whose elector uses the given client (closed with the instance).
	 * @param properties more properties, overriding the defaults
	 */
	public static WebReplica start(String identity, KubernetesClient client, Map<String, Object> properties) {
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("server.port", "0");
		all.put("leader.election.identity", identity);
		all.putAll(TIMINGS);
		all.put("management.endpoints.web.exposure.include", "health,info,leader,prometheus");
		all.put("management.endpoint.health.show-details", "always");
		all.put("management.endpoint.health.probes.enabled", "true");
		all.put("management.endpoint.health.group.liveness.include", "livenessState,leaderElectionLiveness");
		all.putAll(properties);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(WebReplicaApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties(all)
			.initializers((applicationContext) -> applicationContext.getBeanFactory()
				.registerSingleton("kubernetesClient", client))
			.run();
		return new WebReplica(context, client);
	}

	public LeaderElector elector() {
		return this.context.getBean(LeaderElector.class);
	}

	public <T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	public String identity() {
		return elector().identity();
	}

	public ResponseEntity<String> get(String path) {
		return exchange(HttpMethod.GET, path);
	}

	public ResponseEntity<String> delete(String path) {
		return exchange(HttpMethod.DELETE, path);
	}

	/** The answer whatever its status, as a browser would show it. */
	private ResponseEntity<String> exchange(HttpMethod method, String path) {
		return this.http.method(method)
			.uri(this.baseUrl + path)
			.retrieve()
			.onStatus((status) -> true, (request, response) -> {
			})
			.toEntity(String.class);
	}

	/** The JSON body of a GET, whatever its status. */
	public JsonNode getJson(String path) {
		return parse(get(path).getBody());
	}

	public static JsonNode parse(String body) {
		try {
			return json.readTree(body);
		}
		catch (JsonProcessingException ex) {
			throw new IllegalStateException("Not JSON: " + body, ex);
		}
	}

	@Override
	public void close() {
		this.context.close();
		this.client.close();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class WebReplicaApplication {

	}

}
