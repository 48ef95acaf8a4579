package io.leaderelection.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the application's leader election in a test without Kubernetes: the starter's own engine,
 * gate, events, gated beans, endpoint, health and metrics, on Leases kept in memory that the test
 * hands out through an injectable {@link LeaderElectionControl}. The application leads the
 * elections in {@link #leaderOf()} once the context has started and follows the others, each
 * held by {@link LeaderElectionControl#OTHER_REPLICA}, until the test grants them.
 * <p>
 * Put it on a {@code @SpringBootTest} class; test slices and tests without it are left alone.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureTestLeaderElection {

	/** Every configured election, in {@link #leaderOf()}. */
	String ALL = "*";

	/**
	 * The elections the application leads once the context has started: {@link #ALL} for every
	 * one, none to start as a follower of all.
	 */
	String[] leaderOf() default ALL;

}
