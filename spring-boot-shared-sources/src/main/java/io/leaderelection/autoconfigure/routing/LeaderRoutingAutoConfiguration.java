package io.leaderelection.autoconfigure.routing;

import java.util.List;

import io.leaderelection.LeaderElector;
import io.leaderelection.autoconfigure.LeaderElectionAutoConfiguration;
import io.leaderelection.autoconfigure.LeaderElectionProperties;
import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyRegistry;
import io.leaderelection.kubernetes.KubernetesLeaseStores;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of leader-only routing ({@code leader.election.routing.*}): the EndpointSlice
 * of a Service without selector naming each routed election's leader, and the label telling on
 * each replica's Pod whether it leads, written on the elector's own client. Only where the elector
 * campaigns on Kubernetes: not standalone, not on Leases of the application's (or its tests') own;
 * and only where some election is routed, by a Service or a Pod label.
 */
@AutoConfiguration(after = { LeaderElectionAutoConfiguration.class, LeaderOnlyAutoConfiguration.class })
@ConditionalOnBean({ KubernetesLeaseStores.class, LeaderOnlyRegistry.class })
@Conditional(OnLeaderRoutingCondition.class)
public class LeaderRoutingAutoConfiguration {

	@Bean
	LeaderRoutes leaderRoutes(LeaderElectionProperties properties, LeaderElectionSettings settings,
			KubernetesLeaseStores kubernetesLeaseStores, LeaderElector leaderElector,
			LeaderOnlyRegistry leaderOnlyRegistry, Environment environment) {
		List<ElectionRouting> routings = new LeaderRoutingResolver(environment::getProperty).resolve(properties,
				settings);
		return new LeaderRoutes(routings, kubernetesLeaseStores, leaderElector, leaderOnlyRegistry, environment);
	}

}
