package io.leaderelection.autoconfigure.leaderonly;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.Lifecycle;

/**
 * Proxies beans with {@link LeaderOnly} methods or types, registers gated lifecycle beans, and
 * checks once every bean exists that each named election is configured.
 */
public class LeaderOnlyPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private final LeaderOnlyAttributeSource attributes = new LeaderOnlyAttributeSource();

	private final ObjectProvider<LeaderElector> elector;

	private final ObjectProvider<LeaderOnlyRegistry> registry;

	private final Map<String, Set<String>> electionsByBean = new LinkedHashMap<>();

	public LeaderOnlyPostProcessor(ObjectProvider<LeaderElector> elector, ObjectProvider<LeaderOnlyRegistry> registry,
			ObjectProvider<LeaderOnlyInvocations> invocations) {
		this.elector = elector;
		this.registry = registry;
		this.advisor = new DefaultPointcutAdvisor(new LeaderOnlyPointcut(this.attributes),
				new LeaderOnlyInterceptor(this.attributes, elector, registry, invocations));
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		boolean gated = isEligible(targetClass);
		Object processed = super.postProcessAfterInitialization(bean, beanName);
		if (gated) {
			Set<String> elections = this.attributes.electionsNamedBy(targetClass);
			if (!elections.isEmpty()) {
				this.electionsByBean.put(beanName, elections);
			}
			LeaderOnly lifecycleGate = this.attributes.lifecycleGate(targetClass);
			if (lifecycleGate != null) {
				this.registry.getObject().register(lifecycleGate.value(), (Lifecycle) processed, beanName);
			}
		}
		return processed;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> configured = new ArrayList<>(this.elector.getObject().statuses().keySet());
		this.electionsByBean.forEach((beanName, elections) -> {
			for (String election : elections) {
				if (!configured.contains(election)) {
					throw new UnknownLeaderOnlyElectionException(beanName, election, configured);
				}
			}
		});
	}

}
