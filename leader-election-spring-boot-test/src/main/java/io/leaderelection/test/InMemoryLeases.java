package io.leaderelection.test;

import java.util.Map;

import io.leaderelection.memory.InMemoryLeaseStores;
import io.leaderelection.store.LeaseStoreFactory;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Leases in this JVM's memory that several application contexts elect on among themselves, each
 * with the starter's real engine, as replicas do on a cluster: a test of several replicas
 * without an API server. Each context joins through {@link #replica()}; close this once every
 * context is closed.
 * <pre class="code">
 * try (InMemoryLeases leases = new InMemoryLeases()) {
 *     ConfigurableApplicationContext one = new SpringApplicationBuilder(MyApplication.class)
 *         .initializers(leases.replica()).run();
 *     ...
 * }
 * </pre>
 */
public final class InMemoryLeases implements AutoCloseable {

	/**
	 * Scaled down, unless the application sets timings of its own: a Lease is missing for its
	 * first leader for 2 s, and a leader that stops renewing is replaced within 2 s.
	 */
	private static final Map<String, Object> SCALED_DOWN = Map.of("leader.election.lease-duration", "2s",
			"leader.election.renew-deadline", "1s", "leader.election.retry-period", "250ms");

	private final InMemoryLeaseStores stores = InMemoryLeaseStores.shared();

	/**
	 * What makes a context a replica on these Leases: its elector campaigns here instead of on
	 * Kubernetes, even where the application switches election off, rejoining when it loses, with
	 * scaled-down timings unless the application sets its own.
	 */
	public ApplicationContextInitializer<ConfigurableApplicationContext> replica() {
		return (context) -> {
			TestElectionProperties.apply(context.getEnvironment(), SCALED_DOWN);
			RootBeanDefinition replica = new RootBeanDefinition(LeaseStoreFactory.class, this.stores::sharedView);
			replica.setPrimary(true);
			((BeanDefinitionRegistry) context.getBeanFactory()).registerBeanDefinition("inMemoryLeases", replica);
		};
	}

	@Override
	public void close() {
		this.stores.close();
	}

}
