package io.leaderelection.autoconfigure.events;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.kubernetes.KubernetesLeaseEvents;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Kubernetes Events on the Leases, where the elector campaigns on
 * Kubernetes: not standalone, not on Leases of the application's (or its tests') own. Switched
 * off with {@code leader.election.events.enabled=false}.
 */
@AutoConfiguration(after = LeaderElectionAutoConfiguration.class)
@ConditionalOnBean(KubernetesLeaseStores.class)
@ConditionalOnProperty(prefix = LeaderElectionProperties.PREFIX + ".events", name = "enabled", matchIfMissing = true)
public class LeaderElectionEventsAutoConfiguration {

	/** Writes on the threads that make the elector's blocking calls, never on the renewing one. */
	@Bean
	@ConditionalOnMissingBean
	KubernetesLeaseEvents kubernetesLeaseEvents(KubernetesClient kubernetesClient, LeaderElectionSettings settings,
			LeaderElectionThreads threads) {
		return new KubernetesLeaseEvents(kubernetesClient, settings.identity(), settings.elections(),
				threads.blockingCalls());
	}

}
