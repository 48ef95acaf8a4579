package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.leaderelection.LeaderElector;
import io.leaderelection.LeaderOnly;
import io.leaderelection.LeaderStatus;
import io.leaderelection.autoconfigure.ShardedElections;
import io.leaderelection.autoconfigure.ShardedElections.ShardedElection;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAttributeSource.Declaration;
import io.leaderelection.autoconfigure.window.WindowedStarts;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.interceptor.ExposeBeanNameAdvisors;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.Lifecycle;
import org.springframework.expression.ParseException;

/**
 * Proxies beans with {@link LeaderOnly} methods or types, registers gated lifecycle beans, and
 * checks once every bean exists that each named election is configured, that keys are given
 * where, and only where, an election is sharded, and that each {@code atMostEvery} is a window
 * that can be kept where it is.
 */
public class LeaderOnlyPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private final LeaderOnlyAttributeSource attributes = new LeaderOnlyAttributeSource();

	private final LeaderOnlyKeys keys = new LeaderOnlyKeys();

	private final LeaderOnlyWindows windows = new LeaderOnlyWindows();

	private final ObjectProvider<LeaderElector> elector;

	private final ObjectProvider<LeaderOnlyRegistry> registry;

	private final ObjectProvider<WindowedStarts> windowedStarts;

	private final Map<String, GatedBean> gatedBeans = new LinkedHashMap<>();

	public LeaderOnlyPostProcessor(ObjectProvider<LeaderElector> elector, ObjectProvider<LeaderOnlyRegistry> registry,
			ObjectProvider<LeaderOnlyInvocations> invocations, ObjectProvider<WindowedStarts> windowedStarts,
			ObjectProvider<DueStarts> dueStarts) {
		this.elector = elector;
		this.registry = registry;
		this.windowedStarts = windowedStarts;
		this.advisor = new DefaultPointcutAdvisor(new LeaderOnlyPointcut(this.attributes), new LeaderOnlyInterceptor(
				this.attributes, this.keys, this.windows, elector, registry, invocations, windowedStarts, dueStarts));
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		super.setBeanFactory(beanFactory);
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.windows.setPlaceholders(configurable::resolveEmbeddedValue);
		}
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
			if (declarations.stream().anyMatch((declaration) -> !declaration.leaderOnly().atMostEvery().isEmpty())
					&& processed instanceof Advised advised && advised.indexOf(this.advisor) >= 0) {
				// the gate names a window's job by its bean, which only the bean's own proxy knows
				advised.addAdvisor(advised.indexOf(this.advisor),
						ExposeBeanNameAdvisors.createAdvisorWithoutIntroduction(beanName));
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
				if (declaration.leaderOnly().atMostEvery().isEmpty()) {
					check(beanName, bean, declaration, sharded.get(election));
				}
				else {
					checkWindow(beanName, bean, declaration, ShardedElections.runsForLife(statuses, election));
				}
			}
		});
	}

	/**
	 * An {@code atMostEvery} is kept on methods only, with no key (on a sharded election the
	 * job's name is the key), returning as on a follower, on an election whose leader renews its
	 * Lease, by the starter's elector, for a positive duration.
	 */
	private void checkWindow(String beanName, GatedBean bean, Declaration declaration, boolean forLife) {
		LeaderOnly leaderOnly = declaration.leaderOnly();
		String election = leaderOnly.value();
		String atMostEvery = leaderOnly.atMostEvery();
		Method method = declaration.method();
		if (method == null) {
			throw InvalidLeaderOnlyException.windowOnType(beanName, bean.type(), election, atMostEvery,
					bean.lifecycle());
		}
		if (!leaderOnly.key().isEmpty()) {
			throw InvalidLeaderOnlyException.windowWithKey(beanName, method, election, atMostEvery, leaderOnly.key());
		}
		if (leaderOnly.throwIfNotLeader()) {
			throw InvalidLeaderOnlyException.windowThrowingIfNotLeader(beanName, method, election, atMostEvery);
		}
		if (forLife) {
			throw InvalidLeaderOnlyException.windowOnForLifeElection(beanName, method, election, atMostEvery);
		}
		if (this.windowedStarts.getIfAvailable() == null) {
			throw InvalidLeaderOnlyException.windowWithoutEngine(beanName, method, election, atMostEvery,
					AopUtils.getTargetClass(this.elector.getObject()));
		}
		try {
			this.windows.resolve(atMostEvery);
		}
		catch (IllegalArgumentException ex) {
			throw InvalidLeaderOnlyException.invalidWindow(beanName, method, election, atMostEvery, ex);
		}
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
