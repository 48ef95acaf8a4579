package io.leaderelection.controlplane;

import java.time.Duration;
import java.util.List;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's manifests as a user applies them, with the real kubectl, to the real API server,
 * which validates every object (Deployment, Role, RoleBinding, Services, FlowSchema and its
 * priority level); then the sample's jar run as its Deployment runs it, under its own
 * ServiceAccount and Role: it leads, writes its leader-only EndpointSlice and its Pod's label,
 * releases on SIGTERM, and the API server refuses none of its requests.
 */
class SampleManifestsTests {

	private static final String LEADS = "This replica became leader of election 'default'";

	private final ControlPlane controlPlane = ControlPlane.shared();

	@ParameterizedTest
	@ValueSource(strings = { "k8s", "k8s-for-life" })
	void theManifestsAreAcceptedAndTheSampleLeadsUnderItsOwnRole(String manifests) {
		try (TestNamespace namespace = this.controlPlane.namespace("sample")) {
			SampleDeployment deployment = SampleDeployment.apply(this.controlPlane, namespace, manifests);
			assertThat(deployment.applied()).contains("serviceaccount/leader-election-sample",
					"role.rbac.authorization.k8s.io/leader-election-sample",
					"rolebinding.rbac.authorization.k8s.io/leader-election-sample",
					"deployment.apps/leader-election-sample", "service/leader-election-sample-leader",
					"flowschema.flowcontrol.apiserver.k8s.io/leader-election-sample-leases",
					"prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/leader-election-sample-leases");
			try (SampleProcess sample = deployment.run("sample-0", "10.244.0.10", deployment.log("sample-0"),
					List.of("--leader.election.lease-duration=3s", "--leader.election.renew-deadline=2s",
							"--leader.election.retry-period=500ms"))) {
				sample.awaitLogged(LEADS, Duration.ofSeconds(90));
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
					EndpointSlice slice = this.controlPlane.admin()
						.discovery()
						.v1()
						.endpointSlices()
						.inNamespace(namespace.name())
						.withName("leader-election-sample-leader")
						.get();
					assertThat(slice).isNotNull();
					assertThat(slice.getEndpoints()).singleElement()
						.satisfies((endpoint) -> assertThat(endpoint.getAddresses()).containsExactly("10.244.0.10"));
					assertThat(this.controlPlane.admin().pods().inNamespace(namespace.name()).withName("sample-0").get()
						.getMetadata()
						.getLabels()).containsEntry("leaderelection.io/default", "leader");
				});
				sample.stopGracefully();
			}
			Lease lease = this.controlPlane.admin().leases().inNamespace(namespace.name()).withName("sample-leader").get();
			if (manifests.equals("k8s")) {
				assertThat(lease.getSpec().getHolderIdentity()).as("the Lease after SIGTERM").isNullOrEmpty();
			}
			else {
				assertThat(lease).as("the lock after SIGTERM, deleted on release").isNull();
			}
			namespace.assertNothingRefused();
		}
	}

}
