package io.leaderelection.autoconfigure.leaderonly;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import org.aopalliance.intercept.MethodInvocation;

import org.springframework.util.ClassUtils;

/**
 * What a gated call returns: the result of a call that ran as leader work, whose end waits for a
 * future it returned, or the empty result of one that did not run.
 */
final class LeaderOnlyResults {

	private LeaderOnlyResults() {
	}

	/**
	 * Proceeds with a call that runs as leader work: it ends when it returns, or, when it
	 * returns a future, when that completes, as a release waits for that too.
	 * @param returned told when the call returned a future, on the thread it ran on
	 * @param ended told when the work ended, with whether that was after the call returned
	 */
	static Object proceed(MethodInvocation invocation, Runnable returned, Consumer<Boolean> ended)
			throws Throwable {
		boolean endsLater = false;
		try {
			Object result = invocation.proceed();
			if (result instanceof CompletionStage<?> stage) {
				returned.run();
				endsLater = true;
				stage.whenComplete((value, failure) -> ended.accept(true));
			}
			return result;
		}
		finally {
			if (!endsLater) {
				ended.accept(false);
			}
		}
	}

	static Object emptyResult(Class<?> returnType) {
		if (returnType == Optional.class) {
			return Optional.empty();
		}
		if (returnType == CompletableFuture.class || returnType == CompletionStage.class
				|| returnType == Future.class) {
			return CompletableFuture.completedFuture(null);
		}
		if (returnType.isPrimitive() && returnType != void.class) {
			return (returnType == boolean.class) ? Boolean.FALSE
					: (returnType == char.class) ? Character.valueOf('\0') : defaultNumber(returnType);
		}
		return null;
	}

	private static Object defaultNumber(Class<?> primitive) {
		Class<?> wrapper = ClassUtils.resolvePrimitiveIfNecessary(primitive);
		if (wrapper == Integer.class) {
			return 0;
		}
		if (wrapper == Long.class) {
			return 0L;
		}
		if (wrapper == Double.class) {
			return 0d;
		}
		if (wrapper == Float.class) {
			return 0f;
		}
		if (wrapper == Short.class) {
			return (short) 0;
		}
		return (byte) 0;
	}

}
