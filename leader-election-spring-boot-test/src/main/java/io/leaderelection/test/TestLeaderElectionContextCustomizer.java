package io.leaderelection.test;

import java.util.List;
import java.util.Map;

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

	/** Overrides the application's switches: the test elects, in memory, whatever they say. */
	private static final Map<String, Object> ELECTING = Map.of("leader.election.enabled", "true",
			"leader.election.mode", "lease");

	/**
	 * Below every property of the application: the test hands leadership over at once, and a
	 * revocation is noticed within a tenth of a second unless the application sets its own period.
	 */
	private static final Map<String, Object> PROMPT = Map.of("leader.election.retry-period", "100ms");

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("leaderElectionTest", ELECTING));
		context.getEnvironment().getPropertySources().addLast(new MapPropertySource("leaderElectionTestTimings", PROMPT));
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		BeanDefinitionRegistry registry = (BeanDefinitionRegistry) beanFactory;
		registry.registerBeanDefinition("leaderElectionTestLeases",
				new RootBeanDefinition(InMemoryLeaseStores.class, InMemoryLeaseStores::shared));
		registry.registerBeanDefinition(LeaderElectionControl.BEAN_NAME,
				new RootBeanDefinition(LeaderElectionControl.class,
						() -> new LeaderElectionControl(beanFactory.getBean(ElectionEngine.class),
								beanFactory.getBean(InMemoryLeaseStores.class), this.leaderOf)));
	}

}
