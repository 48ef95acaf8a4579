package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the calls {@link LeaderOnlyInterceptor} gates.
 */
class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {

	private final LeaderOnlyAttributeSource attributes;

	LeaderOnlyPointcut(LeaderOnlyAttributeSource attributes) {
		this.attributes = attributes;
	}

	/** Skips, cheaply, the methods of every class that carries no {@link LeaderOnly} at all. */
	@Override
	public ClassFilter getClassFilter() {
		return LeaderOnlyAttributeSource::mayGate;
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		return this.attributes.lifecycleStartGate(method, targetClass) != null || this.attributes.find(method, targetClass) != null;
	}

}
