package io.leaderelection.autoconfigure.leaderonly;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.leaderelection.LeaderOnly;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * The keys of {@code @LeaderOnly(key = ...)} methods: SpEL expressions over the method's
 * arguments, parsed once per method and evaluated at every call.
 */
class LeaderOnlyKeys {

	private final ExpressionParser parser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Map<MethodClassKey, Key> keys = new ConcurrentHashMap<>();

	/** Parses a key expression. */
	Expression parse(String key) throws ParseException {
		return this.parser.parseExpression(key);
	}

	/**
	 * The key of the call, as a string to hash to a shard.
	 * @throws IllegalArgumentException when the key evaluates to {@code null}
	 */
	String evaluate(LeaderOnly leaderOnly, Method method, Class<?> targetClass, Object[] arguments) {
		Key key = this.keys.computeIfAbsent(new MethodClassKey(method, targetClass),
				(ignored) -> new Key(parse(leaderOnly.key()),
						// the class's method: parameter names are the implementation's, not an interface's
						AopUtils.getMostSpecificMethod(method, targetClass)));
		Object value = key.expression.getValue(
				new MethodBasedEvaluationContext(null, key.method, arguments, this.parameterNames));
		if (value == null) {
			Class<?> beanClass = (targetClass != null) ? targetClass : method.getDeclaringClass();
			throw new IllegalArgumentException("The key of @LeaderOnly(\"" + leaderOnly.value() + "\") on "
					+ ClassUtils.getQualifiedMethodName(key.method, beanClass) + " is null: '" + leaderOnly.key()
					+ "' evaluated to null for this call, so it names no shard to lead");
		}
		return String.valueOf(value);
	}

	private record Key(Expression expression, Method method) {

	}

}
