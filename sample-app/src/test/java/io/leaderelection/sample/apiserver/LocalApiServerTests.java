package io.leaderelection.sample.apiserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupList;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.APIVersions;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The local API server answers what {@code kubectl} asks a real API server: discovery, Tables,
 * lists of the resource's kind, Events selected by their involved object, a Status for a missing
 * object, and watches over plain HTTP; and fabric8's clients still watch over WebSockets. The
 * requests carry the headers {@code kubectl} 1.32 sends.
 */
@ExtendWith(OutputCaptureExtension.class)
class LocalApiServerTests {

	/** The Accept header of kubectl's discovery: aggregated discovery first, plain JSON last. */
	private static final String DISCOVERY_ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
			+ "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

	/** The Accept header of {@code kubectl get}: a Table, else plain JSON. */
	private static final String TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,"
			+ "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

	private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

	private static final String EVENTS = "/api/v1/namespaces/default/events";

	/** Stands for an age of seconds in {@link #cells(JsonNode)}. */
	private static final String AGE = "(seconds)";

	private static final KubernetesSerialization serialization = new KubernetesSerialization();

	private static final ObjectMapper json = new ObjectMapper();

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private LocalApiServer server;

	private KubernetesClient client;

	@BeforeEach
	void startServer() throws BindException {
		this.server = LocalApiServer.start(0);
		this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
			.withMasterUrl("http://127.0.0.1:" + this.server.port())
			.withNamespace("default")
			.withHttp2Disable(true)
			.build()).build();
	}

	@AfterEach
	void stopServer() {
		this.client.close();
		this.server.close();
	}

	@Test
	void discoveryListsTheResourcesTheStarterUses() throws Exception {
		HttpResponse<String> api = get("/api", DISCOVERY_ACCEPT);
		// plain JSON: a client that asked for aggregated discovery reads the legacy documents
		assertThat(api.headers().firstValue("Content-Type")).hasValue("application/json");
		assertThat(serialization.unmarshal(api.body(), APIVersions.class).getVersions()).containsExactly("v1");
		APIGroupList groups = serialization.unmarshal(get("/apis", DISCOVERY_ACCEPT).body(), APIGroupList.class);
		assertThat(groups.getGroups()).extracting(APIGroup::getName)
			.containsExactly("coordination.k8s.io", "discovery.k8s.io");
		assertThat(groups.getGroups()).allSatisfy((group) -> {
			assertThat(group.getPreferredVersion().getGroupVersion()).isEqualTo(group.getName() + "/v1");
			assertThat(serialization.unmarshal(get("/apis/" + group.getName(), "application/json").body(),
					APIGroup.class)).isEqualTo(group);
		});

		assertThat(resources("/api/v1")).extracting(APIResource::getName, APIResource::getKind)
			.containsExactly(tuple("events", "Event"), tuple("pods", "Pod"));
		assertThat(resources("/api/v1")).extracting(APIResource::getShortNames)
			.containsExactly(List.of("ev"), List.of("po"));
		List<APIResource> leases = resources("/apis/coordination.k8s.io/v1");
		assertThat(leases).singleElement().satisfies((lease) -> {
			assertThat(lease.getName()).isEqualTo("leases");
			assertThat(lease.getSingularName()).isEqualTo("lease");
			assertThat(lease.getKind()).isEqualTo("Lease");
			assertThat(lease.getNamespaced()).isTrue();
			assertThat(lease.getVerbs()).contains("get", "list", "watch", "create", "update", "patch", "delete");
		});
		assertThat(resources("/apis/discovery.k8s.io/v1")).extracting(APIResource::getName)
			.containsExactly("endpointslices");
	}

	@Test
	void listsAreOfTheResourcesKind() throws Exception {
		createLease("first", "replica-1");

		JsonNode list = json.readTree(get(LEASES, "application/json").body());

		assertThat(list.path("kind").asText()).isEqualTo("LeaseList");
		assertThat(list.path("apiVersion").asText()).isEqualTo("coordination.k8s.io/v1");
		assertThat(this.client.leases().list().getItems()).extracting((lease) -> lease.getMetadata().getName())
			.containsExactly("first");
	}

	@Test
	void tableOfLeasesShowsEachHolderInTheOrderOfTheNames() throws Exception {
		createLease("second", null);
		createLease("first", "replica-1");

		HttpResponse<String> response = get(LEASES + "?limit=500", TABLE_ACCEPT);

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode table = json.readTree(response.body());
		assertThat(table.path("kind").asText()).isEqualTo("Table");
		assertThat(table.path("apiVersion").asText()).isEqualTo("meta.k8s.io/v1");
		assertThat(table.at("/metadata/resourceVersion").asText()).isNotEmpty();
		assertThat(table.path("columnDefinitions").findValuesAsText("name")).containsExactly("Name", "Holder", "Age");
		assertThat(table.at("/columnDefinitions/0/format").asText()).isEqualTo("name");
		assertThat(cells(table)).containsExactly(List.of("first", "replica-1", AGE), List.of("second", "", AGE));
		assertThat(table.at("/rows/0/object/kind").asText()).isEqualTo("PartialObjectMetadata");
		assertThat(table.at("/rows/0/object/metadata/name").asText()).isEqualTo("first");

		JsonNode withObjects = json.readTree(get(LEASES + "?includeObject=Object", TABLE_ACCEPT).body());
		assertThat(withObjects.at("/rows/0/object/spec/holderIdentity").asText()).isEqualTo("replica-1");
		JsonNode one = json.readTree(get(LEASES + "/first", TABLE_ACCEPT).body());
		assertThat(cells(one)).containsExactly(List.of("first", "replica-1", AGE));
	}

	@Test
	void eventsAreSelectedByTheirInvolvedObjectAndTabledWithIt() throws Exception {
		createEvent("first", "replica-1 became leader");
		createEvent("second", "replica-2 became leader");

		JsonNode selected = json.readTree(get(EVENTS + "?fieldSelector="
				+ encode("involvedObject.name=first,involvedObject.namespace=default,involvedObject.kind=Lease"),
				"application/json")
			.body());
		assertThat(selected.path("kind").asText()).isEqualTo("EventList");
		assertThat(selected.path("items").findValuesAsText("message")).containsExactly("replica-1 became leader");
		assertThat(this.client.v1().events().withField("involvedObject.name", "second").list().getItems())
			.extracting(Event::getMessage)
			.containsExactly("replica-2 became leader");
		assertThat(json.readTree(get(EVENTS + "?fieldSelector=" + encode("involvedObject.name!=first"),
				"application/json").body()).path("items").findValuesAsText("message"))
			.containsExactly("replica-2 became leader");

		JsonNode table = json.readTree(get(EVENTS, TABLE_ACCEPT).body());
		List<String> columns = table.path("columnDefinitions").findValuesAsText("name");
		List<String> printed = columns.stream()
			.filter((column) -> table.at("/columnDefinitions/" + columns.indexOf(column) + "/priority").asInt() == 0)
			.toList();
		assertThat(printed).containsExactly("Last Seen", "Type", "Reason", "Object", "Message");
		assertThat(cells(table)).extracting((row) -> row.subList(0, 4))
			.containsExactlyInAnyOrder(List.of(AGE, "Normal", "LeaderElection", "lease/first"),
					List.of(AGE, "Normal", "LeaderElection", "lease/second"));
	}

	@Test
	void anInvalidFieldSelectorIsABadRequest() throws Exception {
		HttpResponse<String> response = get(EVENTS + "?fieldSelector=" + encode("involvedObject.name"),
				"application/json");

		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(json.readTree(response.body()).path("message").asText())
			.contains("invalid field selector requirement 'involvedObject.name'");
	}

	@Test
	void aMissingObjectIsNotFoundWithTheStatusOfARealApiServer() throws Exception {
		HttpResponse<String> response = get(LEASES + "/missing", TABLE_ACCEPT);

		assertThat(response.statusCode()).isEqualTo(404);
		JsonNode status = json.readTree(response.body());
		assertThat(status.path("kind").asText()).isEqualTo("Status");
		assertThat(status.path("reason").asText()).isEqualTo("NotFound");
		assertThat(status.path("message").asText()).isEqualTo("leases.coordination.k8s.io \"missing\" not found");
		assertThat(this.client.leases().withName("missing").get()).isNull();
	}

	@Test
	void pathsOutsideTheApiAreNotFound() throws Exception {
		for (String path : List.of("/version", "/openapi/v2", "/openapi/v3")) {
			HttpResponse<String> response = get(path, "application/json");
			assertThat(response.statusCode()).as(path).isEqualTo(404);
			assertThat(json.readTree(response.body()).path("message").asText())
				.isEqualTo("the server could not find the requested resource");
		}
	}

	@Test
	void watchOverHttpStreamsTheChangesAfterTheListedVersionAsTables() throws Exception {
		createLease("first", "replica-1");
		String listed = json.readTree(get(LEASES, TABLE_ACCEPT).body()).at("/metadata/resourceVersion").asText();
		BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();

		// answered at once, though no event is on its way yet: the client waits for the headers
		HttpResponse<Stream<String>> watch = this.http
			.sendAsync(request(LEASES + "?resourceVersion=" + listed + "&watch=true", TABLE_ACCEPT),
					BodyHandlers.ofLines())
			.get(10, TimeUnit.SECONDS);
		assertThat(watch.statusCode()).isEqualTo(200);
		Thread reader = new Thread(() -> readEvents(watch.body(), events));
		reader.start();
		try {
			this.client.leases().withName("first").edit((lease) -> holder(lease, "replica-2"));
			createLease("second", "replica-3");

			JsonNode modified = events.poll(10, TimeUnit.SECONDS);
			assertThat(modified.path("type").asText()).as("the first event, after the listed version")
				.isEqualTo("MODIFIED");
			assertThat(modified.at("/object/kind").asText()).isEqualTo("Table");
			assertThat(cells(modified.get("object"))).containsExactly(List.of("first", "replica-2", AGE));
			JsonNode added = events.poll(10, TimeUnit.SECONDS);
			assertThat(added.path("type").asText()).isEqualTo("ADDED");
			assertThat(cells(added.get("object"))).containsExactly(List.of("second", "replica-3", AGE));
		}
		finally {
			watch.body().close();
			reader.interrupt();
		}
	}

	@Test
	void watchOverHttpWithoutVersionStartsWithEveryObject() throws Exception {
		createLease("first", "replica-1");
		BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();

		HttpResponse<Stream<String>> watch = this.http
			.sendAsync(request(LEASES + "?watch=1", "application/json"), BodyHandlers.ofLines())
			.get(10, TimeUnit.SECONDS);
		Thread reader = new Thread(() -> readEvents(watch.body(), events));
		reader.start();
		try {
			JsonNode added = events.poll(10, TimeUnit.SECONDS);
			assertThat(added.path("type").asText()).isEqualTo("ADDED");
			assertThat(added.at("/object/kind").asText()).isEqualTo("Lease");
			assertThat(added.at("/object/spec/holderIdentity").asText()).isEqualTo("replica-1");
		}
		finally {
			watch.body().close();
			reader.interrupt();
		}
	}

	@Test
	void fabric8WatchesOverWebSockets() {
		createLease("first", "replica-1");
		List<String> holders = new CopyOnWriteArrayList<>();
		try (Watch watch = this.client.leases().withName("first").watch(new Watcher<>() {

			@Override
			public void eventReceived(Action action, Lease lease) {
				holders.add(action + " " + lease.getSpec().getHolderIdentity());
			}

			@Override
			public void onClose(WatcherException cause) {
			}

		})) {
			this.client.leases().withName("first").edit((lease) -> holder(lease, "replica-2"));

			await().atMost(Duration.ofSeconds(10)).until(() -> holders.contains("MODIFIED replica-2"));
		}
	}

	@Test
	void aTakenPortIsTold() {
		assertThatExceptionOfType(BindException.class).isThrownBy(() -> LocalApiServer.start(this.server.port()));
	}

	@Test
	void theStandaloneServerOnATakenPortSaysWhatToDo(CapturedOutput output) {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> LocalApiServerApplication.application()
			.run("--sample.local-api-server.port=" + this.server.port()));

		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("The local API server cannot listen on 127.0.0.1:" + this.server.port() + ": the port is taken.")
			.contains("Stop what listens on port " + this.server.port() + " (a local API server already running?)");
	}

	@Test
	void agesArePrintedAsKubectlPrintsThem() {
		assertThat(Tables.age(Duration.ofSeconds(-2))).isEqualTo("<invalid>");
		assertThat(Tables.age(Duration.ofSeconds(-1))).isEqualTo("0s");
		assertThat(Tables.age(Duration.ofSeconds(119))).isEqualTo("119s");
		assertThat(Tables.age(Duration.ofSeconds(120))).isEqualTo("2m");
		assertThat(Tables.age(Duration.ofSeconds(125))).isEqualTo("2m5s");
		assertThat(Tables.age(Duration.ofMinutes(10).plusSeconds(5))).isEqualTo("10m");
		assertThat(Tables.age(Duration.ofMinutes(179))).isEqualTo("179m");
		assertThat(Tables.age(Duration.ofMinutes(185))).isEqualTo("3h5m");
		assertThat(Tables.age(Duration.ofHours(8).plusMinutes(5))).isEqualTo("8h");
		assertThat(Tables.age(Duration.ofHours(50))).isEqualTo("2d2h");
		assertThat(Tables.age(Duration.ofDays(9).plusHours(5))).isEqualTo("9d");
	}

	private Lease createLease(String name, String holder) {
		return this.client.leases()
			.resource(new LeaseBuilder().withNewMetadata()
				.withName(name)
				.endMetadata()
				.withNewSpec()
				.withHolderIdentity(holder)
				.withLeaseDurationSeconds(15)
				.endSpec()
				.build())
			.create();
	}

	private static Lease holder(Lease lease, String holder) {
		lease.getSpec().setHolderIdentity(holder);
		return lease;
	}

	private void createEvent(String leaseName, String message) {
		Lease lease = createLease(leaseName, null);
		String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
		this.client.v1()
			.events()
			.resource(new EventBuilder().withNewMetadata()
				.withGenerateName(leaseName + ".")
				.endMetadata()
				.withNewInvolvedObject()
				.withApiVersion("coordination.k8s.io/v1")
				.withKind("Lease")
				.withNamespace("default")
				.withName(leaseName)
				.withUid(lease.getMetadata().getUid())
				.endInvolvedObject()
				.withType("Normal")
				.withReason("LeaderElection")
				.withMessage(message)
				.withFirstTimestamp(now)
				.withLastTimestamp(now)
				.build())
			.create();
	}

	private List<APIResource> resources(String path) throws IOException, InterruptedException {
		APIResourceList list = serialization.unmarshal(get(path, DISCOVERY_ACCEPT).body(), APIResourceList.class);
		assertThat(list.getGroupVersion()).isEqualTo(path.replaceFirst("^/apis?/", ""));
		return list.getResources();
	}

	/** The cells of each row, with {@link #AGE} for an age of seconds, which the test cannot know to the second. */
	private static List<List<String>> cells(JsonNode table) {
		List<List<String>> rows = new ArrayList<>();
		table.path("rows").forEach((row) -> {
			List<String> cells = new ArrayList<>();
			row.path("cells").forEach((cell) -> cells.add(cell.asText().matches("[0-9]+s") ? AGE : cell.asText()));
			rows.add(cells);
		});
		return rows;
	}

	private HttpResponse<String> get(String path, String accept) throws IOException, InterruptedException {
		return this.http.send(request(path, accept), BodyHandlers.ofString());
	}

	private HttpRequest request(String path, String accept) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.server.port() + path))
			.header("Accept", accept)
			.build();
	}

	private static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	private static void readEvents(Stream<String> lines, BlockingQueue<JsonNode> events) {
		try {
			lines.forEach((line) -> events.add(parse(line)));
		}
		catch (UncheckedIOException ex) {
			// the test closed the watch
		}
	}

	private static JsonNode parse(String line) {
		try {
			return json.readTree(line);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Not JSON: " + line, ex);
		}
	}

}
