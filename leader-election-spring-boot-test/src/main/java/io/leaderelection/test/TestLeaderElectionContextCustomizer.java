package io.leaderelection.test;

import java.util.List;
import java.util.Map;

import io.leaderelection.autoconfigure.LeaderElectionSettings;
import io.leaderelection.engine.ElectionEngine;
import io.leaderelection.memory.InMemoryLeaseStores;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Puts the election of a test's context on Leases in memory, with a {@link LeaderElectionControl}
 * over them. A record, so that contexts with the same elections led at start are cached as one.
 *
 * @param leaderOf the elections led once the context has started
 */
record TestLeaderElectionContextCustomizer(List<String> leaderOf) implements ContextCustomizer {

	/**
	 * The defaults but for the retry and renew periods: a revocation is noticed at the next
	 * renewal, within a tenth of a second. Grants and step-downs do not wait for timings.
	 */
	private static final Map<String, Object> PROMPT = Map.of("leader.election.lease-duration", "15s",
			"leader.election.renew-deadline", "10s", "leader.election.retry-period", "100ms",
			"leader.election.renew-period", "100ms");

	/**
	 * Whatever the application sets: campaign as the context starts, not once it is ready, so
	 * that the elections it is to lead are led when it has started.
	 */
	private static final Map<String, Object> AT_START = Map.of("leader.election.campaign-when-ready", "false");

	private static final String LEASES = "leaderElectionTestLeases";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		TestElectionProperties.apply(context.getEnvironment(), PROMPT);
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("leaderElectionTestControl", AT_START));
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		BeanDefinitionRegistry registry = (BeanDefinitionRegistry) beanFactory;
		// primary: the elector takes these Leases even where the application defines Leases of its own
		RootBeanDefinition leases = new RootBeanDefinition(InMemoryLeaseStores.class,
				() -> LeaderElectionControl.seeded(InMemoryLeaseStores.shared(),
						beanFactory.getBean(LeaderElectionSettings.class).elections(), this.leaderOf));
		leases.setPrimary(true);
		registry.registerBeanDefinition(LEASES, leases);
		registry.registerBeanDefinition(LeaderElectionControl.BEAN_NAME,
				new RootBeanDefinition(LeaderElectionControl.class,
						() -> new LeaderElectionControl(beanFactory.getBean(ElectionEngine.class),
								beanFactory.getBean(LEASES, InMemoryLeaseStores.class), this.leaderOf)));
	}

}
