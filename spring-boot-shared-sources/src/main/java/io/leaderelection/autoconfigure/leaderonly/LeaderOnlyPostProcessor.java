package io.leaderelection.autoconfigure.leaderonly;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.ShardedElections;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAttributeSource.Declaration;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.Lifecycle;
import org.springframework.expression.ParseException;

/**
 * Proxies beans with {@link LeaderOnly} methods or types, registers gated lifecycle beans, and
 * checks once every bean exists that each named election is configured and that keys are given
 * where, and only where, an election is sharded.
 */
public class LeaderOnlyPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private final LeaderOnlyAttributeSource attributes = new LeaderOnlyAttributeSource();

	private final LeaderOnlyKeys keys = new LeaderOnlyKeys();

	private final ObjectProvider<LeaderElector> elector;

	private final ObjectProvider<LeaderOnlyRegistry> registry;

	private final Map<String, GatedBean> gatedBeans = new LinkedHashMap<>();

	public LeaderOnlyPostProcessor(ObjectProvider<LeaderElector> elector, ObjectProvider<LeaderOnlyRegistry> registry,
			ObjectProvider<LeaderOnlyInvocations> invocations) {
		this.elector = elector;
		this.registry = registry;
		this.advisor = new DefaultPointcutAdvisor(new LeaderOnlyPointcut(this.attributes),
				new LeaderOnlyInterceptor(this.attributes, this.keys, elector, registry, invocations));
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		boolean gated = isEligible(targetClass);
		Object processed = super.postProcessAfterInitialization(bean, beanName);
		if (gated) {
			List<Declaration> declarations = this.attributes.declaredBy(targetClass);
			LeaderOnly lifecycleGate = this.attributes.lifecycleGate(targetClass);
			if (!declarations.isEmpty()) {
				this.gatedBeans.put(beanName, new GatedBean(targetClass, declarations, lifecycleGate != null));
			}
			if (lifecycleGate != null) {
				this.registry.getObject().register(lifecycleGate.value(), (Lifecycle) processed, beanName);
			}
		}
		return processed;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Map<String, LeaderStatus> statuses = this.elector.getObject().statuses();
		List<String> configured = ShardedElections.electionNames(statuses);
		Map<String, ShardedElection> sharded = ShardedElections.of(statuses);
		this.gatedBeans.forEach((beanName, bean) -> {
			for (Declaration declaration : bean.declarations()) {
				String election = declaration.leaderOnly().value();
				// a shard may be named on its own too: the elector knows it as an election
				if (!configured.contains(election) && !statuses.containsKey(election)) {
					throw new UnknownLeaderOnlyElectionException(beanName, election, configured);
				}
				check(beanName, bean, declaration, sharded.get(election));
			}
		});
	}

	private void check(String beanName, GatedBean bean, Declaration declaration, ShardedElection sharded) {
		LeaderOnly leaderOnly = declaration.leaderOnly();
		String election = leaderOnly.value();
		String key = leaderOnly.key();
		if (declaration.method() == null) {
			if (!key.isEmpty()) {
				throw InvalidLeaderOnlyException.keyOnType(beanName, bean.type(), election, key);
			}
			if (sharded != null) {
				throw InvalidLeaderOnlyException.typeOnShardedElection(beanName, bean.type(), election,
						bean.lifecycle());
			}
			return;
		}
		if (key.isEmpty()) {
			if (sharded != null) {
				throw InvalidLeaderOnlyException.missingKey(beanName, declaration.method(), election, sharded.count());
			}
			return;
		}
		if (sharded == null) {
			throw InvalidLeaderOnlyException.keyWithoutShards(beanName, declaration.method(), election, key);
		}
		try {
			this.keys.parse(key);
		}
		catch (ParseException ex) {
			throw InvalidLeaderOnlyException.unparsableKey(beanName, declaration.method(), election, key, ex);
		}
	}

	/**
	 * A bean with {@link LeaderOnly} on its type or methods.
	 *
	 * @param type the bean's class
	 * @param declarations the annotations found on it
	 * @param lifecycle whether it is a lifecycle bean started and stopped with an election
	 */
	private record GatedBean(Class<?> type, List<Declaration> declarations, boolean lifecycle) {

	}

}
