package io.leaderelection;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks work that must run on the leader of an election only.
 * <p>
 * On a method, or on a type (every public method): on a replica that does not lead, the body
 * does not run; {@code void} returns, {@code Optional} is empty, {@code CompletableFuture} and
 * {@code CompletionStage} complete with {@code null}, primitives are {@code false} or zero and
 * other types {@code null} — or {@link NotLeaderException} is thrown when
 * {@link #throwIfNotLeader()} asks for it. The check is the elector's time-bounded gate, read
 * when the call is made.
 * <p>
 * On a web request handler (a {@code @RequestMapping} method, or a controller annotated as a
 * type), in Spring MVC or WebFlux: a request reaching a replica that does not lead, as it does
 * through a route not yet updated after a handover, is answered {@code 503} with
 * {@code Retry-After} and the handler does not run (called directly, it throws
 * {@link NotLeaderException}); the leader's answers carry the headers
 * {@code Leader-Election-Holder} and {@code Leader-Election-Fencing-Token}, and a release of its
 * own accord waits for the requests it is serving.
 * <p>
 * On a {@code Lifecycle} or {@code SmartLifecycle} bean type: the bean is not started with the
 * context; it is started when this replica becomes leader and stopped when it stops being
 * leader and before the Lease is released on shutdown. This is how to gate message listener
 * containers and pollers: skipping a listener method instead would acknowledge and drop the
 * messages it receives on a follower.
 * <p>
 * Calls from a bean to its own methods ({@code this.method()}) do not pass through the proxy
 * and are not gated, as with {@code @Transactional}.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

	/** The election whose leader runs the work; {@code default} when not set. */
	String value() default LeaderElector.DEFAULT_ELECTION;

	/**
	 * For an election split into shards, the key whose shard must be led here for the call to
	 * run: a SpEL expression over the method's arguments, by name ({@code #order.id}) or position
	 * ({@code #p0}), whose value is turned into a string and mapped by {@link Shard#of(String, int)}.
	 * Required on a sharded election, not allowed on one that is not; only on methods.
	 */
	String key() default "";

	/** Whether a call on a replica that does not lead throws {@link NotLeaderException}. */
	boolean throwIfNotLeader() default false;

	/**
	 * Whether a call still running when leadership is lost has its thread interrupted. Off by
	 * default: interrupting code that does not expect it can leave work half done.
	 */
	boolean interruptOnRevoke() default false;

	/**
	 * At most one start of the method per window, across every replica of the election: a
	 * duration ({@code 1m}, {@code PT1M}, or {@code 60000} for milliseconds) or a property
	 * placeholder giving one, resolved at start-up; only on methods. Each start is recorded in the
	 * election's Lease, under the leader's current term, before the body runs; a call less than
	 * the window after the last start, by whichever replica, or while the last run may still be
	 * running, returns as on a follower. So a {@code @Scheduled} job keeps its rate across
	 * handovers, where the new leader's timer fires on its own phase; the starter's
	 * auto-configuration also starts a {@code void} {@code @Scheduled} job when it is due, rather
	 * than at the new leader's timer's next call (see its documentation). The job is named by its bean
	 * and method; on a sharded election that name is its key. Not with {@link #key()} or
	 * {@link #throwIfNotLeader()}, nor on an election that runs for life.
	 */
	String atMostEvery() default "";

}
