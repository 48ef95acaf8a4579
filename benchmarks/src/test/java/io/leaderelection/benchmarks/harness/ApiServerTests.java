package io.leaderelection.benchmarks.harness;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ApiServerTests {

	@Test
	void resourceOfANamespacedPath() {
		assertThat(ApiServer.resource("/apis/coordination.k8s.io/v1/namespaces/bench/leases/a?watch=true"))
			.isEqualTo("leases");
		assertThat(ApiServer.resource("/api/v1/namespaces/bench/pods")).isEqualTo("pods");
		assertThat(ApiServer.resource("/api/v1/nodes")).isNull();
	}

	@Test
	void listsAreCollectionsNotObjects() {
		assertThat(ApiServer.isList("/api/v1/namespaces/bench/pods?labelSelector=a")).isTrue();
		assertThat(ApiServer.isList("/apis/coordination.k8s.io/v1/namespaces/bench/leases")).isTrue();
		assertThat(ApiServer.isList("/api/v1/nodes")).isTrue();
		assertThat(ApiServer.isList("/api/v1/namespaces/bench/pods/p")).isFalse();
	}

	@Test
	void countsByKindNameTheKindsCounted() {
		ApiServer.Counts counts = new ApiServer.Counts();
		counts.add(ApiServer.Kind.GET);
		counts.add(ApiServer.Kind.GET);
		counts.add(ApiServer.Kind.WATCH);
		assertThat(counts).hasToString("GET 2, WATCH 1");
		assertThat(counts.total()).isEqualTo(3);
	}

}
