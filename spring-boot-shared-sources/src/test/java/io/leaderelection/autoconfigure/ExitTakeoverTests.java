package io.leaderelection.autoconfigure;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code leader.election.exit-takeover.*}: on by default in a Pod (POD_NAME and POD_NAMESPACE),
 * where the leader names its container run in its Leases; off outside a Pod and when switched
 * off. What followers do with it is tested in the core module.
 */
class ExitTakeoverTests {

	private static final String ANNOTATION = "leaderelection.io/holder-instance";

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
		.withPropertyValues("spring.application.name=orders", "leader.election.lease-duration=2s",
				"leader.election.renew-deadline=1s", "leader.election.retry-period=200ms")
		.withBean(KubernetesClient.class, server::newClient);

	@Test
	void inAPodTheLeadersLeaseNamesItsContainerRun() {
		String uid = server.runContainer("exit-on", "orders-7d9f-abcde", "app");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=exit-on", "POD_NAME=orders-7d9f-abcde",
					"POD_NAMESPACE=exit-on")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(KubernetesLeaseStores.class).exitTakeoverNamespace()).isEqualTo("exit-on");
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				await().until(() -> engine.isLeader() && annotation("exit-on") != null);
				assertThat(annotation("exit-on")).contains("\"pod\":\"orders-7d9f-abcde\"", "\"uid\":\"" + uid + "\"",
						"\"container\":\"app\"", "\"restartCount\":0", "\"holder\":\"" + engine.identity() + "\"");
			});
	}

	@Test
	void theContainerIsNamedByAProperty() {
		server.runContainer("exit-named", "orders-7d9f-fghij", "app");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=exit-named", "POD_NAME=orders-7d9f-fghij",
					"POD_NAMESPACE=exit-named", "leader.election.exit-takeover.container=app")
			.run((context) -> {
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				await().until(() -> engine.isLeader() && annotation("exit-named") != null);
				assertThat(annotation("exit-named")).contains("\"container\":\"app\"");
			});
	}

	@Test
	void switchedOffTheLeaseNamesNoRun() {
		server.runContainer("exit-off", "orders-7d9f-klmno", "app");
		this.contextRunner
			.withPropertyValues("leader.election.namespace=exit-off", "POD_NAME=orders-7d9f-klmno",
					"POD_NAMESPACE=exit-off", "leader.election.exit-takeover.enabled=false")
			.run((context) -> {
				assertThat(context.getBean(KubernetesLeaseStores.class).exitTakeoverNamespace()).isNull();
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				await().until(engine::isLeader);
				assertThat(annotation("exit-off")).isNull();
			});
	}

	@Test
	void outsideAPodItIsOff() {
		this.contextRunner.withPropertyValues("leader.election.namespace=exit-outside", "POD_NAME=orders-7d9f-pqrst")
			.run((context) -> assertThat(context.getBean(KubernetesLeaseStores.class).exitTakeoverNamespace()).isNull());
	}

	private static String annotation(String namespace) {
		Lease lease = server.lease(namespace, "orders-leader");
		return (lease != null && lease.getMetadata().getAnnotations() != null)
				? lease.getMetadata().getAnnotations().get(ANNOTATION) : null;
	}

}
