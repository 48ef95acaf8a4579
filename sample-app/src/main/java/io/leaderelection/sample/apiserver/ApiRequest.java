package io.leaderelection.sample.apiserver;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The path and query of a request to the local API server, read as a real API server reads them:
 * the resource it is about, the query parameters, and the field selector, split into the fields
 * the store matches by itself ({@code metadata.name}, {@code metadata.namespace}) and the others
 * ({@code involvedObject.name}, which {@code kubectl describe} selects Events by), which the server
 * matches on the objects the store returns.
 */
final class ApiRequest {

	/** The fields of a field selector the store keeps as attributes of every object. */
	private static final Set<String> STORE_FIELDS = Set.of("metadata.name", "metadata.namespace");

	private static final Pattern RESOURCE_PATH = Pattern.compile("/(?:api/(?<coreVersion>[^/]+)"
			+ "|apis/(?<group>[^/]+)/(?<version>[^/]+))(?:/namespaces/[^/]+)?/(?<plural>[^/]+)(?:/(?<name>[^/]+))?");

	/** One requirement of a field selector: {@code field=value}, {@code field==value} or {@code field!=value}. */
	private static final Pattern REQUIREMENT = Pattern.compile("(?<field>[^!=]+)(?<operator>==|=|!=)(?<value>.*)");

	private final String path;

	/** The query's parameters as sent, encoded. */
	private final List<String> rawParameters;

	private final Optional<ServedResource> resource;

	/** The name of the object the path is about, {@code null} for a collection. */
	private final String name;

	/** What is wrong with the field selector, {@code null} when nothing is. */
	private final String invalidSelector;

	private final List<Requirement> storeRequirements = new ArrayList<>();

	private final List<Requirement> serverRequirements = new ArrayList<>();

	private ApiRequest(String path, List<String> rawParameters) {
		this.path = path;
		this.rawParameters = rawParameters;
		Matcher matcher = RESOURCE_PATH.matcher(path);
		boolean resourcePath = matcher.matches();
		this.resource = !resourcePath ? Optional.empty()
				: (matcher.group("coreVersion") != null)
						? ServedResource.find("", matcher.group("coreVersion"), matcher.group("plural"))
						: ServedResource.find(matcher.group("group"), matcher.group("version"), matcher.group("plural"));
		this.name = resourcePath ? matcher.group("name") : null;
		this.invalidSelector = parseFieldSelector(parameter("fieldSelector"));
	}

	/** Adds the requirements of the field selector; what is wrong with it, {@code null} if nothing. */
	private String parseFieldSelector(String fieldSelector) {
		if (fieldSelector == null || fieldSelector.isEmpty()) {
			return null;
		}
		for (String requirement : fieldSelector.split(",")) {
			Matcher matcher = REQUIREMENT.matcher(requirement.trim());
			if (!matcher.matches()) {
				return "invalid field selector requirement '" + requirement + "' in '" + fieldSelector
						+ "': expected field=value, field==value or field!=value";
			}
			Requirement parsed = new Requirement(matcher.group("field"), !"!=".equals(matcher.group("operator")),
					matcher.group("value"));
			(STORE_FIELDS.contains(parsed.field()) ? this.storeRequirements : this.serverRequirements).add(parsed);
		}
		return null;
	}

	/** The request to the given path, with its query if any ({@code /apis/...?watch=true}). */
	static ApiRequest of(String pathAndQuery) {
		int question = pathAndQuery.indexOf('?');
		if (question < 0) {
			return new ApiRequest(pathAndQuery, List.of());
		}
		String query = pathAndQuery.substring(question + 1);
		return new ApiRequest(pathAndQuery.substring(0, question),
				query.isEmpty() ? List.of() : List.of(query.split("&")));
	}

	/** The path, without the query. */
	String path() {
		return this.path;
	}

	/** The served resource the path is about, if any. */
	Optional<ServedResource> resource() {
		return this.resource;
	}

	/** The name of the object the path is about, {@code null} for a collection or another path. */
	String name() {
		return this.name;
	}

	/** What is wrong with the field selector, {@code null} when nothing is. */
	String invalidSelector() {
		return this.invalidSelector;
	}

	/** The decoded value of the first query parameter of that name, {@code null} if there is none. */
	String parameter(String name) {
		for (String raw : this.rawParameters) {
			int equals = raw.indexOf('=');
			String rawName = (equals < 0) ? raw : raw.substring(0, equals);
			if (decode(rawName).equals(name)) {
				return (equals < 0) ? "" : decode(raw.substring(equals + 1));
			}
		}
		return null;
	}

	/** Whether the request asks to watch ({@code watch=true} or {@code watch=1}). */
	boolean watch() {
		String watch = parameter("watch");
		return "true".equals(watch) || "1".equals(watch);
	}

	/**
	 * The path and query to hand the store: this request's, with the field selector left to the
	 * requirements it matches itself.
	 */
	String forStore() {
		StringBuilder forStore = new StringBuilder(this.path);
		char separator = '?';
		for (String raw : this.rawParameters) {
			String value = raw;
			if (raw.startsWith("fieldSelector=")) {
				if (this.storeRequirements.isEmpty()) {
					continue;
				}
				value = "fieldSelector=" + URLEncoder.encode(
						String.join(",", this.storeRequirements.stream().map(Requirement::toString).toList()),
						StandardCharsets.UTF_8);
			}
			forStore.append(separator).append(value);
			separator = '&';
		}
		return forStore.toString();
	}

	/** Whether the object meets the field selector's requirements that the store leaves to the server. */
	boolean selects(JsonNode object) {
		return this.serverRequirements.stream().allMatch((requirement) -> requirement.isMetBy(object));
	}

	/** Whether the field selector has requirements that the store leaves to the server. */
	boolean selectsOnServer() {
		return !this.serverRequirements.isEmpty();
	}

	private static String decode(String encoded) {
		return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
	}

	private record Requirement(String field, boolean equal, String value) {

		/** Whether the object's value of the field ({@code involvedObject.name}: a path in it) is as required. */
		boolean isMetBy(JsonNode object) {
			JsonNode node = object.at("/" + this.field.replace('.', '/'));
			String actual = node.isValueNode() ? node.asText() : "";
			return actual.equals(this.value) == this.equal;
		}

		@Override
		public String toString() {
			return this.field + (this.equal ? "=" : "!=") + this.value;
		}

	}

}
