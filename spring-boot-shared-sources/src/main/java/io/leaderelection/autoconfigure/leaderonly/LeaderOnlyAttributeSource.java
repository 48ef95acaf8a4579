package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.leaderelection.LeaderOnly;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.Lifecycle;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ClassUtils;
import org.springframework.util.ConcurrentReferenceHashMap;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Finds the {@link LeaderOnly} that applies to a method call: on the method (or the interface
 * method it implements), else on its class for every public method and every web request
 * handler method, whatever its visibility. A {@code Lifecycle} class annotated at type level is
 * gated as a whole instead: its start and auto-startup.
 */
public class LeaderOnlyAttributeSource {

	private static final Optional<LeaderOnly> NONE = Optional.empty();

	private static final boolean WEB_PRESENT = ClassUtils
		.isPresent("org.springframework.web.bind.annotation.RequestMapping", LeaderOnlyAttributeSource.class.getClassLoader());

	/**
	 * Whether a class carries the annotation anywhere, for the JVM's life: annotations on a class
	 * never change, and an application's tests start many contexts on the same classes.
	 */
	private static final Map<Class<?>, Boolean> carriers = new ConcurrentReferenceHashMap<>();

	private final Map<MethodClassKey, Optional<LeaderOnly>> cache = new ConcurrentHashMap<>();

	private final Map<MethodClassKey, Boolean> scheduled = new ConcurrentHashMap<>();

	/**
	 * Whether the class, its superclasses or interfaces, or a method of any of them carries
	 * {@link LeaderOnly}, directly or as a meta-annotation: only such a class can have a gated call.
	 */
	static boolean mayGate(Class<?> targetClass) {
		return carriers.computeIfAbsent(targetClass, LeaderOnlyAttributeSource::carries);
	}

	private static boolean carries(Class<?> type) {
		if (AnnotatedElementUtils.hasAnnotation(type, LeaderOnly.class)) {
			return true;
		}
		Set<Class<?>> types = new LinkedHashSet<>(ClassUtils.getAllInterfacesForClassAsSet(type));
		for (Class<?> declaring = type; declaring != null; declaring = declaring.getSuperclass()) {
			types.add(declaring);
		}
		for (Class<?> declaring : types) {
			for (Method method : declaring.getDeclaredMethods()) {
				if (AnnotatedElementUtils.isAnnotated(method, LeaderOnly.class)) {
					return true;
				}
			}
		}
		return false;
	}

	/** The annotation gating calls of the method on the class, or {@code null}. */
	public LeaderOnly find(Method method, Class<?> targetClass) {
		return this.cache.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> lookUp(method, targetClass))
			.orElse(null);
	}

	/**
	 * Whether the method handles web requests ({@code @RequestMapping} or one of its shortcuts):
	 * a call refused there must not answer as if it had run, so it throws, and the web layer
	 * answers 503.
	 */
	boolean handlesRequests(Method method, Class<?> targetClass) {
		return WEB_PRESENT && RequestMappings.annotates(AopUtils.getMostSpecificMethod(method, targetClass));
	}

	/**
	 * Whether a timer calls the method: a {@code void} method with {@code @Scheduled}, whose
	 * caller waits for nothing, so that a call may run later than it came.
	 */
	boolean isScheduled(Method method, Class<?> targetClass) {
		return method.getReturnType() == void.class && this.scheduled.computeIfAbsent(
				new MethodClassKey(method, targetClass), (key) -> AnnotatedElementUtils
					.hasAnnotation(AopUtils.getMostSpecificMethod(method, targetClass), Scheduled.class));
	}

	/** The type-level annotation of a Lifecycle class, which gates its start; {@code null} when none. */
	LeaderOnly lifecycleGate(Class<?> targetClass) {
		if (targetClass == null || !Lifecycle.class.isAssignableFrom(targetClass)) {
			return null;
		}
		return AnnotatedElementUtils.findMergedAnnotation(targetClass, LeaderOnly.class);
	}

	/**
	 * The gate of the call when it is {@code isAutoStartup()} or {@code start()} of a gated
	 * Lifecycle class; {@code null} for any other call.
	 */
	LeaderOnly lifecycleStartGate(Method method, Class<?> targetClass) {
		boolean start = method.getParameterCount() == 0
				&& ("start".equals(method.getName()) || "isAutoStartup".equals(method.getName()));
		return start ? lifecycleGate(targetClass) : null;
	}

	/**
	 * Every {@link LeaderOnly} on the class and its methods, the type's first: what the post
	 * processor checks against the configured elections once they are known.
	 */
	List<Declaration> declaredBy(Class<?> targetClass) {
		List<Declaration> declarations = new ArrayList<>();
		LeaderOnly onType = AnnotatedElementUtils.findMergedAnnotation(targetClass, LeaderOnly.class);
		if (onType != null) {
			declarations.add(new Declaration(onType, null));
		}
		ReflectionUtils.doWithMethods(targetClass, (method) -> {
			LeaderOnly onMethod = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
			if (onMethod != null) {
				declarations.add(new Declaration(onMethod, method));
			}
		}, (method) -> !method.isBridge());
		return declarations;
	}

	/**
	 * A {@link LeaderOnly} found on a class.
	 *
	 * @param leaderOnly the annotation
	 * @param method the method it is on; {@code null} when it is on the type
	 */
	record Declaration(LeaderOnly leaderOnly, Method method) {

	}

	private Optional<LeaderOnly> lookUp(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		LeaderOnly onMethod = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
		if (onMethod == null && specific != method) {
			onMethod = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
		}
		if (onMethod != null) {
			return Optional.of(onMethod);
		}
		Class<?> type = (targetClass != null) ? targetClass : method.getDeclaringClass();
		// the web layer maps handler methods of any visibility, and its check is what gates them
		boolean applies = Modifier.isPublic(method.getModifiers()) || handlesRequests(method, targetClass);
		if (Lifecycle.class.isAssignableFrom(type) || !applies || method.getDeclaringClass() == Object.class
				|| isObjectMethod(method) || !ClassUtils.isUserLevelMethod(method)) {
			return NONE;
		}
		return Optional.ofNullable(AnnotatedElementUtils.findMergedAnnotation(type, LeaderOnly.class));
	}

	/** {@code toString}, {@code equals} or {@code hashCode}, also where the class overrides them. */
	private static boolean isObjectMethod(Method method) {
		return AopUtils.isToStringMethod(method) || AopUtils.isEqualsMethod(method)
				|| AopUtils.isHashCodeMethod(method);
	}

	/** Loaded only where spring-web is. */
	private static final class RequestMappings {

		static boolean annotates(Method method) {
			return AnnotatedElementUtils.hasAnnotation(method, RequestMapping.class);
		}

	}

}
