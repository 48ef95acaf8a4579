package io.leaderelection.sample.apiserver;

import java.util.List;
import java.util.Optional;

/**
 * A resource the local API server lists in its discovery documents: those the starter reads and
 * writes (Leases, core Events, Pods, EndpointSlices). Its store keeps any path; discovery is what
 * lets {@code kubectl} name these.
 *
 * @param group the API group, {@code ""} for the core group
 * @param version the version of the group
 * @param plural the resource, as in the path
 * @param singular the singular name {@code kubectl} also accepts
 * @param kind the kind of its objects
 * @param shortNames the abbreviations {@code kubectl} accepts
 * @param categories the categories it belongs to ({@code kubectl get all})
 */
record ServedResource(String group, String version, String plural, String singular, String kind,
		List<String> shortNames, List<String> categories) {

	/** Every verb a namespaced resource of a real API server serves. */
	static final List<String> VERBS = List.of("create", "delete", "deletecollection", "get", "list", "patch",
			"update", "watch");

	static final List<ServedResource> ALL = List.of(
			new ServedResource("", "v1", "events", "event", "Event", List.of("ev"), List.of()),
			new ServedResource("", "v1", "pods", "pod", "Pod", List.of("po"), List.of("all")),
			new ServedResource("coordination.k8s.io", "v1", "leases", "lease", "Lease", List.of(), List.of()),
			new ServedResource("discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice",
					List.of(), List.of()));

	/** {@code v1} for the core group, else {@code group/version}, as in {@code apiVersion}. */
	String groupVersion() {
		return this.group.isEmpty() ? this.version : this.group + "/" + this.version;
	}

	/** The served resource of that API group, version and plural. */
	static Optional<ServedResource> find(String group, String version, String plural) {
		return ALL.stream()
			.filter((resource) -> resource.group.equals(group) && resource.version.equals(version)
					&& resource.plural.equals(plural))
			.findFirst();
	}

}
