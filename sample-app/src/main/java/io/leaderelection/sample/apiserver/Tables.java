package io.leaderelection.sample.apiserver;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code meta.k8s.io/v1} Tables a real API server answers {@code kubectl get} with when it asks
 * for one ({@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}): the columns a real server
 * prints for Leases (the holder), Events, Pods and EndpointSlices, name and age for any other
 * resource, and each row's object as its metadata unless the request says otherwise
 * ({@code includeObject}).
 */
final class Tables {

	private static final JsonNodeFactory nodes = JsonNodeFactory.instance;

	private static final Column NAME = new Column("Name", "name", 0, (object) -> text(object, "/metadata/name"));

	private final Column age;

	private final Map<String, List<Column>> columnsByResource;

	private final Clock clock;

	Tables(Clock clock) {
		this.clock = clock;
		this.age = new Column("Age", "", 0, (object) -> since(object.at("/metadata/creationTimestamp")));
		this.columnsByResource = Map.of(
				"coordination.k8s.io/leases",
				List.of(NAME, new Column("Holder", "", 0, (object) -> text(object, "/spec/holderIdentity")), this.age),
				"/events",
				List.of(new Column("Last Seen", "", 0, (object) -> since(lastSeen(object))),
						new Column("Type", "", 0, (object) -> text(object, "/type")),
						new Column("Reason", "", 0, (object) -> text(object, "/reason")),
						new Column("Object", "", 0,
								(object) -> text(object, "/involvedObject/kind").toLowerCase() + "/"
										+ text(object, "/involvedObject/name")),
						new Column("Source", "", 1, (object) -> text(object, "/source/component")),
						new Column("Message", "", 0, (object) -> text(object, "/message")),
						new Column("First Seen", "", 1, (object) -> since(object.at("/firstTimestamp"))),
						new Column("Count", "", 1, (object) -> String.valueOf(Math.max(1, object.at("/count").asInt()))),
						new Column("Name", "name", 1, NAME.cell())),
				"/pods",
				List.of(NAME, new Column("Ready", "", 0, Tables::readyContainers),
						new Column("Status", "", 0,
								(object) -> object.at("/metadata/deletionTimestamp").isMissingNode()
										? text(object, "/status/phase") : "Terminating"),
						new Column("Restarts", "", 0, Tables::restarts), this.age),
				"discovery.k8s.io/endpointslices",
				List.of(NAME, new Column("AddressType", "", 0, (object) -> text(object, "/addressType")),
						new Column("Ports", "", 0, Tables::ports), new Column("Endpoints", "", 0, Tables::endpoints),
						this.age));
	}

	/** Whether the request's {@code Accept} header asks for a Table. */
	static boolean requested(String accept) {
		return accept != null && accept.contains("as=Table");
	}

	/**
	 * The Table of a list, its rows in the order of the names, or of one object.
	 * @param resource the resource the objects are of
	 * @param listOrObject a list (with {@code items}) or one object
	 * @param includeObject what each row carries of its object: {@code None}, {@code Metadata} (the
	 * default) or {@code Object}
	 */
	ObjectNode table(ServedResource resource, JsonNode listOrObject, String includeObject) {
		List<Column> columns = this.columnsByResource.getOrDefault(resource.group() + "/" + resource.plural(),
				List.of(NAME, this.age));
		ObjectNode table = nodes.objectNode().put("kind", "Table").put("apiVersion", "meta.k8s.io/v1");
		ObjectNode metadata = table.putObject("metadata");
		ArrayNode definitions = table.putArray("columnDefinitions");
		for (Column column : columns) {
			definitions.addObject()
				.put("name", column.name())
				.put("type", "string")
				.put("format", column.format())
				.put("description", "")
				.put("priority", column.priority());
		}
		List<JsonNode> objects = new ArrayList<>();
		if (listOrObject.has("items")) {
			listOrObject.get("items").forEach(objects::add);
			objects.sort(Comparator.comparing((JsonNode object) -> text(object, "/metadata/namespace"))
				.thenComparing((object) -> text(object, "/metadata/name")));
			metadata.set("resourceVersion", listOrObject.at("/metadata/resourceVersion"));
		}
		else {
			objects.add(listOrObject);
		}
		ArrayNode rows = table.putArray("rows");
		for (JsonNode object : objects) {
			ObjectNode row = rows.addObject();
			ArrayNode cells = row.putArray("cells");
			columns.forEach((column) -> cells.add(column.cell().apply(object)));
			if ("Object".equals(includeObject)) {
				row.set("object", object);
			}
			else if (!"None".equals(includeObject)) {
				row.putObject("object")
					.put("kind", "PartialObjectMetadata")
					.put("apiVersion", "meta.k8s.io/v1")
					.set("metadata", object.get("metadata"));
			}
		}
		return table;
	}

	/**
	 * How long ago, in the form {@code kubectl} prints ages: seconds up to two minutes, then minutes
	 * and seconds up to ten minutes, minutes up to three hours, hours and minutes up to eight hours,
	 * hours up to two days, days and hours up to eight days, then days; {@code <unknown>} when the
	 * timestamp is missing.
	 */
	String since(JsonNode timestamp) {
		if (!timestamp.isTextual() || timestamp.asText().isEmpty()) {
			return "<unknown>";
		}
		Instant then;
		try {
			then = Instant.parse(timestamp.asText());
		}
		catch (DateTimeParseException ex) {
			return "<invalid>";
		}
		return age(Duration.between(then, this.clock.instant()));
	}

	static String age(Duration age) {
		long seconds = age.toSeconds();
		if (seconds < -1) {
			return "<invalid>";
		}
		if (seconds < 120) {
			return Math.max(0, seconds) + "s";
		}
		long minutes = age.toMinutes();
		if (minutes < 10) {
			return unitAndRest(minutes, "m", seconds % 60, "s");
		}
		if (minutes < 180) {
			return minutes + "m";
		}
		long hours = age.toHours();
		if (hours < 8) {
			return unitAndRest(hours, "h", minutes % 60, "m");
		}
		if (hours < 48) {
			return hours + "h";
		}
		if (hours < 192) {
			return unitAndRest(hours / 24, "d", hours % 24, "h");
		}
		return (hours / 24) + "d";
	}

	private static String unitAndRest(long value, String unit, long rest, String restUnit) {
		return value + unit + ((rest != 0) ? rest + restUnit : "");
	}

	/** When an Event was last seen: its last timestamp, else its first, else its event time. */
	private static JsonNode lastSeen(JsonNode event) {
		for (String field : List.of("/lastTimestamp", "/firstTimestamp", "/eventTime")) {
			JsonNode timestamp = event.at(field);
			if (timestamp.isTextual() && !timestamp.asText().isEmpty()) {
				return timestamp;
			}
		}
		return nodes.missingNode();
	}

	private static String readyContainers(JsonNode pod) {
		int ready = 0;
		for (JsonNode status : pod.at("/status/containerStatuses")) {
			ready += status.path("ready").asBoolean() ? 1 : 0;
		}
		return ready + "/" + pod.at("/spec/containers").size();
	}

	private static String restarts(JsonNode pod) {
		int restarts = 0;
		for (JsonNode status : pod.at("/status/containerStatuses")) {
			restarts += status.path("restartCount").asInt();
		}
		return String.valueOf(restarts);
	}

	private static String ports(JsonNode slice) {
		List<String> ports = new ArrayList<>();
		slice.at("/ports").forEach((port) -> ports.add(port.path("port").asText()));
		return ports.isEmpty() ? "<unset>" : String.join(",", ports);
	}

	/** The first three addresses, and how many more there are. */
	private static String endpoints(JsonNode slice) {
		List<String> addresses = new ArrayList<>();
		slice.at("/endpoints")
			.forEach((endpoint) -> endpoint.path("addresses").forEach((address) -> addresses.add(address.asText())));
		if (addresses.isEmpty()) {
			return "<unset>";
		}
		String shown = String.join(",", addresses.subList(0, Math.min(3, addresses.size())));
		return (addresses.size() > 3) ? shown + " + " + (addresses.size() - 3) + " more..." : shown;
	}

	private static String text(JsonNode object, String pointer) {
		JsonNode node = object.at(pointer);
		return node.isValueNode() ? node.asText() : "";
	}

	/**
	 * A column of a Table.
	 * @param name its heading
	 * @param format {@code name} for the column of object names, else empty
	 * @param priority 0 for the columns {@code kubectl get} prints, 1 for those it adds with {@code -o wide}
	 * @param cell the cell of an object
	 */
	private record Column(String name, String format, int priority, Function<JsonNode, String> cell) {
	}

}
