package io.leaderelection.autoconfigure.leaderonly;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.CrudKubernetesServer;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionTestProperties;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Application contexts of one replica each, with the leader election and {@code @LeaderOnly}
 * auto-configurations, on a {@link CrudKubernetesServer}. Every runner campaigns for a Lease of its
 * own, with short timings: a leader at once when the Lease was released, a follower when another
 * candidate already holds it for an hour.
 */
final class Replicas {

	/** The namespace every replica campaigns in. */
	static final String NAMESPACE = "leader-only";

	/** The identity of the candidate that holds the Lease of a follower. */
	static final String OTHER_HOLDER = "someone-else";

	static final Duration WAIT = Duration.ofSeconds(10);

	private static final AtomicInteger SEQUENCE = new AtomicInteger();

	private Replicas() {
	}

	/** A fresh Lease name, so that contexts never see each other's holders. */
	static String freshLeaseName() {
		return "leader-only-" + SEQUENCE.incrementAndGet();
	}

	/** A replica whose default election's Lease was released: it becomes leader at once. */
	static ApplicationContextRunner leader(CrudKubernetesServer server) {
		String leaseName = freshLeaseName();
		server.createReleased(NAMESPACE, leaseName);
		return replica(server, leaseName);
	}

	/** A replica whose default election's Lease is held by {@link #OTHER_HOLDER} for an hour. */
	static ApplicationContextRunner follower(CrudKubernetesServer server) {
		String leaseName = freshLeaseName();
		holdForAnHour(server, leaseName, OTHER_HOLDER);
		return replica(server, leaseName);
	}

	/** A replica campaigning for the given Lease in the default election. */
	static ApplicationContextRunner replica(CrudKubernetesServer server, String leaseName) {
		return new ApplicationContextRunner()
			.withPropertyValues(LeaderElectionTestProperties.CAMPAIGN_AT_START)
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
			.withBean(KubernetesClient.class, server::newClient)
			.withPropertyValues("leader.election.namespace=" + NAMESPACE,
					"leader.election.lease-name=" + leaseName, "leader.election.identity=" + leaseName + "-replica",
					"leader.election.lease-duration=2s", "leader.election.renew-deadline=1s",
					"leader.election.retry-period=250ms");
	}

	/**
	 * Creates the Lease held by another candidate, renewed now, for an hour: a replica that
	 * campaigns for it stays a follower for the whole test.
	 */
	static void holdForAnHour(CrudKubernetesServer server, String leaseName, String holderIdentity) {
		server.createHeld(NAMESPACE, leaseName, holderIdentity, 3600);
	}

	/** The Lease of the given name in {@link #NAMESPACE}, as stored. */
	static Lease lease(CrudKubernetesServer server, String leaseName) {
		return server.lease(NAMESPACE, leaseName);
	}

	/** Waits until the context's replica leads the election. */
	static void awaitLeader(ApplicationContext context, String election) {
		LeaderElector elector = context.getBean(LeaderElector.class);
		await().atMost(WAIT).until(() -> elector.isLeader(election));
	}

	/**
	 * Waits until the context's replica has read the election's Lease and seen that
	 * {@link #OTHER_HOLDER} holds it; it does not lead.
	 */
	static void awaitFollower(ApplicationContext context, String election) {
		LeaderElector elector = context.getBean(LeaderElector.class);
		await().atMost(WAIT).until(() -> OTHER_HOLDER.equals(elector.status(election).holderIdentity()));
		assertThat(elector.isLeader(election)).isFalse();
	}

}
