package io.leaderelection.autoconfigure.permissions;

import java.time.Duration;

import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.events.LeaderElectionEventsAutoConfiguration;
import io.leaderelection.autoconfigure.routing.LeaderRoutes;
import io.leaderelection.autoconfigure.routing.LeaderRoutingAutoConfiguration;
import io.leaderelection.engine.ElectionSettings;
import io.leaderelection.kubernetes.KubernetesLeaseEvents;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import io.leaderelection.kubernetes.Permission;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the permission check at start ({@code leader.election.permission-check}),
 * where the elector campaigns on Kubernetes: not standalone, not on Leases of the application's
 * (or its tests') own.
 */
@AutoConfiguration(after = { LeaderElectionAutoConfiguration.class, LeaderElectionEventsAutoConfiguration.class,
		LeaderRoutingAutoConfiguration.class })
@ConditionalOnBean(KubernetesLeaseStores.class)
public class LeaderElectionPermissionsAutoConfiguration {

	/** Asks on the elector's own client, each review within the shortest renew deadline. */
	@Bean
	LeaderElectionPermissions leaderElectionPermissions(KubernetesLeaseStores kubernetesLeaseStores,
			LeaderElectionSettings settings, LeaderElectionProperties properties,
			ObjectProvider<KubernetesLeaseEvents> events, ObjectProvider<LeaderRoutes> routes) {
		Duration timeout = settings.elections()
			.stream()
			.map(ElectionSettings::renewDeadline)
			.min(Duration::compareTo)
			.orElseThrow();
		return new LeaderElectionPermissions(kubernetesLeaseStores,
				Permission.neededBy(LeaderElectionPermissions.features(settings, properties,
						events.getIfAvailable() != null, routes.getIfAvailable() != null,
						kubernetesLeaseStores.exitTakeoverNamespace())),
				properties.getPermissionCheck(), timeout);
	}

}
