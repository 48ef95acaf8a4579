package io.leaderelection.autoconfigure;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderStatus;
import io.leaderelection.engine.ElectionEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code leader.election.mode=for-life}, for the application or one election: the lock is a
 * Lease owned by the Pod POD_NAME names, on the CRUD API server, and the status and health show
 * the mode and the owner. What the engine does with locks is tested in the core module.
 */
class ForLifeModeTests {

	@RegisterExtension
	static final CrudKubernetesServer server = CrudKubernetesServer.start();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
		.withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
		.withPropertyValues("spring.application.name=orders", "leader.election.namespace=for-life",
				"leader.election.lease-duration=2s", "leader.election.renew-deadline=1s",
				"leader.election.retry-period=200ms")
		.withBean(KubernetesClient.class, server::newClient);

	@Test
	void anElectionForLifeHoldsALockOwnedByThePodAndShowsTheModeAndOwner() {
		String uid = server.runPod("for-life", "orders-7d9f-abcde");
		this.contextRunner
			.withPropertyValues("POD_NAME=orders-7d9f-abcde", "leader.election.elections.billing.mode=for-life")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ElectionEngine engine = context.getBean(ElectionEngine.class);
				await().until(() -> engine.isLeader("billing"));
				assertThat(engine.status("default").mode()).isEqualTo(LeaderStatus.LEASE_MODE);
				OwnerReference owner = server.lease("for-life", "orders-billing-leader")
					.getMetadata()
					.getOwnerReferences()
					.get(0);
				assertThat(owner.getName()).isEqualTo("orders-7d9f-abcde");
				assertThat(owner.getUid()).isEqualTo(uid);
				LeaderStatus billing = engine.status("billing");
				assertThat(billing.mode()).isEqualTo(LeaderStatus.FOR_LIFE_MODE);
				assertThat(billing.holderIdentity()).isEqualTo("orders-7d9f-abcde");
				assertThat(billing.ownerPod()).isEqualTo("orders-7d9f-abcde (uid " + uid + ")");
			});
	}

	@Test
	void forLifeWithoutPodNameFailsTheStartNamingTheModeAndTheDownwardApi() {
		this.contextRunner.withPropertyValues("leader.election.mode=for-life").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'leader.election.mode'")
				.contains("POD_NAME")
				.contains("fieldRef metadata.name");
		});
	}

	@Test
	void aPodNameThatNamesNoPodFailsTheStartWithWhatToDo() {
		this.contextRunner.withPropertyValues("leader.election.mode=for-life", "POD_NAME=no-such-pod")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = LeaderElectionFailureAnalysis.of(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("Pod for-life/no-such-pod does not exist");
				assertThat(analysis.getAction()).contains("POD_NAME")
					.contains("'get' on 'pods'")
					.contains("'leader.election.mode' to 'lease'");
			});
	}

	@Test
	void standaloneIsNoModeOfOneElection() {
		this.contextRunner.withPropertyValues("leader.election.elections.billing.mode=standalone")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("leader.election.elections.billing.mode")
				.hasStackTraceContaining("standalone is for the whole application"));
	}

}
