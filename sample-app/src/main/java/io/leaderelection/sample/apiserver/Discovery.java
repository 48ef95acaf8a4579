package io.leaderelection.sample.apiserver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.api.model.KubernetesResource;

/**
 * The discovery documents of a real API server, in their legacy form ({@code APIVersions} at
 * {@code /api}, {@code APIGroupList} at {@code /apis}, an {@code APIGroup} per group and an
 * {@code APIResourceList} per group version), listing the {@link ServedResource served resources}:
 * what {@code kubectl} reads to map {@code leases} or {@code ev} to a path. A client that asks for
 * aggregated discovery first reads these when the answer comes as plain JSON, as it does from API
 * servers before Kubernetes 1.26.
 */
final class Discovery {

	private final Map<String, KubernetesResource> documents = new LinkedHashMap<>();

	Discovery() {
		Map<String, List<ServedResource>> byGroupVersion = new LinkedHashMap<>();
		ServedResource.ALL.forEach((resource) -> byGroupVersion
			.computeIfAbsent(resource.groupVersion(), (groupVersion) -> new ArrayList<>())
			.add(resource));
		List<String> coreVersions = new ArrayList<>();
		Map<String, List<GroupVersionForDiscovery>> versionsByGroup = new LinkedHashMap<>();
		byGroupVersion.forEach((groupVersion, resources) -> {
			ServedResource first = resources.get(0);
			if (first.group().isEmpty()) {
				coreVersions.add(first.version());
				this.documents.put("/api/" + groupVersion, resourceList(groupVersion, resources));
			}
			else {
				versionsByGroup.computeIfAbsent(first.group(), (group) -> new ArrayList<>())
					.add(new GroupVersionForDiscovery(groupVersion, first.version()));
				this.documents.put("/apis/" + groupVersion, resourceList(groupVersion, resources));
			}
		});
		this.documents.put("/api", new APIVersionsBuilder().withVersions(coreVersions).build());
		List<APIGroup> groups = new ArrayList<>();
		versionsByGroup.forEach((name, versions) -> groups.add(new APIGroupBuilder().withName(name)
			.withVersions(versions)
			.withPreferredVersion(versions.get(0))
			.build()));
		this.documents.put("/apis", new APIGroupListBuilder().withGroups(groups).build());
		groups.forEach((group) -> this.documents.put("/apis/" + group.getName(), group));
	}

	/** The document served at that path (without its query), if it is a discovery path. */
	Optional<KubernetesResource> document(String path) {
		String trimmed = (path.length() > 1 && path.endsWith("/")) ? path.substring(0, path.length() - 1) : path;
		return Optional.ofNullable(this.documents.get(trimmed));
	}

	private static KubernetesResource resourceList(String groupVersion, List<ServedResource> resources) {
		List<APIResource> apiResources = resources.stream()
			.map((resource) -> new APIResourceBuilder().withName(resource.plural())
				.withSingularName(resource.singular())
				.withNamespaced(true)
				.withKind(resource.kind())
				.withVerbs(ServedResource.VERBS)
				.withShortNames(resource.shortNames())
				.withCategories(resource.categories())
				.build())
			.toList();
		return new APIResourceListBuilder().withGroupVersion(groupVersion).withResources(apiResources).build();
	}

}
