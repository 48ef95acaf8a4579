package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import io.leaderelection.LeaderOnly;
import io.leaderelection.autoconfigure.leaderonly.LeaderOnlyAttributeSource.Declaration;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;

/**
 * Registers the runtime hints a bean with {@link LeaderOnly} methods or type needs to be gated
 * in a native image.
 * <p>
 * While the application is processed ahead of time, Spring registers the proxy that
 * {@link LeaderOnlyPostProcessor} makes of the bean and the methods of the bean's own class. This
 * adds the rest of what the gate reads and calls: the methods of the bean's superclasses and
 * interfaces, where the gate looks for the annotation and which the proxy calls on the bean; the
 * JDK proxy the bean gets instead of a class-based one when {@code spring.aop.proxy-target-class}
 * is set to false when the application runs, the post processor reading it only then; and the
 * properties of the arguments that a {@code key} expression reads.
 */
class LeaderOnlyBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = registeredBean.getBeanClass();
		if (!LeaderOnlyAttributeSource.mayGate(beanClass)) {
			return null;
		}
		return new LeaderOnlyHintsContribution(beanClass);
	}

	private static final class LeaderOnlyHintsContribution implements BeanRegistrationAotContribution {

		private final Class<?> beanClass;

		LeaderOnlyHintsContribution(Class<?> beanClass) {
			this.beanClass = beanClass;
		}

		@Override
		public void applyTo(GenerationContext generationContext, BeanRegistrationCode beanRegistrationCode) {
			RuntimeHints hints = generationContext.getRuntimeHints();
			for (Class<?> type : hierarchy(this.beanClass)) {
				hints.reflection().registerType(type, MemberCategory.INVOKE_DECLARED_METHODS);
			}
			Class<?>[] interfaces = ClassUtils.getAllInterfacesForClass(this.beanClass);
			if (interfaces.length > 0) {
				hints.proxies().registerJdkProxy(AopProxyUtils.completeJdkProxyInterfaces(interfaces));
			}
			Set<Class<?>> keyArguments = new LinkedHashSet<>();
			for (Declaration declaration : new LeaderOnlyAttributeSource().declaredBy(this.beanClass)) {
				Method method = declaration.method();
				if (method != null && !declaration.leaderOnly().key().isEmpty()) {
					Collections.addAll(keyArguments, method.getParameterTypes());
				}
			}
			new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
					keyArguments.toArray(Class<?>[]::new));
		}

		/**
		 * The class, its superclasses below {@code Object} and every interface they implement,
		 * directly or through another interface: where the gate looks for {@link LeaderOnly}, and
		 * whose methods a proxy calls on the bean.
		 */
		private static Set<Class<?>> hierarchy(Class<?> beanClass) {
			Set<Class<?>> types = new LinkedHashSet<>();
			for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
				types.add(type);
			}
			for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(beanClass)) {
				addWithSuperInterfaces(types, type);
			}
			return types;
		}

		private static void addWithSuperInterfaces(Set<Class<?>> types, Class<?> type) {
			if (types.add(type)) {
				for (Class<?> superInterface : type.getInterfaces()) {
					addWithSuperInterfaces(types, superInterface);
				}
			}
		}

	}

}
