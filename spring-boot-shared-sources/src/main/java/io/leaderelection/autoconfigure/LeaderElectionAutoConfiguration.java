package io.leaderelection.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.leaderelection.LeaderElector;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.engine.ElectionListener;
import io.leaderelection.engine.LeaderElectionThreads;
import io.leaderelection.engine.LeaderWork;
import io.leaderelection.kubernetes.KubernetesLeaseStores;
import io.leaderelection.memory.InMemoryLeaseStores;
import io.leaderelection.store.LeaseStoreFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration of leader election: one {@link LeaderElector} for every configured
 * election, following the Leases from the first lifecycle phase, campaigning from a late one and
 * publishing Spring Integration leader events. It campaigns through Kubernetes Leases, or, in
 * standalone mode ({@code leader.election.mode=standalone} or
 * {@code leader.election.enabled=false}), leads every election alone on Leases kept in memory.
 */
@AutoConfiguration(afterName = "org.springframework.cloud.kubernetes.fabric8.Fabric8AutoConfiguration")
@EnableConfigurationProperties(LeaderElectionProperties.class)
public class LeaderElectionAutoConfiguration {

	/** Spring Boot's default for spring.lifecycle.timeout-per-shutdown-phase. */
	private static final Duration DEFAULT_SHUTDOWN_PHASE = Duration.ofSeconds(30);

	@Bean
	@ConditionalOnMissingBean
	LeaderElectionSettings leaderElectionSettings(LeaderElectionProperties properties, Environment environment,
			ObjectProvider<KubernetesClient> kubernetesClient) {
		LeaderElectionSettingsResolver resolver = new LeaderElectionSettingsResolver(environment::getProperty,
				LeaderElectionSettingsResolver.SERVICE_ACCOUNT_NAMESPACE);
		return resolver.resolve(properties, environment.getProperty("spring.application.name"), () -> {
			KubernetesClient client = kubernetesClient.getIfAvailable();
			return (client != null) ? client.getNamespace() : null;
		});
	}

	@Bean
	LeaderElectionThreads leaderElectionThreads() {
		return new LeaderElectionThreads();
	}

	@Bean
	@ConditionalOnMissingBean
	LeaderEventPublisher leaderEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
		return new DefaultLeaderEventPublisher(applicationEventPublisher);
	}

	@Bean
	LeaderEventBridge leaderEventBridge(LeaderEventPublisher leaderEventPublisher,
			ObjectProvider<LeaderElector> leaderElector) {
		return new LeaderEventBridge(leaderEventPublisher, leaderElector);
	}

	@Bean
	@ConditionalOnProperty(prefix = LeaderElectionProperties.PREFIX, name = "on-lost", havingValue = "exit")
	ExitOnLostLeadership exitOnLostLeadership(ConfigurableApplicationContext context) {
		return ExitOnLostLeadership.exitingJvm(context);
	}

	@Bean
	@ConditionalOnMissingBean(LeaderElector.class)
	ElectionEngine leaderElector(LeaderElectionSettings settings, LeaseStoreFactory leaseStores,
			LeaderElectionThreads threads, ObjectProvider<ElectionListener> listeners,
			ObjectProvider<LeaderWork> leaderWork, Environment environment) {
		List<ElectionListener> all = listeners.orderedStream().toList();
		// Bound as LifecycleAutoConfiguration binds it, so that every spelling and format Boot
		// accepts there gives the same phase here.
		Duration shutdownPhase = Binder.get(environment)
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(DEFAULT_SHUTDOWN_PHASE);
		return new ElectionEngine(settings.identity(), settings.elections(), leaseStores, threads.runtime(), all,
				leaderWork.getIfAvailable(() -> LeaderWork.NONE), settings.drainTimeout(shutdownPhase));
	}

	@Bean
	@ConditionalOnBean(ElectionEngine.class)
	LeaseFollowingLifecycle leaseFollowingLifecycle(ElectionEngine leaderElector) {
		return new LeaseFollowingLifecycle(leaderElector);
	}

	@Bean
	@ConditionalOnBean(ElectionEngine.class)
	LeaderElectionLifecycle leaderElectionLifecycle(ElectionEngine leaderElector, LeaderElectionSettings settings,
			LeaderElectionProperties properties) {
		boolean standalone = properties.effectiveMode() == LeaderElectionProperties.Mode.STANDALONE;
		return new LeaderElectionLifecycle(leaderElector, settings, standalone,
				properties.isCampaignWhenReady() && !standalone);
	}

	/**
	 * Campaigns with the other replicas through the Kubernetes API, unless the application (or
	 * its tests) gives Leases of its own; the client stays for the application's use either way.
	 */
	@Configuration(proxyBeanMethods = false)
	@Conditional(OnLeaderElectionModeCondition.Kubernetes.class)
	static class KubernetesLeasesConfiguration {

		/** Lazy: built, with its HTTP client, only where Leases on Kubernetes or the application use it. */
		@Bean
		@Lazy
		@ConditionalOnMissingBean
		KubernetesClient kubernetesClient() {
			return new KubernetesClientBuilder().build();
		}

		/**
		 * With exit takeover ({@code leader.election.exit-takeover.*}) where the replica runs in a
		 * Pod: POD_NAME and POD_NAMESPACE name it.
		 */
		@Bean
		@ConditionalOnMissingBean(LeaseStoreFactory.class)
		KubernetesLeaseStores kubernetesLeaseStores(KubernetesClient kubernetesClient, LeaderElectionThreads threads,
				LeaderElectionProperties properties, Environment environment) {
			KubernetesLeaseStores stores = new KubernetesLeaseStores(kubernetesClient, threads.blockingCalls(),
					threads.requests());
			LeaderElectionProperties.ExitTakeover exitTakeover = properties.getExitTakeover();
			String podName = environment.getProperty("POD_NAME");
			String podNamespace = environment.getProperty("POD_NAMESPACE");
			if (exitTakeover.isEnabled() && StringUtils.hasText(podName) && StringUtils.hasText(podNamespace)) {
				stores.takeOverOnExit(podNamespace, podName,
						StringUtils.hasText(exitTakeover.getContainer()) ? exitTakeover.getContainer() : null);
			}
			return stores;
		}

	}

	/** Leads alone, on Leases kept in memory. */
	@Configuration(proxyBeanMethods = false)
	@Conditional(OnLeaderElectionModeCondition.Standalone.class)
	@ConditionalOnMissingBean(LeaseStoreFactory.class)
	static class StandaloneLeasesConfiguration {

		@Bean
		InMemoryLeaseStores standaloneLeaseStores() {
			return InMemoryLeaseStores.forOneProcess();
		}

	}

}
